// SPDX-License-Identifier: MIT
// The one description of the wire protocol (Assets/protocol/diptych-protocol.json) as the tests
// read it: messages with their opcodes, names and typed fields, limits, fourccs, error codes,
// and a reader that takes a message body apart field by field as the description says.

import DiptychCore
import DiptychLinux

/// The description, read once.
public struct ProtocolDescription: Sendable {
    public struct Message: Sendable {
        public var opcode: Int
        public var name: String
        public var fields: [(name: String, type: String)]
        /// The first version whose apps send or read it as it is now.
        public var since: Int
    }
    public var version: Int
    public var oldestServedVersion: Int
    public var requests: [Message]
    public var events: [Message]
    public var fourcc: [String: Int]
    public var errors: [(code: Int, name: String)]
    public var limits: [String: Int]

    /// Where it is in the repository.
    public static let path = Golden.directory(of: #filePath) + "/../../Assets/protocol/diptych-protocol.json"

    public static func load() throws -> ProtocolDescription {
        let bytes = try Files.read(path)
        let json = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
        func field(_ f: JSONValue) -> (name: String, type: String) {
            let pair = f.arrayValue ?? []
            return (pair.first?.stringValue ?? "", pair.count > 1 ? pair[1].stringValue ?? "" : "")
        }
        func message(_ m: JSONValue) -> Message {
            let fields: [(name: String, type: String)] = (m["fields"]?.arrayValue ?? []).map(field)
            return Message(opcode: m["opcode"]?.intValue ?? -1, name: m["name"]?.stringValue ?? "", fields: fields, since: m["since"]?.intValue ?? -1)
        }
        func messages(_ key: String) -> [Message] { (json[key]?.arrayValue ?? []).map(message) }
        return ProtocolDescription(
            version: json["version"]?.intValue ?? -1, oldestServedVersion: json["oldestServedVersion"]?.intValue ?? -1, requests: messages("requests"), events: messages("events"),
            fourcc: Dictionary(uniqueKeysWithValues: (json["fourcc"]?.objectValue ?? []).map { ($0.0, $0.1.intValue ?? -1) }),
            errors: (json["errors"]?.arrayValue ?? []).map { ($0.arrayValue?[0].intValue ?? -1, $0.arrayValue?[1].stringValue ?? "") },
            limits: Dictionary(uniqueKeysWithValues: (json["limits"]?.objectValue ?? []).map { ($0.0, $0.1.intValue ?? -1) }))
    }

    /// Reads `body` as the fields of `m`: false when they do not end exactly at its end (or a
    /// length in it breaks a limit).
    public func read(_ body: ArraySlice<UInt8>, as m: Message) -> Bool {
        var at = body.startIndex
        func take(_ n: Int) -> Bool { at += n; return at <= body.endIndex }
        func u32() -> Int? {
            guard at + 4 <= body.endIndex else { return nil }
            defer { at += 4 }
            return (0..<4).reduce(0) { $0 | Int(body[at + $1]) << (8 * $1) }
        }
        for (_, type) in m.fields {
            switch type {
            case "u8": guard take(1) else { return false }
            case "u16": guard take(2) else { return false }
            case "u32", "i32": guard take(4) else { return false }
            case "u64", "f64": guard take(8) else { return false }
            case "rect": guard take(16) else { return false }
            case "layout": guard take(20) else { return false }
            case "string":
                guard let n = u32(), n <= limits["stringBytes"] ?? 0, take(n) else { return false }
            case "damage":
                guard let n = u32(), n <= limits["damageRects"] ?? 0, take(16 * n) else { return false }
            case "menuItems", "alertButtons":
                // A count, then each: a u8 (flags, style) and a label.
                let most = type == "menuItems" ? limits["menuItemsPerMessage"] ?? 0 : limits["alertButtons"] ?? 0
                guard let n = u32(), n <= most else { return false }
                for _ in 0..<n {
                    guard take(1), let length = u32(), length <= limits["labelBytes"] ?? 0, take(length) else { return false }
                }
            default: return false
            }
        }
        return at == body.endIndex
    }
}

// SPDX-License-Identifier: MIT
// Little-endian field encoding for protocol message bodies.

/// Appends little-endian fields to a byte array.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Room for `capacity` bytes from the start (most messages fit in 64: no regrowing).
    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }
    public mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { for s in stride(from: 0, to: 16, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> s)) } }
    public mutating func u32(_ v: UInt32) { for s in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> s)) } }
    public mutating func u64(_ v: UInt64) { for s in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: v >> s)) } }
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    public mutating func f64(_ v: Double) { u64(v.bitPattern) }
    public mutating func string(_ s: String) {
        let utf8 = Array(s.utf8.prefix(Wire.maxStringBytes))
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

/// Reads little-endian fields from a message body; every read is bounds-checked.
public struct ByteReader: Sendable {
    let bytes: ArraySlice<UInt8>
    var index: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    public var isAtEnd: Bool { index == bytes.endIndex }

    mutating func take(_ n: Int) throws(ProtocolError) -> ArraySlice<UInt8> {
        guard n >= 0, bytes.endIndex - index >= n else {
            throw ProtocolError(.malformedMessage, "message body ends early")
        }
        defer { index += n }
        return bytes[index..<index + n]
    }

    private mutating func unsigned(_ n: Int) throws(ProtocolError) -> UInt64 {
        var v: UInt64 = 0
        for (i, b) in try take(n).enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }

    public mutating func u8() throws(ProtocolError) -> UInt8 { UInt8(try unsigned(1)) }
    public mutating func u16() throws(ProtocolError) -> UInt16 { UInt16(try unsigned(2)) }
    public mutating func u32() throws(ProtocolError) -> UInt32 { UInt32(try unsigned(4)) }
    public mutating func u64() throws(ProtocolError) -> UInt64 { try unsigned(8) }
    public mutating func i32() throws(ProtocolError) -> Int32 { Int32(bitPattern: try u32()) }
    public mutating func f64() throws(ProtocolError) -> Double { Double(bitPattern: try u64()) }
    /// A u8 that is 0 or 1.
    public mutating func flag(_ field: String) throws(ProtocolError) -> Bool {
        let v = try u8()
        guard v <= 1 else { throw ProtocolError(.malformedMessage, "bad \(field) value \(v): 0 or 1") }
        return v == 1
    }
    public mutating func string() throws(ProtocolError) -> String {
        let n = Int(try u32())
        guard n <= Wire.maxStringBytes else { throw ProtocolError(.malformedMessage, "string longer than \(Wire.maxStringBytes) bytes") }
        let raw = try take(n)
        guard let s = String(validating: raw, as: UTF8.self) else {
            throw ProtocolError(.malformedMessage, "string is not valid UTF-8")
        }
        return s
    }
}

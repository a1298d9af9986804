// SPDX-License-Identifier: MIT
// `diptych run --config FILE`: the file's keys become `run` flags before the command line is
// parsed (flags given beat them; see `ConfigFile`).

import DiptychCore
import DiptychLinux

enum ConfigOption {
    /// `arguments` (without the program's name) with a `run --config FILE`'s keys added as
    /// flags; unchanged for any other command. A file that cannot be read or is wrong is a
    /// usage error naming it (and its line and key).
    static func expand(_ arguments: [String]) throws -> [String] {
        guard arguments.first == "run", let entries = try entries(arguments) else { return arguments }
        return ["run"] + ConfigFile.arguments(entries, given: arguments) + arguments.dropFirst()
    }

    /// `message` (about a flag) prefixed with the file, line and key it came from, when a value
    /// of `run --config FILE` (not a flag given) is the one it names.
    static func located(_ message: String, _ arguments: [String]) -> String {
        guard arguments.first == "run", let entries = try? entries(arguments), let file = file(arguments) else { return message }
        let given = Set(arguments.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).prefix { $0 != "=" }) })
        func names(_ key: String) -> Bool {
            var rest = Substring(message)
            while let r = rest.firstRange(of: "--\(key)") {
                let after = rest[r.upperBound...].first
                if after.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
                rest = rest[r.upperBound...]
            }
            return false
        }
        // (The longest key first: memory-limit-primary before memory-limit.)
        guard let e = entries.filter({ !given.contains($0.key) && names($0.key) }).max(by: { $0.key.count < $1.key.count }) else { return message }
        var text = message
        for prefix in ["Error: ", "diptych: "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        return "diptych: \(file):\(e.line): \(e.key): \(text)"
    }

    /// The file `run --config FILE` names (the last one given).
    static func file(_ arguments: [String]) -> String? {
        var path: String?
        for (i, a) in arguments.enumerated() {
            if a == "--config", i + 1 < arguments.count { path = arguments[i + 1] }
            if a.hasPrefix("--config=") { path = String(a.dropFirst("--config=".count)) }
        }
        return path
    }

    /// The file's folder (for its relative paths).
    static func folder(of path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : "\(Files.currentDirectory ?? "")/\(path)"
        guard let slash = absolute.lastIndex(of: "/"), slash != absolute.startIndex else { return "/" }
        return String(absolute[..<slash])
    }

    /// The `run --config FILE`'s keys in effect (flags given beat them), key → value; empty
    /// without a file.
    static func settings(_ arguments: [String]) throws -> [String: String] {
        guard let entries = try entries(arguments) else { return [:] }
        return Dictionary(ConfigFile.inEffect(entries, given: arguments).map { ($0.key, $0.value) }) { a, _ in a }
    }

    /// The entries of the file `arguments` name with --config, checked (nil: none named).
    static func entries(_ arguments: [String]) throws -> [(key: String, value: String, line: Int)]? {
        if arguments.last == "--config" { throw UsageError("--config needs a file") }
        guard let path = file(arguments) else { return nil }
        let bytes: [UInt8]
        do { bytes = try Files.readRegular(path, limit: ConfigFile.byteLimit) } catch { throw UsageError("cannot read the configuration \(path): \(error)") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw UsageError("\(path): not UTF-8 text") }
        let entries: [(key: String, value: String, line: Int)]
        do { entries = try ConfigFile.parse(text, file: path) } catch { throw UsageError(error.description) }
        // The apps' relative paths are the file's: against its folder, wherever run was started.
        let base = folder(of: path)
        return entries.map { e in
            ["primary", "secondary"].contains(e.key) ? (e.key, Apps.absolutized(e.value, against: base), e.line) : e
        }
    }
}

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

    /// The `run --config FILE`'s keys in effect (flags given beat them), key → value; empty
    /// without a file.
    static func settings(_ arguments: [String]) throws -> [String: String] {
        guard let entries = try entries(arguments) else { return [:] }
        return Dictionary(ConfigFile.inEffect(entries, given: arguments).map { ($0.key, $0.value) }) { a, _ in a }
    }

    /// The entries of the file `arguments` name with --config, checked (nil: none named).
    static func entries(_ arguments: [String]) throws -> [(key: String, value: String, line: Int)]? {
        var path: String?
        for (i, a) in arguments.enumerated() {
            if a == "--config" {
                guard i + 1 < arguments.count else { throw UsageError("--config needs a file") }
                path = arguments[i + 1]
            } else if a.hasPrefix("--config=") {
                path = String(a.dropFirst("--config=".count))
            }
        }
        guard let path else { return nil }
        let bytes: [UInt8]
        do { bytes = try Files.readRegular(path, limit: ConfigFile.byteLimit) } catch { throw UsageError("cannot read the configuration \(path): \(error)") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw UsageError("\(path): not UTF-8 text") }
        let entries: [(key: String, value: String, line: Int)]
        do { entries = try ConfigFile.parse(text, file: path) } catch { throw UsageError(error.description) }
        return entries
    }
}

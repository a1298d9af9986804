// SPDX-License-Identifier: MIT
// The kiosk's configuration file (`diptych run --config FILE`), INI as weston.ini reads it:
// sections in brackets, `key = value` lines, comment lines starting with `#` or `;`, a value
// running to the end of its line (no quoting: an app's command line keeps its own shell
// quoting), booleans `true` or `false`. Every key of `[kiosk]` is a `run` flag of the same name;
// the file becomes those flags, and flags given on the command line beat it. A repeated key, an
// unknown section or key, a line that is none of these, or a bad boolean is an error naming the
// file, the line and the key.

/// A configuration file's fault, named by file and line.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }
}

public enum ConfigFile {
    /// The keys that take a value: `key = value` is `--key value`.
    public static let valueKeys: [String] = [
        "device", "orientation", "compact-width", "divider-width", "regular-min-width", "backend", "card", "mode", "arrangement",
        "primary", "secondary", "scenario", "relaunch", "out", "input", "touch-calibration", "keymap", "repeat", "emulate-on",
        "rotate", "status-bar", "status-bar-title", "battery", "second-screen", "palm-rejection", "pen-holdoff-ms", "refresh",
        "repaint-window", "cursor", "ctl-socket", "ctl-group", "idle-timeout", "blank-schedule", "blank",
        "memory-limit", "memory-limit-primary", "memory-limit-secondary", "keyboard-layouts",
        "vnc", "vnc-tls-cert", "vnc-tls-key", "vnc-users",
    ]
    /// The boolean keys, with the flag each value stands for (nil: none, the default).
    public static let booleanKeys: [String: (whenTrue: String?, whenFalse: String?)] = [
        "multitasking": (nil, "--no-multitasking"),
        "debug-damage": ("--debug-damage", nil),
        "reduce-motion": ("--reduce-motion", nil),
        "vnc-insecure": ("--vnc-insecure", nil),
        "vnc-input": ("--vnc-input", nil),
    ]
    /// The keys a scenario sets itself (given or by its defaults): with a scenario, the file's
    /// are left out (a scenario beats the file; flags beat both).
    public static let scenarioKeys: Set<String> = [
        "device", "orientation", "emulate-on", "second-screen", "primary", "secondary", "arrangement", "multitasking",
        "palm-rejection", "pen-holdoff-ms",
    ]
    /// The one section.
    public static let section = "kiosk"
    /// The longest file read (a kiosk's configuration is a page).
    public static let byteLimit = 64 * 1024

    /// The file's keys and values in order (with their lines), checked.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> [(key: String, value: String, line: Int)] {
        var out: [(key: String, value: String, line: Int)] = []
        var seen: [String: Int] = [:]
        var inSection = false
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = i + 1
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw ConfigError(file: file, line: n, message: "a section is [name]: '\(line)'") }
                let name = String(line.dropFirst().dropLast()).trimmingWhitespace
                guard name == section else { throw ConfigError(file: file, line: n, message: "unknown section [\(name)] (the file has one: [\(section)])") }
                inSection = true
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw ConfigError(file: file, line: n, message: "'\(line)' is not a section, a key = value or a comment (# or ;)")
            }
            let key = String(line[..<eq]).trimmingWhitespace, value = String(line[line.index(after: eq)...]).trimmingWhitespace
            guard inSection else { throw ConfigError(file: file, line: n, message: "key '\(key)' before the [\(section)] section") }
            guard valueKeys.contains(key) || booleanKeys[key] != nil else {
                throw ConfigError(file: file, line: n, message: "unknown key '\(key)' (keys are run's flags: see diptych run --help)")
            }
            if let first = seen[key] { throw ConfigError(file: file, line: n, message: "key '\(key)' is repeated (first on line \(first))") }
            seen[key] = n
            guard !value.isEmpty else { throw ConfigError(file: file, line: n, message: "key '\(key)' has no value") }
            if booleanKeys[key] != nil, value != "true", value != "false" {
                throw ConfigError(file: file, line: n, message: "key '\(key)': '\(value)' is not a boolean (true or false)")
            }
            out.append((key, value, n))
        }
        return out
    }

    /// The entries in effect: those whose flags `given` does not have (flags beat the file),
    /// nor, with a scenario, the keys it sets.
    public static func inEffect(_ entries: [(key: String, value: String, line: Int)], given: [String]) -> [(key: String, value: String, line: Int)] {
        let scenario = given.contains("--scenario") || entries.contains { $0.key == "scenario" }
        return entries.filter { e in
            if scenario && scenarioKeys.contains(e.key) { return false }
            if let b = booleanKeys[e.key] { return ![b.whenTrue, b.whenFalse].compactMap { $0 }.contains(where: given.contains) }
            let flag = "--\(e.key)"
            return !given.contains(flag) && !given.contains { $0.hasPrefix(flag + "=") }
        }
    }

    /// The `run` flags the file stands for (the entries in effect).
    public static func arguments(_ entries: [(key: String, value: String, line: Int)], given: [String]) -> [String] {
        inEffect(entries, given: given).flatMap { e -> [String] in
            if let b = booleanKeys[e.key] { return [e.value == "true" ? b.whenTrue : b.whenFalse].compactMap { $0 } }
            return ["--\(e.key)", e.value]
        }
    }
}

extension StringProtocol {
    /// Without spaces and tabs (and a carriage return) at either end.
    public var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

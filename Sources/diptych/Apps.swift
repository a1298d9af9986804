// SPDX-License-Identifier: MIT
// Turning APP and CMD arguments into client command lines.

import DiptychCore
import DiptychLinux
import Glibc

enum Apps {
    /// The demo client binary: beside this executable if it is there, else on PATH.
    static var demoBinary: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = path.lastIndex(of: "/") {
                let candidate = String(path[..<slash]) + "/diptych-demo"
                if Files.exists(candidate) { return candidate }
            }
        }
        return "diptych-demo"
    }

    /// The command line of a built-in demo app, logging its events to `eventLog`.
    static func demoCommand(_ app: DemoApp, eventLog: String?) -> [String] {
        var args = [demoBinary, app.description]
        if let eventLog { args += ["--event-log", eventLog] }
        return args
    }

    /// A CMD: a built-in app name (optionally followed by demo flags, e.g.
    /// `pattern:#993366 --snapshot-delay-ms 200`), or any command line, split on spaces.
    static func command(_ text: String, eventLog: String?) throws -> (arguments: [String], label: String) {
        let words = text.split(separator: " ").map(String.init)
        guard let first = words.first else { throw UsageError("empty client command") }
        if let app = try? DemoApp.named(first) {
            return (demoCommand(app, eventLog: eventLog) + words.dropFirst(), text)
        }
        return (words, text)
    }
}

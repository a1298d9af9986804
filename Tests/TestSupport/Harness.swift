// SPDX-License-Identifier: MIT
// Helpers for tests that run the real binaries: where they are, temporary folders, and
// running a command to completion with its output captured.

import DiptychCore
import DiptychLinux
import Glibc

public enum Harness {
    /// The folder holding the built `diptych` and `diptych-demo` (the test bundle's folder).
    public static var binDirectory: String {
        if let dir = Files.environment("DIPTYCH_BIN_DIR") { return dir }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = String(decoding: buffer[..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    public static var diptych: String { binDirectory + "/diptych" }
    public static var demo: String { binDirectory + "/diptych-demo" }

    /// A new empty folder under /tmp, unique to this call.
    public static func temporaryDirectory(_ tag: String) -> String {
        let dir = "/tmp/diptych-\(tag)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try? Files.makeDirectories(dir)
        return dir
    }

    /// What a finished command printed and returned.
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `arguments` to completion (at most `timeoutMilliseconds`), capturing its output.
    public static func run(_ arguments: [String], environment: [String: String] = [:], timeoutMilliseconds: Int = 60_000) throws -> Result {
        let dir = temporaryDirectory("run")
        let quoted = arguments.map { "'" + $0.replacingQuotes + "'" }.joined(separator: " ")
        let child = try ChildProcess(arguments: ["sh", "-c", "exec \(quoted) >\(dir)/out 2>\(dir)/err"], environment: environment)
        let status = child.wait(milliseconds: timeoutMilliseconds) ?? child.terminate()
        let out = String(decoding: (try? Files.read("\(dir)/out")) ?? [], as: UTF8.self)
        let err = String(decoding: (try? Files.read("\(dir)/err")) ?? [], as: UTF8.self)
        return Result(status: status, stdout: out, stderr: err)
    }

    /// The JSON lines of an event log.
    public static func events(_ path: String) -> [JSONValue] {
        guard let bytes = try? Files.read(path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }
}

extension String {
    var replacingQuotes: String {
        var out = ""
        for c in self { out += c == "'" ? "'\\''" : String(c) }
        return out
    }
}

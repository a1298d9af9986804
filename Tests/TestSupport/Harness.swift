// SPDX-License-Identifier: MIT
// Helpers for tests that run the real binaries: where they are, temporary folders (removed when
// the test process exits), running a command to completion with its output captured, and
// reading the apps' event logs strictly.

import DiptychCore
import DiptychLinux
import Glibc
import Synchronization

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
    /// The test-only client that breaks the protocol on purpose (`Tests/Misbehave`).
    public static var misbehave: String { binDirectory + "/diptych-misbehave" }
    /// KMS state, image comparison, a uinput touchscreen, the soak run (`Tests/TestTools`).
    public static var testTools: String { binDirectory + "/diptych-test-tools" }

    private static let created = Mutex<[String]>([])

    /// A new empty folder of its own (in `$TMPDIR`, else /tmp), removed with all it holds
    /// when the test process exits (kept when `DIPTYCH_KEEP_TMP=1`, to look at).
    public static func temporaryDirectory(_ tag: String) -> String {
        let dir: String
        do { dir = try Files.makeTemporaryDirectory("diptych-\(tag)") } catch { preconditionFailure("\(error)") }
        let first = created.withLock { list in
            list.append(dir)
            return list.count == 1
        }
        if first { atexit { Harness.removeTemporaryDirectories() } }
        return dir
    }

    /// Removes every folder `temporaryDirectory` made.
    public static func removeTemporaryDirectories() {
        guard Files.environment("DIPTYCH_KEEP_TMP") != "1" else { return }
        for dir in created.withLock({ list in defer { list.removeAll() }; return list }) { Files.removeTree(dir) }
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
        defer { Files.removeTree(dir) }
        let quoted = arguments.map { "'" + $0.replacingQuotes + "'" }.joined(separator: " ")
        let child = try ChildProcess(arguments: ["sh", "-c", "exec \(quoted) >\(dir)/out 2>\(dir)/err"], environment: environment)
        let status = child.wait(milliseconds: timeoutMilliseconds) ?? child.terminate()
        let out = String(decoding: (try? Files.read("\(dir)/out")) ?? [], as: UTF8.self)
        let err = String(decoding: (try? Files.read("\(dir)/err")) ?? [], as: UTF8.self)
        return Result(status: status, stdout: out, stderr: err)
    }

    /// An event-log line that is not JSON.
    public struct BadEventLog: Error, CustomStringConvertible {
        public var description: String
    }

    /// The JSON lines of an event log (none when it does not exist yet). A complete line that
    /// does not parse is an error naming the file and line; a last line still being written
    /// (no newline yet) is left for the next read.
    public static func events(_ path: String) throws -> [JSONValue] {
        guard let bytes = try? Files.read(path) else { return [] }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()  // after the last newline: empty, or a line not yet finished
        return try lines.enumerated().map { i, line in
            do { return try JSONValue.parse(String(line)) } catch {
                throw BadEventLog(description: "\(path):\(i + 1): not JSON (\(error)): \(line.prefix(200))")
            }
        }
    }
}

extension String {
    var replacingQuotes: String {
        var out = ""
        for c in self { out += c == "'" ? "'\\''" : String(c) }
        return out
    }
}

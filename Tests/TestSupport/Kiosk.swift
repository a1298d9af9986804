// SPDX-License-Identifier: MIT
// A kiosk for the tests: `diptych run` on the headless backend with real app processes, ready
// when it says READY=1 on a notification socket of its own (as systemd's Type=notify would
// hear it), spoken to over its control socket in-process (the line protocol `diptych ctl`
// speaks) or through `diptych ctl` itself where the command line is what is tested.

import DiptychCore
import DiptychLinux
import Glibc

/// A kiosk on the headless backend: a pattern as the primary and notes as the secondary, the
/// status bar off (a screenshot is then the same whatever the time).
public final class Kiosk {
    public let dir: String
    public let process: ChildProcess
    /// Whether it said READY=1 (false: it exited first, or took longer than 30 s).
    public let ready: Bool
    public var control: String { "\(dir)/sock.ctl" }

    /// `apps` false: none given as flags (a configuration file names them).
    public init(primary: String = "pattern:#123456", apps: Bool = true, flags: [String] = [], directory: String? = nil, environment: [String: String] = [:]) throws {
        dir = directory ?? Harness.temporaryDirectory("ctl")
        let notify = try NotifySocket(path: "\(dir)/notify")
        let process = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--status-bar", "off", "--out", dir]
                + (apps ? ["--primary", primary, "--secondary", "notes"] : []) + flags,
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "NOTIFY_SOCKET": notify.path].merging(environment) { $1 })
        self.process = process
        ready = notify.wait(for: "READY=1", milliseconds: 30_000) { process.poll() == nil }
        // One that exited is the test's to look at (its status, its stderr); one still running
        // and not ready is a failure here, named.
        if !ready && process.poll() == nil {
            process.terminate(graceMilliseconds: 2000)
            throw KioskError("the kiosk in \(dir) did not say READY=1 within 30 s")
        }
    }

    /// `diptych ctl` run with `words` (the command line under test).
    public func ctl(_ words: [String]) throws -> Harness.Result {
        try Harness.run([Harness.diptych, "ctl", "--socket", control] + words, timeoutMilliseconds: 20_000)
    }

    /// The compositor's answer to `words`, asked in-process: one JSON array line out, one JSON
    /// object line back (`ok`, and `output` or `error`).
    public func ask(_ words: [String]) throws -> JSONValue {
        let fd = try UnixSocket.connect(path: control)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try UnixSocket.sendAll(fd.rawValue, Array((JSONValue.array(words.map { .string($0) }).serialized + "\n").utf8))
        var bytes: [UInt8] = []
        while !bytes.contains(10), let r = try UnixSocket.receive(fd.rawValue), !r.endOfStream {
            bytes += r.bytes
            for d in r.descriptors { close(d) }
        }
        return try JSONValue.parse(String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self))
    }

    /// `ctl status --json`, asked in-process.
    public func status() throws -> JSONValue {
        let reply = try ask(["status", "--json"])
        return try JSONValue.parse(reply["output"]?.stringValue ?? "{}")
    }

    /// Whether `done` holds within 20 s.
    public func waitUntil(_ done: () throws -> Bool) rethrows -> Bool { try eventually(seconds: 20, done) }

    /// (Time to end its apps and what they left behind: nothing outlives the test.)
    deinit { process.terminate(graceMilliseconds: 5000) }
}

/// A kiosk that did not start.
public struct KioskError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

// SPDX-License-Identifier: MIT
// Hardening, round two: one local app must never take the screen or the loop away from the
// other. Each attack runs next to a well-behaved app that must keep its frames.

import DiptychClient
import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

/// A compositor in its own process (`diptych run`, headless, listening on a socket of its
/// own), with a well-behaved launched app drawing a new frame after every frameDone: the
/// victim whose frames, and the compositor's descriptors, memory and CPU, an attack is judged by.
final class Victim {
    let dir: String
    let socket: String
    let process: ChildProcess

    init(arguments: [String] = [], descriptorLimit: Int? = nil, environment: [String: String] = [:]) throws {
        dir = Harness.temporaryDirectory("victim")
        socket = "\(dir)/sock"
        func q(_ s: String) -> String { "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'" }
        var command = ([Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", "pattern:#00AA00 --animate", "--out", dir] + arguments)
            .map(q).joined(separator: " ")
        command = "exec \(command) 2> \(q(dir + "/stderr"))"
        if let n = descriptorLimit { command = "ulimit -n \(n) && " + command }
        var env = ["DIPTYCH_SOCKET": socket, "DIPTYCH_SOCKET_FD": ""]
        env.merge(environment) { $1 }
        process = try ChildProcess(arguments: ["/bin/sh", "-c", command], environment: env)
    }

    deinit { _ = process.terminate(graceMilliseconds: 2000) }

    /// Frames the victim app was told reached the screen.
    var frameDones: Int {
        let text = (try? Files.read("\(dir)/events-primary.jsonl")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return text.split(separator: "\n").filter { $0.contains("\"frameDone\"") }.count
    }

    /// Waits up to `seconds` for `n` more frames than `from`.
    func framesGo(on n: Int, from: Int? = nil, seconds: Double = 10) -> Bool {
        let start = from ?? frameDones
        let deadline = MonotonicClock.milliseconds + UInt64(seconds * 1000)
        while MonotonicClock.milliseconds < deadline {
            if frameDones >= start + n { return true }
            usleep(20_000)
        }
        return false
    }

    /// The compositor's open descriptors.
    var descriptors: Int {
        let r = try? Harness.run(["/bin/sh", "-c", "ls /proc/\(process.pid)/fd | wc -l"])
        return Int((r?.stdout ?? "").trimmingNewline) ?? -1
    }

    /// CPU time used so far, in clock ticks (utime + stime).
    var cpuTicks: Int {
        let stat = (try? Files.read("/proc/\(process.pid)/stat")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        // After the command name: state is field 3, utime 14 and stime 15 (1-based overall).
        guard fields.count > 13 else { return -1 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// Ticks used while the app gets `frames` more frames (a compositor that spins uses a core
    /// whatever the frames: 100 ticks a second; one that waits, a few a second).
    func cpuTicks(over frames: Int) -> Int {
        let t0 = cpuTicks
        _ = framesGo(on: frames)
        return cpuTicks - t0
    }

    /// Resident memory in KiB.
    var residentKiB: Int {
        let status = (try? Files.read("/proc/\(process.pid)/status")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    var stderr: String { (try? Files.read("\(dir)/stderr")).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// Connects to the compositor's socket (blocking until it is there).
    func connect() throws -> SharedDescriptor {
        let deadline = MonotonicClock.milliseconds + 20_000
        while true {
            do { return SharedDescriptor(try UnixSocket.connect(path: socket)) } catch {
                if MonotonicClock.milliseconds > deadline { throw error }
                usleep(10_000)
            }
        }
    }

    /// Asks the compositor to stop; its exit status, if it exits within `milliseconds`.
    func stop(milliseconds: Int = 5000) -> Int32? {
        Glibc.kill(process.pid, SIGTERM)
        return process.wait(milliseconds: milliseconds)
    }
}

struct HardeningTests {
    @Test func connectionsThatNeverSayHelloAreBoundedAndClosed() throws {
        let v = try Victim()
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        let base = v.descriptors, memory = v.residentKiB
        // 300 connections that never say hello: some send half a message, some a descriptor.
        var held: [SharedDescriptor] = []
        let spare = try FileDescriptor.memfd(name: "spare", size: 4096)
        for i in 0..<300 {
            let c = try v.connect()
            // Half of a 60 KiB message: what a connection may hold before hello is bounded.
            if i % 3 == 1 { _ = try? UnixSocket.send(c.rawValue, ArraySlice([0x60, 0xEA, 0, 0, UInt8(Wire.version), 0, 1, 0] + [UInt8](repeating: 9, count: 15_000)), nonBlocking: true) }
            if i % 3 == 2 { _ = try? UnixSocket.send(c.rawValue, ArraySlice([0]), descriptors: [spare.rawValue], nonBlocking: true) }
            held.append(c)
        }
        // The other app keeps its frames; the compositor holds at most the connections it
        // allows (and its descriptors stay near where they were).
        #expect(v.framesGo(on: 10))
        // (each may hold its socket and one descriptor sent with its hello)
        #expect(v.descriptors <= base + 2 * Compositor.helloWaitLimit + 4, "\(v.descriptors) descriptors, \(base) before")
        // Past the hello deadline they all go, though still open on our side.
        #expect(eventually { v.descriptors <= base + 1 }, "\(v.descriptors) descriptors, \(base) before")
        held.removeAll()
        #expect(v.framesGo(on: 10))
        #expect(v.residentKiB < memory + 32 * 1024, "resident \(v.residentKiB) KiB, \(memory) before")
        #expect(v.stop() == 0)
        // What was logged stays short: no line per connection.
        #expect(v.stderr.split(separator: "\n").count < 40, "\(v.stderr.prefix(2000))")
    }

    @Test func aFullDescriptorTableDoesNotSpinTheLoop() throws {
        // The compositor's own descriptors (with its two timers: the repaint deadline and the
        // headless vblank; and the control socket with its timer) and what the test runner
        // leaves open, then a few to spare.
        let v = try Victim(descriptorLimit: 28)
        #expect(v.framesGo(on: 20, from: 0, seconds: 30), "\(v.stderr)")
        let base = v.descriptors
        var held: [SharedDescriptor] = []
        for _ in 0..<60 { held.append(try v.connect()) }
        // Out of descriptors, the compositor neither spins nor stops drawing the other app.
        #expect(v.framesGo(on: 10))
        // 60 frames at 60 Hz: a second of frames, whatever the machine's speed.
        let busy = v.cpuTicks(over: 60)
        #expect(busy < 60, "\(busy) ticks over 60 frames while out of descriptors")
        held.removeAll()
        #expect(v.framesGo(on: 10))
        #expect(eventually { v.descriptors <= base + 1 })
        #expect(v.stop() == 0)
        let refusals = v.stderr.split(separator: "\n").filter { $0.contains("out of file descriptors") }.count
        #expect(refusals >= 1 && refusals <= LogLimiterBound.perWindow * 2, "\(refusals) lines about it")
    }

    @Test func aFloodOfValidMessagesStarvesNeitherTheOtherAppNorSignals() throws {
        let v = try Victim()
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        let flood = try ChildProcess(
            arguments: [Harness.misbehave, "sync-flood", "pattern:#AA0000", "--event-log", "\(v.dir)/flood.jsonl"],
            environment: ["DIPTYCH_SOCKET": v.socket, "DIPTYCH_SOCKET_FD": ""])
        defer { _ = flood.kill() }
        let deadline = MonotonicClock.milliseconds + 20_000
        while !Files.exists("\(v.dir)/flood.jsonl.flooding") {
            #expect(MonotonicClock.milliseconds < deadline)
            if MonotonicClock.milliseconds >= deadline { break }
            usleep(20_000)
        }
        // Flooded, the compositor still paces the other app and acts on SIGTERM (it exits by
        // itself, cleanly, rather than being killed after the wait).
        #expect(v.framesGo(on: 20))
        #expect(v.stop(milliseconds: 5000) == 0)
    }

    @Test func launchedAppsKeepTheirRolesWhoeverConnectsFirst() throws {
        let f = try Fixture()
        // An app connects and says hello before the launched ones have started.
        let early = SharedDescriptor(try UnixSocket.connect(path: f.compositor.socketPath!))
        try UnixSocket.sendAll(early.rawValue, ClientMessage.hello(name: "early", requiresFullScreen: false).encoded())
        try f.compositor.launch([Harness.demo, "pattern:#00AA00", "--event-log", "\(f.dir)/p.jsonl"], role: .primary, label: "launched-primary")
        try f.compositor.launch([Harness.demo, "pattern:#0000AA", "--event-log", "\(f.dir)/s.jsonl"], role: .secondary, label: "launched-secondary")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.hasCommittedForConfigure(.primary) && f.compositor.hasCommittedForConfigure(.secondary)
        })
        #expect(f.compositor.label(.primary) == "launched-primary" && f.compositor.label(.secondary) == "launched-secondary")
        // The early app was refused, naming the reason.
        #expect(f.compositor.protocolErrors.contains { $0.client == "early" && $0.error.message.contains("launched") })
        #expect(try f.events("p.jsonl").first { $0["event"]?.stringValue == "configure" }?["role"]?.stringValue == "primary")
        #expect(try f.events("s.jsonl").first { $0["event"]?.stringValue == "configure" }?["role"]?.stringValue == "secondary")
    }

    @Test func whatAppsSayIsEscapedInTheLog() throws {
        let v = try Victim(environment: ["DIPTYCH_LOG_LEVEL": "debug"])
        #expect(v.framesGo(on: 5, from: 0, seconds: 30))
        let c = try v.connect()
        try UnixSocket.sendAll(c.rawValue, ClientMessage.hello(name: "evil\ncritical : forged line\u{1B}[2J\u{0}", requiresFullScreen: false).encoded())
        #expect(v.framesGo(on: 10))
        #expect(v.stop() == 0)
        let lines = v.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("critical : forged") }, "\(v.stderr.prefix(3000))")
        #expect(!v.stderr.contains("\u{1B}") && v.stderr.contains("evil\\u{A}critical : forged line\\u{1B}[2J\\u{0}"), "\(v.stderr.prefix(3000))")
        _ = c
    }

    @Test func exitedAppsAreReaped() throws {
        let v = try Victim(arguments: ["--secondary", "/bin/sh -c exit"], environment: ["DIPTYCH_LOG_LEVEL": "info"])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        // It exits at once; the compositor sees it end, and reaps it (a zombie lasts only until
        // the compositor's next turn).
        #expect(eventually { v.stderr.contains("launched app ended") }, "\(v.stderr.suffix(2000))")
        #expect(eventually { zombies(of: v.process.pid) == 0 })
        #expect(v.stop() == 0)
    }
}

/// The log limiter's bound, for the tests.
enum LogLimiterBound {
    static let perWindow = 5
}

struct SocketPathTests {
    @Test func aRuntimeDirectoryOthersMayWriteIsRefused() throws {
        let dir = Harness.temporaryDirectory("open-runtime")
        chmod(dir, 0o777)
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless"], environment: ["XDG_RUNTIME_DIR": dir, "DIPTYCH_SOCKET": ""], timeoutMilliseconds: 10_000)
        #expect(r.status != 0 && r.stderr.contains("writable by other users"), "\(r.stderr)")
    }

    @Test func aPlantedSymlinkIsNeitherFollowedNorFatal() throws {
        let dir = Harness.temporaryDirectory("planted")
        chmod(dir, 0o700)
        symlink("\(dir)/target", "\(dir)/diptych-0.lock")
        let log = "\(dir)/stderr"
        let p = try ChildProcess(
            arguments: ["/bin/sh", "-c", "exec '\(Harness.diptych)' run --backend headless 2> '\(log)'"],
            environment: ["XDG_RUNTIME_DIR": dir, "DIPTYCH_SOCKET": "", "DIPTYCH_SOCKET_FD": ""])
        let deadline = MonotonicClock.milliseconds + 20_000
        while MonotonicClock.milliseconds < deadline && !Files.exists("\(dir)/diptych-1") { usleep(20_000) }
        #expect(Files.exists("\(dir)/diptych-1"), "\((try? Files.read(log)).map { String(decoding: $0, as: UTF8.self) } ?? "")")
        #expect(!Files.exists("\(dir)/target"))
        Glibc.kill(p.pid, SIGTERM)
        #expect(p.wait(milliseconds: 5000) == 0)
    }

    @Test func clientsTrustOnlyTheirOwnUser() {
        #expect(Connection.trusts(peerUID: getuid()))
        #expect(!Connection.trusts(peerUID: getuid() &+ 1))
    }
}

struct ReplacementAppTests {
    /// After the secondary leaves, the next app that connects takes its place on screen.
    @Test func theNextAppAfterTheSecondaryLeftIsShown() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "first.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let second = try f.connect(["pattern:#0000AA"], log: "second.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        second.kill()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isConnected(.secondary) })
        try f.connect(["pattern:#AA0000"], log: "third.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.isConnected(.secondary) })
        // It is configured into the place the old one had (split-2/3) and activated.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        #expect(f.compositor.layout.arrangement == .split23)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("third.jsonl").compactMap { $0["event"]?.stringValue }.contains("didBecomeActive")
        })
        #expect(try f.events("third.jsonl").allSatisfy { $0["event"]?.stringValue != "didEnterBackground" })
    }
}

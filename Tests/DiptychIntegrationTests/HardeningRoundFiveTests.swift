// SPDX-License-Identifier: MIT
// Hardening, round five: an alert never takes the other app's typing, what one app makes the
// compositor tell another is bounded, an app's text is laid out once, and the control socket
// and the loop hold against what an app or a file controls. Each next to a good app that keeps
// its frames; the bounds are asserted, never the time.

import CLinuxShims
import DiptychCore
import DiptychLinux
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

struct HardeningRoundFiveTests {
    func tap(_ f: Fixture, _ x: Double, _ y: Double, id: Int32 = 3) {
        f.compositor.touch(id: id, phase: .down, x: x, y: y)
        f.compositor.touch(id: id, phase: .up, x: x, y: y)
    }

    /// The primary with an email field, tapped: its keyboard up. The secondary (split 2/3,
    /// from x 683 pt) is the misbehaving client in `mode`, drawn.
    func typingBeside(_ mode: String) throws -> Fixture {
        let f = try Fixture(arrangement: .split23)
        try f.misbehave("text-input", app: "pattern:#00AA00", log: "typing.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave(mode, app: "pattern:#2040A0", log: "other.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        tap(f, 300, 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.keyboardShown != nil && !f.compositor.keyboardMoving })
        return f
    }

    /// The attack: the other app answers each keyboard move with a system-looking "Sign In"
    /// alert and its dismissal in one write. The focus never moves, no alert takes a key, and
    /// what the user types on the keyboard and on a hardware keyboard reaches the app they
    /// tapped.
    @Test func anAlertFromTheOtherAppNeverTakesTheTyping() throws {
        let f = try typingBeside("alert-flash")
        let typing = try #require(f.compositor.session(.primary)?.app)
        // The flasher heard the keyboard rise and flashed again.
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.count("keyboardFrame", in: "other.jsonl") >= 1 })
        _ = try f.compositor.roundTrip()
        #expect(f.compositor.keyboardFocus == typing)
        for c in "pw" {
            while let next = f.compositor.keyboardNextTap(for: c) {
                tap(f, next.x, next.y, id: 7)
                _ = try f.compositor.roundTrip()
                if next.types { break }
            }
        }
        // A hardware key too.
        let code = try #require(f.compositor.keycode(typing: "x"))
        f.compositor.key(code.code, pressed: true)
        f.compositor.key(code.code, pressed: false)
        _ = try f.compositor.roundTrip()
        #expect(f.compositor.keyboardFocus == typing)
        let typed = try f.events("typing.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }
        #expect(typed == ["p", "w"], "\(typed)")
        #expect(try f.events("typing.jsonl").contains { $0["event"]?.stringValue == "key" && $0["text"]?.stringValue == "x" })
        let other = try f.events("other.jsonl")
        #expect(!other.contains { $0["event"]?.stringValue == "keyboardFocus" && $0["focused"]?.boolValue == true })
        #expect(!other.contains { ["key", "textCommit"].contains($0["event"]?.stringValue) })
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// An alert of the app without the focus shows in its pane without keys; the user's touch
    /// on it gives its app the keyboard, and its field the typing.
    @Test func anAlertOfTheUnfocusedAppGetsKeysOnlyWhenTouched() throws {
        let f = try typingBeside("alert")
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.presented(.secondary) != nil })
        let typing = try #require(f.compositor.session(.primary)?.app)
        #expect(f.compositor.keyboardFocus == typing)
        #expect(f.compositor.keyboardShown?.owner == f.compositor.session(.primary)?.label)
        // Return goes to the typing app, not to the alert.
        let enter = try #require(f.compositor.keycode(forKeysymNamed: "Return"))
        f.compositor.key(enter, pressed: true)
        f.compositor.key(enter, pressed: false)
        #expect(f.compositor.presented(.secondary) != nil)
        let alert = try #require(f.compositor.presented(.secondary))
        tap(f, alert.frame.x + alert.frame.width / 2, alert.frame.y + 12)
        let other = try #require(f.compositor.session(.secondary)?.app)
        #expect(f.compositor.keyboardFocus == other)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.keyboardShown?.owner == f.compositor.session(.secondary)?.label })
        let a = try #require(f.compositor.keycode(typing: "a"))
        f.compositor.key(a.code, pressed: true)
        f.compositor.key(a.code, pressed: false)
        #expect(f.compositor.presented(.secondary)?.text == "a")
    }

    /// The primary's alert under a Slide Over takes none of the Slide Over's touches (nor the
    /// focus with them): a tap on the floating window reaches its app.
    @Test func anAlertUnderASlideOverTakesNoneOfItsTouches() throws {
        let f = try Fixture(arrangement: .slideOver)
        try f.misbehave("alert", app: "pattern:#2040A0", log: "alert.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.presented(.primary) != nil })
        try f.connect(["pattern:#00AA00"], log: "over.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        let over = try #require(f.compositor.layout.panes.first { $0.role == .secondary }).frame
        tap(f, Double(over.x + over.width / 2), Double(over.y + over.height / 2))
        #expect(f.compositor.keyboardFocus == f.compositor.session(.secondary)?.app)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            try f.events("over.jsonl").contains { $0["event"]?.stringValue == "touch" && $0["phase"]?.stringValue == "up" }
        })
        #expect(f.compositor.presented(.primary) != nil)
    }

    /// The focused app presents and dismisses an alert with a field 4,000 times in a burst:
    /// past its budget each is refused (`rate`), and the good app beside it hears a handful of
    /// keyboard moves, is never disconnected, and keeps its frames.
    @Test func aPresentationFloodIsRefusedAndTheOtherAppHearsAHandful() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        try f.misbehave("presentation-flood", app: "pattern:#2040A0", log: "flood.jsonl", environment: ["DIPTYCH_FLOOD_COUNT": "2000"])
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        tap(f, 900, 300)
        let before = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 60_000) {
            f.compositor.repaint()
            return f.count("refused", in: "flood.jsonl") >= 1950
        }, "\(f.count("refused", in: "flood.jsonl")) refused, \(f.count("keyboardFocus", in: "flood.jsonl")) focus events")
        let refused = try f.events("flood.jsonl").filter { $0["event"]?.stringValue == "refused" }
        #expect(refused.allSatisfy { $0["reason"]?.stringValue == "rate" })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= before + 20
        })
        let heard = f.count("keyboardFrame", in: "good.jsonl")
        #expect(heard <= 2 * (PresentationRequests.burst + 60 * PresentationRequests.perSecond), "\(heard) keyboard frames")
        #expect(f.compositor.isConnected(.primary) && f.compositor.isConnected(.secondary))
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// A 4,096-character message with no space is wrapped once, not every frame.
    @Test func aLongAlertIsLaidOutOnce() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        try f.misbehave("long-alert", app: "pattern:#2040A0", log: "long.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.presented(.secondary) != nil })
        let laidOut = f.compositor.presentationRequests.layoutsMade
        let before = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= before + 30
        })
        #expect(f.compositor.presentationRequests.layoutsMade - laidOut <= 1)
        let shown = try #require(f.compositor.presented(.secondary))
        #expect(shown.frame.height < 400)
    }
}

struct PresentationWrapTests {
    /// A word of 4,096 characters costs the lines shown, not the text.
    @Test func aLongWordIsMeasuredForTheLinesShownOnly() {
        var measured = 0
        let lines = Presentation.wrap(String(repeating: "W", count: 4096), width: 238, size: 13) { text, size in
            measured += 1
            return Double(text.count) * size * 0.9
        }
        #expect(lines.count == PresentationMetrics.messageLines + 1)
        #expect(measured < 400, "\(measured) measurements")
        #expect(lines[0].count == 20)
    }

    @Test func wordsWrapAsBefore() {
        let lines = Presentation.wrap("one two three four five six", width: 50, size: 10) { text, _ in Double(text.count) * 5 }
        #expect(lines == ["one two", "three four", "five six"])
    }
}

/// The control socket as an attacker meets it, against a live `diptych run`.
struct ControlSocketHardeningTests {
    /// Sends `bytes` (and `descriptors`) on a new connection to `k`'s control socket and reads
    /// the answer line; nil when none came.
    func ask(_ k: Kiosk, _ bytes: [UInt8], descriptors: [Int32] = []) throws -> (line: String, descriptors: [Int32])? {
        let connected = try UnixSocket.connect(path: k.control)
        let fd = fcntl(connected.rawValue, F_DUPFD_CLOEXEC, 0)
        connected.close()
        defer { close(fd) }
        try UnixSocket.sendAll(fd, bytes, descriptors: descriptors)
        var got: [UInt8] = [], fds: [Int32] = []
        while !got.contains(10), let r = try UnixSocket.receive(fd), !r.endOfStream {
            got += r.bytes
            fds += r.descriptors
        }
        return got.isEmpty ? nil : (String(decoding: got.prefix { $0 != 10 }, as: UTF8.self), fds)
    }

    func request(_ words: [String]) -> [UInt8] { Array((JSONValue.array(words.map { .string($0) }).serialized + "\n").utf8) }

    /// A request over 4 KiB is refused however it arrives; one with a descriptor is refused
    /// and the descriptor closed (off the loop).
    @Test func anOversizedRequestAndADescriptorAreRefused() throws {
        let k = try Kiosk()
        #expect(k.waitUntil { (try? k.ctl(["status"]).status) == 0 })
        // 5 KiB: a JSON array whose one string pads it.
        let big = request(["status", String(repeating: "x", count: 5000)])
        let answer = try #require(try ask(k, big))
        #expect(answer.line.contains("at most 4096 bytes"), "\(answer.line)")
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let withFD = try #require(try ask(k, request(["status"]), descriptors: [ends[0]]))
        #expect(withFD.line.contains("carries no descriptors"), "\(withFD.line)")
        #expect(try k.ctl(["status"]).status == 0)
    }

    /// Screenshots not read are bounded: past 64 MiB unread another is refused until they are
    /// read; back-to-back ones are held to the rate.
    @Test func unreadScreenshotsAreBoundedAndTheRateHolds() throws {
        let k = try Kiosk()
        #expect(k.waitUntil { (try? k.ctl(["status"]).status) == 0 })
        // Held open, never read: each answer (2048 × 1536 × 4 = 12 MiB) stays with the compositor.
        var held: [Int32] = []
        for _ in 0..<7 {
            let fd = try UnixSocket.connect(path: k.control)
            try UnixSocket.sendAll(fd.rawValue, request(["screenshot", "1"]))
            held.append(fcntl(fd.rawValue, F_DUPFD_CLOEXEC, 0))
            fd.close()
            usleep(700_000)
        }
        let refused = try #require(try ask(k, request(["screenshot", "1"])))
        #expect(refused.line.contains("not read yet"), "\(refused.line)")
        for fd in held { close(fd) }
        usleep(700_000)
        let taken = try #require(try ask(k, request(["screenshot", "1"])))
        #expect(taken.line.contains("\"ok\":true"), "\(taken.line)")
        for d in taken.descriptors { close(d) }
        // Back to back: after the burst, refused for the rate.
        var lines: [String] = []
        for _ in 0..<6 {
            if let a = try ask(k, request(["screenshot", "1"])) {
                lines.append(a.line)
                for d in a.descriptors { close(d) }
            }
        }
        #expect(lines.contains { $0.contains("screenshots a second") }, "\(lines)")
    }

    /// An app that connects and closes as fast as it can is held to the apps' budget: the
    /// operator's ctl is answered throughout.
    @Test func anAppsConnectFloodNeverStarvesTheOperator() throws {
        let dir = Harness.temporaryDirectory("ctl-flood")
        try Files.writeAtomically("\(dir)/flood.py", bytes: Array("""
            import os, socket, time
            end = time.monotonic() + 15
            while time.monotonic() < end:
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(os.environ["DIPTYCH_SOCKET"] + ".ctl")
                except OSError:
                    pass
                s.close()
            """.utf8))
        let k = try Kiosk(primary: "python3 \(dir)/flood.py", directory: dir)
        usleep(500_000)
        for _ in 0..<10 {
            let r = try k.ctl(["status"])
            #expect(r.status == 0, "\(r.stderr)")
            usleep(100_000)
        }
    }

    /// A launched app's double-forked grandchild (re-parented to the compositor, which adopts
    /// its apps' orphans) is still the app's: refused.
    @Test func aDoubleForkedGrandchildIsRefused() throws {
        let dir = Harness.temporaryDirectory("ctl-orphan")
        try Files.writeAtomically("\(dir)/app.sh", bytes: Array("""
            ( sh -c 'sleep 0.5; \(Harness.diptych) ctl --socket "$DIPTYCH_SOCKET.ctl" status > \(dir)/said 2>&1' & )
            exec sleep 30
            """.utf8))
        let k = try Kiosk(primary: "/bin/sh \(dir)/app.sh", directory: dir)
        #expect(k.waitUntil { ((try? Files.read("\(dir)/said")) ?? []).count > 0 })
        let said = String(decoding: (try? Files.read("\(dir)/said")) ?? [], as: UTF8.self)
        #expect(said.contains("may not control"), "\(said)")
    }

    /// A configuration swapped for a FIFO is refused at once (nothing waits on a writer); a
    /// flood of SIGUSR1 costs a reload a second and the kiosk answers throughout.
    @Test func aFIFOConfigurationAndASignalFloodDoNotStallTheLoop() throws {
        let dir = Harness.temporaryDirectory("ctl-fifo")
        let conf = "\(dir)/kiosk.conf"
        try Files.writeAtomically(conf, bytes: Array("[kiosk]\nprimary = pattern:#123456\nsecondary = notes\n".utf8))
        let k = try Kiosk(apps: false, flags: ["--config", conf], directory: dir)
        #expect(k.waitUntil { (try? k.ctl(["status"]).status) == 0 })
        for _ in 0..<500 { kill(k.process.pid, SIGUSR1) }
        #expect(try k.ctl(["status"]).status == 0)
        Files.remove(conf)
        #expect(mkfifo(conf, 0o600) == 0)
        let r = try k.ctl(["reload"])
        #expect(r.status == 1 && r.stderr.contains("not a regular file"), "\(r.stderr)")
        #expect(try k.ctl(["status"]).status == 0)
        #expect(k.process.poll() == nil)
        let start = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--config", conf], timeoutMilliseconds: 20_000)
        #expect(start.status == 2 && start.stderr.contains("not a regular file"), "\(start.stderr)")
    }
}

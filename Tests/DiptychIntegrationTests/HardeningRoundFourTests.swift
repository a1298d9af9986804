// SPDX-License-Identifier: MIT
// Hardening, round four: a legal Picture in Picture request, a descriptor whose close blocks, a
// connect flood, same-user processes reading the compositor, focus taken without the user, and
// the smaller holes of the round. Each next to a good app that keeps its frames; the bounds are
// asserted, never the time.

import CLinuxShims
import DiptychCore
import DiptychImage
import DiptychLinux
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

struct HardeningRoundFourTests {
    /// The attack that took the compositor down (SIGILL): a 2048×512 window growing out of a
    /// 1×1 source rectangle. Every frame of the growth is drawn; the app keeps its window.
    @Test func aWindowGrowingOutOfOnePixelIsDrawnAndTheCompositorLives() throws {
        let f = try Fixture(arrangement: .full)
        let app = try f.misbehave("pip-pinpoint", app: "pattern:#00AA00", log: "pip.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.compositor.session(.primary)?.pip.surface != nil
        })
        // Frames through the whole growth (a few hundred milliseconds).
        let end = MonotonicClock.milliseconds + 1500
        _ = try f.compositor.run(timeoutMilliseconds: 2000) {
            f.compositor.repaint()
            return MonotonicClock.milliseconds > end
        }
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(f.compositor.isConnected(.primary))
        #expect(app.poll() == nil)
    }

    /// A descriptor whose close blocks (a FUSE server that never answers FLUSH; here the closer's
    /// seam stalls it 4 s) is refused and closed off the loop: the good app keeps its frames
    /// while the close is still waiting.
    @Test func aDescriptorWhoseCloseBlocksDoesNotStopTheLoop() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        dp_close_later_stall_next_for_tests(4000)
        defer { dp_close_later_stall_next_for_tests(0) }
        let bad = try f.misbehave("proc-buffer", log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.protocolErrors.isEmpty && bad.poll() != nil })
        #expect(f.compositor.protocolErrors.map(\.error.code) == [.unsealedBuffer])
        #expect(f.compositor.protocolErrors.first?.error.message.contains("a file in /proc") == true)
        let before = f.count("frameDone", in: "good.jsonl")
        var stalledThroughout = true
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            stalledThroughout = stalledThroughout && FileDescriptor.foreignClosesPending > 0
            return f.count("frameDone", in: "good.jsonl") >= before + 10
        })
        #expect(stalledThroughout, "the stalled close ended before the good app drew ten frames")
    }

    /// 3000 connects and closes as fast as one process can: taken one a turn, at most a burst
    /// and then `connectsPerSecond` of them a second become sessions; the good app keeps its
    /// frames throughout.
    @Test func aConnectFloodIsTakenOneATurnWithinItsUsersBudget() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        let before = f.count("frameDone", in: "good.jsonl")
        let firstID = f.compositor.clients.nextClientID
        let start = MonotonicClock.milliseconds
        let flood = try f.misbehave("connect-flood", log: "flood.jsonl", environment: ["DIPTYCH_FLOOD_COUNT": "3000", "DIPTYCH_FLOOD_HELLO": "1"])
        var last = firstID, mostInOneTurn: UInt64 = 0
        #expect(try f.compositor.run(timeoutMilliseconds: 8_000) {
            let now = f.compositor.clients.nextClientID
            mostInOneTurn = max(mostInOneTurn, now - last)
            last = now
            f.compositor.repaint()
            return MonotonicClock.milliseconds > start + 4000
        })
        let seconds = Double(MonotonicClock.milliseconds - start) / 1000
        let sessions = Int(f.compositor.clients.nextClientID - firstID)
        #expect(mostInOneTurn <= UInt64(Compositor.acceptsPerTurn))
        #expect(sessions <= Compositor.connectBurst + Int(seconds.rounded(.up)) * Compositor.connectsPerSecond, "\(sessions) sessions in \(seconds) s")
        #expect(f.count("frameDone", in: "good.jsonl") >= before + 20)
        #expect(flood.poll() == nil, "the flood ended: it was not held back")
        flood.terminate()
        #expect(f.compositor.isConnected(.primary))
    }
}

extension HardeningRoundFourTests {
    /// An app that connects by itself into a Slide Over gets no keyboard (the user's primary
    /// keeps it) until the user taps it; drawn wholly transparent, it shows black, never the
    /// pane under it (panes are opaque).
    @Test func aSlideOverThatConnectsByItselfGetsNoFocusAndIsOpaque() throws {
        let f = try Fixture(arrangement: .slideOver)
        try f.goodPrimary()
        let primary = try #require(f.compositor.session(.primary)?.app)
        #expect(f.compositor.keyboardFocus == primary)
        _ = try f.misbehave("transparent", log: "overlay.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.compositor.hasCommittedForConfigure(.secondary)
        })
        let overlay = try #require(f.compositor.session(.secondary))
        #expect(f.compositor.keyboardFocus == primary, "the Slide Over took the keyboard without the user")
        #expect(f.count("keyboardFocus", in: "overlay.jsonl") == 0)
        // Its pane shows black, not the green primary under it.
        _ = try f.compositor.run(timeoutMilliseconds: 1500) {
            f.compositor.repaint()
            return false
        }
        let frame = f.compositor.desk.paneFrame(of: overlay.app)
        let pane = try #require(frame)
        let scale = f.compositor.layout.profile.scale
        let x = (pane.x + pane.width / 2) * scale, y = (pane.y + pane.height / 2) * scale
        let shown = f.compositor.output.pixel(x: x, y: y) & 0xFFFFFF
        #expect(shown == 0, "\(String(shown, radix: 16)) shows through the Slide Over")
        // A tap on it gives it the keyboard.
        f.compositor.touch(id: 1, phase: .down, x: Double(pane.x + pane.width / 2), y: Double(pane.y + pane.height / 2))
        f.compositor.touch(id: 1, phase: .up, x: Double(pane.x + pane.width / 2), y: Double(pane.y + pane.height / 2))
        #expect(f.compositor.keyboardFocus == overlay.app)
    }
}

extension HardeningRoundFourTests {
    /// An app in the background that reopens its Picture in Picture each time the user closes
    /// it is refused (`closed`) until it is on screen again: the window the user closed stays
    /// closed.
    @Test func aWindowTheUserClosedStaysClosed() throws {
        let dir = Harness.temporaryDirectory("pip-closed")
        let app = "\(Harness.misbehave) pip-reopen pattern:#00AA00"
        let scenario = #"""
            {"device":"ipad","primary":"\#(app)","secondary":"notes","arrangement":"split-2/3","steps":[
             {"at":0,"touch":{"id":1,"phase":"down","x":1398,"y":700}},{"at":16,"touch":{"id":1,"phase":"motion","x":1178,"y":700}},
             {"at":32,"touch":{"id":1,"phase":"motion","x":959,"y":700}},{"at":48,"touch":{"id":1,"phase":"motion","x":739,"y":700}},
             {"at":64,"touch":{"id":1,"phase":"motion","x":520,"y":700}},{"at":80,"touch":{"id":1,"phase":"motion","x":300,"y":700}},
             {"at":96,"touch":{"id":1,"phase":"up","x":300,"y":700}},{"at":112,"wait":true},
             {"at":1000,"touch":{"id":2,"phase":"down","x":1700,"y":1440}},{"at":1080,"touch":{"id":2,"phase":"up","x":1700,"y":1440}},
             {"at":1200,"touch":{"id":3,"phase":"down","x":1552,"y":1268}},{"at":1280,"touch":{"id":3,"phase":"up","x":1552,"y":1268}},
             {"at":1300,"wait":true},{"at":2500,"capture":"after.png"}]}
            """#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let sent = try Harness.events("\(dir)/events-primary.jsonl")
        let names = sent.compactMap { $0["event"]?.stringValue }
        #expect(names.contains("pipAction"), "\(names)")
        let refusals = sent.filter { $0["event"]?.stringValue == "refused" }.compactMap { $0["reason"]?.stringValue }
        #expect(!refusals.isEmpty && refusals.allSatisfy { $0 == "closed" }, "\(refusals)")
        // No window in the last frames.
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        #expect(frames.last?["pip"]?.arrayValue?.isEmpty ?? true)
    }
}

extension HardeningRoundFourTests {
    /// Apps that connect, set a 1024² icon and leave, 40 times: a new session brings no fresh
    /// allowance, so at most 4 and then one a second are scaled; the good app keeps its frames.
    @Test func iconChurnIsBoundedAcrossSessions() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        let before = f.count("frameDone", in: "good.jsonl")
        let start = MonotonicClock.milliseconds
        let churn = try f.misbehave("icon-churn", log: "churn.jsonl", environment: ["DIPTYCH_CHURN_COUNT": "40"])
        #expect(try f.compositor.run(timeoutMilliseconds: 120_000) {
            f.compositor.repaint()
            return churn.poll() != nil
        })
        // Every message it sent before leaving is handled, then counted.
        _ = try f.compositor.run(timeoutMilliseconds: 500) {
            f.compositor.repaint()
            return false
        }
        let seconds = Int((MonotonicClock.milliseconds - start + 999) / 1000)
        #expect(f.compositor.iconsTaken >= 1 && f.compositor.iconsTaken <= 4 + seconds, "\(f.compositor.iconsTaken) icons in \(seconds) s")
        #expect(f.count("frameDone", in: "good.jsonl") > before)
    }
}

extension HardeningRoundFourTests {
    /// An app on screen closes its Picture in Picture: the window shrinks into it showing the
    /// buffer itself, held (nothing copied), and the app gets it back once the window is gone.
    @Test func aClosingWindowHoldsItsBufferInsteadOfCopyingIt() throws {
        let f = try Fixture(arrangement: .full)
        _ = try f.misbehave("pip-open-close", app: "pattern:#00AA00", log: "pip.jsonl")
        var departingID: UInt32 = 0, isTheAppsBuffer = false
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            guard let c = f.compositor.session(.primary), let d = c.pip.departing else { return false }
            departingID = d.image.buffer.id
            // The app's own mapped buffer, not a copy of its pixels.
            isTheAppsBuffer = (try? c.buffers.buffer(departingID, for: "test")) === d.image.buffer
            return true
        })
        #expect(isTheAppsBuffer, "the closing window shows a copy, not the app's buffer")
        func released() -> Bool { ((try? f.events("pip.jsonl")) ?? []).contains { $0["event"]?.stringValue == "release" && $0["buffer"]?.intValue == Int(departingID) } }
        #expect(!released(), "released while the closing window still shows it")
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) {
            f.compositor.repaint()
            return f.compositor.session(.primary)?.pip.departing == nil && released()
        })
    }
}

struct ConnectBudgetTests {
    @Test func aBurstThenTheRateThenFullAgain() {
        var b = ConnectBudget(burst: 4, perSecond: 2)
        func takes(_ uid: UInt32, at t: UInt64) -> Bool { b.take(uid, at: t) }
        for _ in 0..<4 { let ok = takes(1000, at: 0); #expect(ok) }
        let fifth = takes(1000, at: 0)
        // Another user has a budget of its own.
        let other = takes(1001, at: 0)
        #expect(!fifth && other)
        #expect(b.nextToken(1000, at: 0) == 500)
        let early = takes(1000, at: 499), due = takes(1000, at: 500), again = takes(1000, at: 500)
        #expect(!early && due && !again)
        // Idle long enough, the whole burst is back.
        for _ in 0..<4 { let ok = takes(1000, at: 10_000); #expect(ok) }
    }

    @Test func usersWithFullBucketsAreForgotten() {
        var b = ConnectBudget(burst: 2, perSecond: 1)
        for uid in UInt32(0)..<100 { _ = b.take(uid, at: 0) }
        _ = b.take(500, at: 60_000)
        #expect(b.tracked <= 9)
    }
}

/// Whether this test process may become another user (root, with setpriv): the same-user tests
/// need a user other than root, whom the kernel lets read any process.
private let canBecomeAnotherUser = getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

@Suite(.enabled(if: canBecomeAnotherUser, "needs root and setpriv to run the compositor as an ordinary user"))
struct SameUserIsolationTests {
    static let user = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Whether a process of uid 65534 can open `path` (the kernel decides at open).
    func opensAsUser(_ path: String) throws -> Bool {
        try Harness.run(Self.user + ["/bin/sh", "-c", "exec 3< \(path)"]).status == 0
    }

    /// The compositor (run as an ordinary user) and its app (the Swift client library) refuse
    /// /proc/PID/mem and /proc/PID/fd to another process of the same user; a process of that
    /// user that did not close itself (sleep) does not.
    @Test func sameUserProcessesCannotReadTheCompositorOrAnApp() throws {
        let dir = Harness.temporaryDirectory("same-user")
        chmod(dir, 0o777)
        let compositor = try ChildProcess(
            arguments: Self.user + [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", "pattern:#00AA00 --animate", "--out", dir],
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "DIPTYCH_SOCKET_FD": ""])
        defer { _ = compositor.terminate(graceMilliseconds: 2000) }
        let control = try ChildProcess(arguments: Self.user + ["/bin/sleep", "60"])
        defer { _ = control.terminate() }
        var app: Int32?
        for _ in 0..<1000 where app == nil {
            let children = (try? Harness.run(["/bin/sh", "-c", "cat /proc/\(compositor.pid)/task/*/children"]))?.stdout ?? ""
            app = children.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }.first { pid in
                ((try? Files.read("/proc/\(pid)/comm")).map { String(decoding: $0, as: UTF8.self) } ?? "").hasPrefix("diptych-demo")
            }
            if app == nil { usleep(20_000) }
        }
        let appPID = try #require(app)
        // Connected and drawing (the library closes itself when it connects).
        for _ in 0..<1000 {
            if ((try? Files.read("\(dir)/events-primary.jsonl")) ?? []).count > 0 { break }
            usleep(20_000)
        }
        #expect(try opensAsUser("/proc/\(control.pid)/mem"), "the control process's memory should open: the test cannot tell")
        for (what, pid) in [("compositor", compositor.pid), ("app", appPID)] {
            #expect(try !opensAsUser("/proc/\(pid)/mem"), "\(what)'s memory opened")
            #expect(try Harness.run(Self.user + ["/bin/ls", "/proc/\(pid)/fd"]).status != 0, "\(what)'s descriptors listed")
        }
    }
}

/// The round's file and path holes: no shared runtime folder, no file replaced by the socket,
/// no symlink followed by a write, no endless or day-long scenario.
struct RoundFourPathTests {
    /// Without XDG_RUNTIME_DIR the compositor makes a private folder (mode 0700, a name nobody
    /// can take first) instead of a predictable /tmp one, and removes it when it stops; a
    /// client without XDG_RUNTIME_DIR or DIPTYCH_SOCKET says what to set.
    @Test func withoutARuntimeDirectoryTheSocketIsInAPrivateFolder() throws {
        let tmp = Harness.temporaryDirectory("private-runtime")
        // What another user could have made first under the old fixed name.
        try Files.makeDirectories("\(tmp)/diptych-runtime-\(getuid())", mode: 0o777)
        let log = "\(tmp)/stderr"
        let p = try ChildProcess(
            arguments: ["/bin/sh", "-c", "exec '\(Harness.diptych)' run --backend headless 2> '\(log)'"],
            environment: ["XDG_RUNTIME_DIR": "", "DIPTYCH_SOCKET": "", "DIPTYCH_SOCKET_FD": "", "TMPDIR": tmp])
        var said = ""
        for _ in 0..<1000 {
            said = (try? Files.read(log)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if said.contains("listening on") { break }
            usleep(20_000)
        }
        let word = said.split(separator: " ").first { $0.hasPrefix(tmp) }.map { String($0.filter { $0 != ";" }) }
        let path = try #require(word, "\(said)")
        let folder = String(path[..<path.lastIndex(of: "/")!])
        #expect(folder.hasPrefix("\(tmp)/diptych-\(getuid())-") && path.hasSuffix("/diptych-0"))
        var st = stat()
        #expect(lstat(folder, &st) == 0 && st.st_mode & 0o777 == 0o700 && st.st_uid == getuid())
        // A client that is told nothing does not guess.
        let client = try Harness.run([Harness.demo, "pattern:#00AA00"], environment: ["XDG_RUNTIME_DIR": "", "DIPTYCH_SOCKET": "", "DIPTYCH_SOCKET_FD": ""])
        #expect(client.status != 0 && client.stderr.contains("DIPTYCH_SOCKET"), "\(client.stderr)")
        Glibc.kill(p.pid, SIGTERM)
        #expect(p.wait(milliseconds: 5000) == 0)
        #expect(!Files.exists(folder))
    }

    /// DIPTYCH_SOCKET naming a file that is no socket: refused, named, and the file kept.
    @Test func theSocketNeverReplacesAFileItDidNotMake() throws {
        let dir = Harness.temporaryDirectory("socket-file")
        try Files.writeAtomically("\(dir)/notes.txt", bytes: Array("keep me\n".utf8))
        let r = try Harness.run(
            [Harness.diptych, "run", "--backend", "headless"], environment: ["DIPTYCH_SOCKET": "\(dir)/notes.txt", "DIPTYCH_SOCKET_FD": ""],
            timeoutMilliseconds: 10_000)
        #expect(r.status != 0 && r.stderr.contains("not a socket"), "\(r.stderr)")
        #expect(String(decoding: try Files.read("\(dir)/notes.txt"), as: UTF8.self) == "keep me\n")
    }

    /// The last frame's temporary file is a new one of an unpredictable name: symlinks planted
    /// at the names it used to take are not followed (their targets stay as they were).
    @Test func theLastFrameFollowsNoPlantedSymlink() throws {
        let dir = Harness.temporaryDirectory("planted-frame"), elsewhere = Harness.temporaryDirectory("planted-target")
        try Files.writeAtomically("\(elsewhere)/victim", bytes: Array("untouched".utf8))
        for pid in 1..<4096 { symlink("\(elsewhere)/victim", "\(dir)/frame.png.tmp-\(pid)") }
        let p = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", "pattern:#00AA00", "--out", dir],
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "DIPTYCH_SOCKET_FD": ""])
        _ = eventually { Files.exists("\(dir)/events-primary.jsonl") }
        Glibc.kill(p.pid, SIGTERM)
        #expect(p.wait(milliseconds: 5000) == 0)
        #expect(String(decoding: try Files.read("\(elsewhere)/victim"), as: UTF8.self) == "untouched")
        #expect(try PixelImage.readPNG(from: "\(dir)/frame.png").width == 2048)
    }

    /// A scenario that never ends (/dev/zero) or has a step a day away: refused at once (exit 2).
    @Test(arguments: ["/dev/zero", "day"])
    func endlessScenariosAreRefused(_ which: String) throws {
        var path = which
        if which == "day" {
            let dir = Harness.temporaryDirectory("day-scenario")
            path = "\(dir)/s.json"
            try Files.writeAtomically(path, bytes: Array(#"{"device":"ipad","primary":"notes","steps":[{"at":86400000,"wait":true}]}"#.utf8))
        }
        let r = try Harness.run([Harness.diptych, "run", "--scenario", path, "--out", Harness.temporaryDirectory("day-out")], timeoutMilliseconds: 30_000)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains(which == "day" ? "600000" : "larger than"), "\(r.stderr)")
    }
}

extension HardeningRoundFourTests {
    /// `leave` tells the app the pointer left, not where it went (0, 0).
    @Test func leaveCarriesNoPosition() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        try f.connect(["pattern:#0000AA"], log: "other.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        f.compositor.pointerMotion(toX: 200, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { f.count("pointer", in: "good.jsonl") > 0 })
        f.compositor.pointerMotion(toX: 900, y: 420)
        func leaves() -> [JSONValue] {
            ((try? f.events("good.jsonl")) ?? []).filter { $0["event"]?.stringValue == "pointer" && $0["phase"]?.stringValue == "leave" }
        }
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { !leaves().isEmpty })
        let leaves = leaves()
        #expect(leaves.count == 1)
        #expect(leaves.first?["x"]?.doubleValue == 0 && leaves.first?["y"]?.doubleValue == 0, "\(leaves)")
    }
}

/// Whether bubblewrap can make namespaces here (the README's recipe for an app's own sandbox).
private let bwrapWorks = ((try? Harness.run(["/bin/sh", "-c", "bwrap --ro-bind / / --unshare-all --die-with-parent true"]))?.status ?? 1) == 0

@Suite(.enabled(if: bwrapWorks, "needs bubblewrap able to make namespaces"))
struct AppSandboxTests {
    /// The README's recipe: an app given to bwrap in its own namespaces still gets the
    /// compositor's socket (descriptor 3) and draws its pane; inside, the compositor's
    /// process is not there to see.
    @Test func anAppInItsOwnSandboxDrawsItsPane() throws {
        let dir = Harness.temporaryDirectory("bwrap-app")
        // (The build's folder bound again over the private /tmp, for a checkout under /tmp.)
        let bin = Harness.binDirectory
        let wrap = "bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind \(bin) \(bin) --unshare-all --die-with-parent --new-session"
        let probe = try Harness.run(["/bin/sh", "-c", "\(wrap) /bin/sh -c 'test ! -e /proc/\(getpid())' && echo hidden"])
        #expect(probe.stdout.contains("hidden"), "\(probe.stderr)")
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "split-2/3", "--primary", "\(wrap) \(Harness.demo) pattern:#00AA00",
            "--secondary", "pattern:#993366", "--out", "\(dir)/sandboxed.png",
        ], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let png = try PixelImage.readPNG(from: "\(dir)/sandboxed.png")
        #expect(png.pixel(x: 600, y: 800) & 0xFFFFFF == 0x00AA00)
    }
}

extension RoundFourPathTests {
    /// An output that is a device (`--out /dev/null`) is refused, never replaced by a file.
    @Test func anOutputThatIsADeviceIsNotReplaced() throws {
        let r = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "pattern:#336699", "--out", "/dev/null"])
        #expect(r.status != 0 && r.stderr.contains("not a regular file"), "\(r.stderr)")
        var st = stat()
        #expect(lstat("/dev/null", &st) == 0 && st.st_mode & S_IFMT == S_IFCHR)
    }
}

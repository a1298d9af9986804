// SPDX-License-Identifier: MIT
// The server's frame loop against an output that drops frames: no frameDone goes out for a
// frame that was not shown, its damage is repainted with the next, and the loop sleeps when
// nothing changes.

@testable import DiptychServer
@testable import DiptychHarness
import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux
import DiptychTestSupport
import Logging
import Testing

/// An output whose presents are dropped while `away` is set.
final class FlakyOutput: OutputBackend {
    let size: Size
    private let image: PixelImage
    var away = false
    private(set) var presented: [Region?] = []
    private(set) var dropped = 0

    init(size: Size) {
        self.size = size
        image = PixelImage(width: size.width, height: size.height)
    }

    func beginFrame() -> FrameTarget { FrameTarget(image: image, age: 1) }
    var lastFrame: PixelImage { image }
    var readyForFrame: Bool { true }
    func present(damage: Region?) -> PresentResult {
        if away {
            dropped += 1
            return .dropped
        }
        presented.append(damage)
        return .presented(time: MonotonicClock.milliseconds)
    }
}

struct RepaintTests {
    func compositor(_ output: FlakyOutput, dir: String) throws -> Compositor {
        var config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .full, listen: false)
        // A fixed clock: the wall clock's next minute would be a frame of its own (the status
        // bar's), and these tests count frames.
        config.statusBarTime = "09:41"
        let c = try Compositor(configuration: config, backend: output, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        try c.launch([Harness.demo, "pattern:#336699", "--event-log", "\(dir)/events.jsonl"], role: .primary, label: "pattern")
        try c.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        return c
    }

    func frameDones(_ dir: String) throws -> Int {
        try Harness.events("\(dir)/events.jsonl").filter { $0["event"]?.stringValue == "frameDone" }.count
    }

    @Test func aDroppedFrameSendsNoFrameDoneAndKeepsItsDamage() throws {
        let dir = Harness.temporaryDirectory("repaint")
        let output = FlakyOutput(size: Size(width: 2048, height: 1536))
        let c = try compositor(output, dir: dir)
        defer { c.shutdown() }
        output.away = true
        #expect(c.needsRepaint)
        c.repaint()
        #expect(output.dropped == 1 && c.frameCount == 0)
        try c.roundTrip()
        #expect(try frameDones(dir) == 0)
        // Still wanted, and the whole first frame is repainted when the output is back.
        #expect(c.needsRepaint)
        output.away = false
        c.repaint()
        #expect(output.presented == [nil] && c.frameCount == 1)
        try c.roundTrip()
        #expect(try frameDones(dir) == 1)
        #expect(!c.needsRepaint)
    }

    @Test func theLiveLoopDrawsWhatIsAskedForThenSleeps() throws {
        let dir = Harness.temporaryDirectory("repaint-live")
        let output = FlakyOutput(size: Size(width: 2048, height: 1536))
        let c = try compositor(output, dir: dir)
        defer { c.shutdown() }
        let loop = RepaintLoop(compositor: c)
        // A timer 300 ms out is the only thing that can wake the loop once the frame is shown.
        let timer = try TimerDescriptor()
        try timer.arm(nanoseconds: 300_000_000)
        var fired = false
        c.watch(timer.fd.rawValue) {
            _ = timer.acknowledge()
            fired = true
        }
        var turns = 0
        try loop.run {
            turns += 1
            return fired
        }
        #expect(loop.framesDrawn == 1 && loop.framesDropped == 0 && output.presented.count == 1, "\(loop.framesDrawn) drawn, \(loop.framesDropped) dropped, \(output.presented.count) presented")
        // Drawing the frame, then sleeping in epoll until the timer: a handful of turns, not
        // one every few milliseconds.
        #expect(turns <= 6, "\(turns) turns")
        #expect(c.unscheduledFrames == 0)
    }

    /// Frames are asked for: an app drawing after every frameDone, a divider drag and its
    /// settle, and a rotation all get their frames from what asked for them (debug builds also
    /// pull on every idle turn, and count the frames that were wanted but not asked for).
    @Test func everyFrameTheLiveLoopDrawsWasAskedFor() throws {
        let f = try Fixture(arrangement: .split23)
        try f.connect(["pattern:#00AA00", "--animate"], log: "good.jsonl")
        try f.connect(["pattern:#0000AA"], log: "other.jsonl")
        let loop = RepaintLoop(compositor: f.compositor)
        var turns = 0, step = 0
        let steps: [PanelInput] = [
            .touch(id: 1, phase: .down, x: 1398, y: 700), .touch(id: 1, phase: .motion, x: 1300, y: 700),
            .touch(id: 1, phase: .motion, x: 1100, y: 700), .touch(id: 1, phase: .up, x: 1040, y: 700),
        ]
        try loop.run {
            turns += 1
            let frames = (try? f.events("good.jsonl"))?.filter { $0["event"]?.stringValue == "frameDone" }.count ?? 0
            if frames >= 10 && step < steps.count && turns % 3 == 0 {
                f.compositor.panelInput(steps[step])
                step += 1
            }
            if step == steps.count && frames >= 40 && f.compositor.isSettled {
                f.compositor.rotate(to: .portrait)
                step += 1
            }
            return step > steps.count && !f.compositor.isInMotion && frames >= 60 || turns > 20_000
        }
        #expect(turns <= 20_000)
        #expect(loop.framesDrawn >= 60)
        #expect(f.compositor.unscheduledFrames == 0, "\(f.compositor.unscheduledFrames) frames wanted but not asked for")
    }

    /// A kiosk keeps no frame records (nobody writes frames.json), but its figures all the
    /// same: frames, frame times and input latencies, fixed in size.
    @Test func aLoopWithoutRecordsKeepsItsFigures() throws {
        let f = try Fixture(arrangement: .full)
        try f.connect(["pattern:#00AA00", "--animate"], log: "good.jsonl")
        let loop = RepaintLoop(compositor: f.compositor)
        loop.frames.keepsRecords = false
        var turns = 0
        try loop.run {
            turns += 1
            if turns == 200 { f.compositor.panelInput(.touch(id: 1, phase: .down, x: 500, y: 500)) }
            if turns == 260 { f.compositor.panelInput(.touch(id: 1, phase: .up, x: 500, y: 500)) }
            return (loop.framesDrawn >= 40 && turns > 300) || turns > 50_000
        }
        #expect(loop.frames.records.isEmpty)
        let s = loop.frames.statistics
        #expect(s.frames == loop.framesDrawn && s.frames >= 40)
        #expect(s.frameTimes.count == s.frames && s.frameTimes.quantile(0.5) != nil)
        #expect(s.relaunches == 0)
    }

    @Test func loopTokensRoundTrip() {
        let tokens: [LoopToken] = [.listener, .output(7), .output(0), .client(ClientID(rawValue: 123)), .input(2), .watch(9)]
        for t in tokens { #expect(LoopToken(rawValue: t.rawValue) == t, "\(t)") }
        #expect(LoopToken(rawValue: 0) == nil && LoopToken(rawValue: 99 << 56) == nil)
        #expect(Set(tokens.map(\.rawValue)).count == tokens.count)
    }

    /// The damage history keeps the last few frames' damage, oldest first, whatever the count.
    @Test func theDamageHistoryKeepsTheNewestInOrder() {
        var history: [Region?] = []
        for k in 1...7 {
            history.push(k == 5 ? nil : Region(Rect(x: k, y: 0, width: 1, height: 1)), keeping: 4)
            #expect(history.count == min(k, 4))
        }
        #expect(history.map { $0?.rects.first?.x } == [4, nil, 6, 7])
    }

    /// A kiosk runs for months: however many clients break the protocol, the compositor keeps
    /// only the most recent errors.
    @Test func protocolErrorsKeptAreBounded() throws {
        let f = try Fixture(arrangement: .full)
        // (Connected here in one blocking burst, past a user's connection budget: not what is
        // tested here, so it is lifted.)
        f.compositor.admission.connectBudget = ConnectBudget(burst: 1000, perSecond: 1000)
        let count = Compositor.protocolErrorLimit + 6
        var sockets: [SharedDescriptor] = []
        for i in 0..<count {
            let s = SharedDescriptor(try UnixSocket.connect(path: f.compositor.socketPath!))
            // A hello whose body is not a hello: malformed.
            try UnixSocket.sendAll(s.rawValue, [12, 0, 0, 0, 1, 0, 0, 0, UInt8(i), 0xAD, 0xBE, 0xEF])
            sockets.append(s)
            try f.compositor.dispatch(timeoutMilliseconds: 0)
        }
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.protocolErrors.count == Compositor.protocolErrorLimit && f.compositor.clients.all.isEmpty })
        #expect(f.compositor.protocolErrors.count == Compositor.protocolErrorLimit)
        // The newest are kept: the first six clients' errors are gone.
        let labels = f.compositor.protocolErrors.map(\.client)
        #expect(Set(labels).count == Compositor.protocolErrorLimit && !labels.contains("client-100") && labels.last == "client-\(100 + count - 1)")
        _ = sockets
    }
}

/// What one turn of the loop sends an app goes in one write (the app is woken once).
struct ClientWriteTests {
    @Test func aDragsEventsReachEachAppInOneWrite() throws {
        let dir = Harness.temporaryDirectory("writes")
        var config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split12, listen: false)
        config.statusBarTime = "09:41"
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { c.shutdown() }
        // Both apps admitted together, whichever speaks first: the split is there once they drew.
        c.admitsAtHello = false
        try c.launch([Harness.demo, "pattern:#336699", "--event-log", "\(dir)/a.jsonl"], role: .primary, label: "a")
        try c.launch([Harness.demo, "pattern:#993366", "--event-log", "\(dir)/b.jsonl"], role: .secondary, label: "b")
        try c.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        c.flushClients()
        let sessions = c.clients.inOrder
        #expect(sessions.count == 2)
        let before = sessions.map { (events: $0.connection.eventsQueued, writes: $0.connection.writes) }
        // Grab the divider, drag it most of the way to the right, let go: every app hears of
        // the drag (lifecycle, snapshot requests, its new size) without a turn of the loop.
        let x = Double(try #require(c.layout.divider).x) + 5
        let width = Double(c.layout.screen.width)
        c.touch(id: 1, phase: .down, x: x, y: 300)
        for k in 1...5 { c.touch(id: 1, phase: .motion, x: x + (width * 0.9 - x) * Double(k) / 5, y: 300) }
        c.touch(id: 1, phase: .up, x: width * 0.9, y: 300)
        let queued = zip(sessions, before).map { $0.connection.eventsQueued - $1.events }
        #expect(queued.allSatisfy { $0 >= 3 }, "events queued per app: \(queued)")
        #expect(zip(sessions, before).allSatisfy { $0.connection.writes == $1.writes }, "nothing is written before the loop turns")
        c.flushClients()
        let written = zip(sessions, before).map { $0.connection.writes - $1.writes }
        #expect(written == [1, 1], "writes per app: \(written)")
        // All of them arrive, in order: each app acts on its last configure.
        #expect(try c.run(timeoutMilliseconds: 20_000) { c.hasCommittedForConfigure(.primary) && c.hasCommittedForConfigure(.secondary) })
        let names = try Harness.events("\(dir)/a.jsonl").compactMap { $0["event"]?.stringValue }
        #expect(names.contains("willResignActive") && names.contains("snapshotRequest"), "\(names)")
    }
}

/// The profiler counts frames as `run` draws them.
struct ProfileAccountingTests {
    func record(_ frame: Int, input: Double, repainted: Int) -> FrameRecord {
        FrameRecord(
            frame: frame, time: 0, input: input, apps: 0, layout: 0.01, composite: 0.02, present: 0.001, total: input + 0.031,
            pixman: 0.02, freshPixman: nil, memcpy: nil, repaintedPixels: repainted, inputLatency: nil)
    }

    /// A frame that repaints nothing is not a frame `run` draws; the input handled before it
    /// counts in the next frame that is drawn (as the live loop's input time does).
    @Test func framesThatRepaintNothingPassTheirInputOn() {
        let records = [record(0, input: 0.1, repainted: 0), record(1, input: 0.002, repainted: 0), record(2, input: 0.001, repainted: 500), record(3, input: 0, repainted: 400)]
        let drawn = ProfileResult.drawn(records)
        #expect(drawn.map(\.frame) == [2, 3])
        #expect(abs(drawn[0].input - 0.103) < 1e-9 && abs(drawn[0].total - 0.134) < 1e-9, "\(drawn[0])")
        #expect(drawn[1].input == 0)
        // Nothing drawn at the end: nothing to carry it to.
        #expect(ProfileResult.drawn([record(0, input: 0.1, repainted: 0)]).isEmpty)
    }
}

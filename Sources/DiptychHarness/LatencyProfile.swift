// SPDX-License-Identifier: MIT
// `diptych profile --workload latency`: pen-to-screen latency through a real app, on the wall
// clock. A pen moves at a fixed rate at a random phase to the vblank; the app draws a dot where
// each event lands (taking a set time) and commits it at once; each event's latency runs from
// its timestamp to the vblank of the first frame that shows the commit answering it. The same
// run measures the repaint window and "as soon as ready" in turns.

import DiptychCore
import DiptychServer
import DiptychImage
import DiptychOutput
import DiptychLinux
import Logging

/// A pen moving at a mean rate, as a tablet reports it: each event a period from the last,
/// give or take half a period at random, so events land at every phase to the vblank. The first
/// event puts the tip down, every later one moves it. Each event's time is its timer's expiry,
/// as a device stamps its events.
final class SyntheticPen: InputSource {
    let timer: TimerDescriptor
    let period: UInt64
    private var next: UInt64
    private var random: UInt64
    private var sent: UInt64 = 0
    /// Each event's time (monotonic ns), in order.
    private(set) var times: [UInt64] = []
    /// The loop's centre and reach on the tablet (0…1 each axis).
    let centre: (x: Double, y: Double), reach: (x: Double, y: Double)

    /// A pen at `hz` looping around `centre` within `reach` (by default the middle of the
    /// screen, clear of the edges' gestures).
    init(hz: Double, seed: UInt64, centre: (x: Double, y: Double) = (0.5, 0.5), reach: (x: Double, y: Double) = (0.25, 0.25)) throws(SystemError) {
        self.centre = centre
        self.reach = reach
        period = UInt64(1_000_000_000 / hz)
        random = seed | 1
        next = MonotonicClock.nanoseconds + 100_000_000
        timer = try TimerDescriptor()
        try timer.arm(atNanoseconds: next)
    }

    var descriptor: Int32 { timer.fd.rawValue }

    /// The pen lifts and leaves at its next event (then sends nothing more).
    private var ending = false, ended = false
    func stop() {
        ending = true
        try? timer.arm(atNanoseconds: MonotonicClock.nanoseconds)
    }

    /// A number from 0 to 1 (xorshift).
    private func uniform() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random >> 11) / Double(1 << 53)
    }

    func read() -> [RawInput] {
        _ = timer.acknowledge()
        var out: [RawInput] = []
        let now = MonotonicClock.nanoseconds
        if ending {
            guard !ended else { return [] }
            ended = true
            try? timer.arm(atNanoseconds: 0)
            let x = centre.x, y = centre.y
            return [.tabletTip(down: false, x: x, y: y, pressure: 0, tiltX: 0, tiltY: 0, time: now / 1000),
                    .tabletProximity(entering: false, x: x, y: y, pressure: 0, tiltX: 0, tiltY: 0, tool: .pen, time: now / 1000)]
        }
        while next <= now {
            let a = Double(sent) * 0.02
            let x = centre.x + reach.x * sin(a), y = centre.y + reach.y * sin(a * 1.3)
            let micros = next / 1000
            if sent == 0 {
                out.append(.tabletProximity(entering: true, x: x, y: y, pressure: 0, tiltX: 0, tiltY: 0, tool: .pen, time: micros))
                out.append(.tabletTip(down: true, x: x, y: y, pressure: 0.5, tiltX: 0, tiltY: 0, time: micros))
            } else {
                out.append(.tabletAxis(x: x, y: y, pressure: 0.5, tiltX: 0, tiltY: 0, time: micros))
            }
            times.append(next)
            sent += 1
            next += UInt64(Double(period) * (0.5 + uniform()))
        }
        try? timer.arm(atNanoseconds: next)
        return out
    }
}

/// A sine without Foundation (the pen's path only).
private func sin(_ x: Double) -> Double {
    var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if r > Double.pi { r -= 2 * Double.pi } else if r < -Double.pi { r += 2 * Double.pi }
    var term = r, sum = r
    for n in 1..<10 {
        term *= -r * r / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}

public enum LatencyProfiler {
    /// Runs the workload: `rounds` turns of `frames` refreshes with the window, then as many as
    /// soon as ready, after a warm-up. `command` turns an app (a demo app with its
    /// flags) into the command line to launch.
    public static func run(
        refreshHz: Double, drawMilliseconds: Double, penHz: Double, window: RepaintWindow, frames: Int, rounds: Int = 2,
        backend: (any OutputBackend)? = nil, neighbour: String? = nil, penOnly: Bool = false, logger: Logger, command: (String) throws -> [String]
    ) throws -> LatencyResult {
        // With a neighbour, Split View (the pen's app the primary, ⅔ at the left).
        let compositor = try Compositor.onTheWallClock(arrangement: neighbour == nil ? .full : .split23, refreshHz: refreshHz, window: window, backend: backend, logger: logger)
        let refreshHz = Double(compositor.backend.refreshMillihertz) / 1000
        defer { compositor.shutdown(graceMilliseconds: 500) }
        try compositor.launch(try command("notes --pen-dots-ms \(drawMilliseconds)"), role: .primary, label: "dots")
        if let neighbour { try compositor.launch(try command(neighbour), role: .secondary, label: "neighbour") }
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 10_000)
        guard let app = compositor.client(.primary) else { throw CompositorError("the latency app went away") }
        // (A neighbour is measured beside from its first frame: it must be there.)
        if neighbour != nil, !(try compositor.run(timeoutMilliseconds: 10_000) { compositor.hasCommittedForConfigure(.secondary) }) {
            throw CompositorError("the neighbour did not draw within 10 s: \(compositor.disconnections[.secondary] ?? "it did not connect")")
        }
        let other = compositor.client(.secondary)

        // (In Split View the pen stays in the primary's pane: the left third of the screen.)
        let pen = try SyntheticPen(
            hz: penHz, seed: MonotonicClock.nanoseconds &* 6364136223846793005 &+ 1442695040888963407,
            centre: neighbour == nil ? (0.5, 0.5) : (0.3, 0.5), reach: neighbour == nil ? (0.25, 0.25) : (0.15, 0.25))
        try compositor.addInput(pen)
        // The app's commits after the pen's first event, in order (one per pen event), and the
        // frames shown: the stamp of the newest commit each shows, and its vblank.
        var commits: [UInt64] = []
        var shown: [(commits: UInt64, at: UInt64)] = []
        var penStarted = false
        var neighbourCommits = 0
        compositor.hooks.onCommit = { id, stamp in
            if id == app && penStarted { commits.append(stamp) }
            if id == other && penStarted { neighbourCommits += 1 }
        }
        compositor.hooks.onFrameShown = { stamp, at in shown.append((stamp, at)) }

        let loop = RepaintLoop(compositor: compositor)
        // As the kiosk runs: the loop realtime where the system grants it (then back to normal),
        // the app under the pen first.
        let realtime = RealtimeLoop()
        realtime.take()
        loop.realtime = realtime
        defer { realtime.release() }
        compositor.shareCPU()
        let scheduling = "loop \(realtime.scheme), apps by \(compositor.cpuShare.scheme)"
        let turn = UInt64(frames) * UInt64(1_000_000_000 / refreshHz)
        // Phases: warm-up, then window and as soon as ready in turns; pen events are told apart
        // by their time (each phase's first 100 ms left out: the switch's own frames).
        var phases: [(start: UInt64, end: UInt64, windowed: Bool)] = []
        var onTime = 0, late = 0
        // The window in effect as the pen was measured with it (the keyboard's frames after
        // may move the automatic one).
        var penWindow = compositor.repaintWindowMilliseconds
        func play(_ nanoseconds: UInt64) throws { try loop.play(nanoseconds, while: .primary) }
        try compositor.run(timeoutMilliseconds: 2000) { !pen.times.isEmpty }
        penStarted = true
        let measuredFrom = MonotonicClock.nanoseconds
        // Warm-up: long enough for the automatic window to forget the first frames (whole
        // repaints) and measure dots alone.
        try play(max(1_000_000_000, UInt64(Double(RepaintSchedule.workSamples + 10) * 1e9 / refreshHz)))
        for _ in 0..<max(1, rounds) {
            for windowed in [true, false] {
                compositor.repaintWindow = windowed ? window : .off
                let start = MonotonicClock.nanoseconds
                let (on0, late0) = compositor.framesAtDeadline
                try play(turn)
                if windowed {
                    onTime += compositor.framesAtDeadline.onTime - on0
                    late += compositor.framesAtDeadline.late - late0
                    penWindow = compositor.repaintWindowMilliseconds
                }
                phases.append((start + 100_000_000, MonotonicClock.nanoseconds, windowed))
            }
        }
        // The last events' frames.
        try play(200_000_000)
        guard compositor.client(.primary) != nil else { throw CompositorError("the latency app went away: \(compositor.disconnections[.primary] ?? "")") }

        // The pen lifts and goes (fingers are palms while it is near, and a while after); then
        // the on-screen keyboard's taps.
        penStarted = false
        let measuredSeconds = Double(MonotonicClock.nanoseconds - measuredFrom) / 1e9
        pen.stop()
        _ = try compositor.run(timeoutMilliseconds: 1500) { false }
        // (A second run for the pen alone measures nothing else.)
        let (toKeyboard, enableToKeyboard) = penOnly ? ([], []) : try tapsToKeyboard(compositor, loop, taps: min(20, max(3, frames / 15)))
        let taps = penOnly ? [] : try tapsToCommit(compositor)

        // Key to app: a key pressed and released 200 times through the keymap to the app with
        // the keyboard, each written at once; the app reads between keys.
        var keys: [Double] = []
        if !penOnly, let code = compositor.keycode(forKeysymNamed: "a") {
            for i in 0..<400 {
                let t0 = MonotonicClock.nanoseconds
                compositor.key(code, pressed: i % 2 == 0)
                compositor.flushClients()
                keys.append(Double(MonotonicClock.nanoseconds - t0) / 1_000_000)
                try compositor.dispatch(timeoutMilliseconds: 0)
            }
        }

        compositor.repaintWindow = window
        var windowed: [Double] = [], asap: [Double] = []
        var f = 0
        for (k, t) in pen.times.enumerated() where k < commits.count {
            let stamp = commits[k]
            while f < shown.count && shown[f].commits < stamp { f += 1 }
            guard f < shown.count, let phase = phases.first(where: { t >= $0.start && t < $0.end }) else { continue }
            let ms = Double(Int64(bitPattern: shown[f].at &- t)) / 1_000_000
            if phase.windowed { windowed.append(ms) } else { asap.append(ms) }
        }
        var result = LatencyResult(
            refreshHz: refreshHz, drawMilliseconds: drawMilliseconds, penHz: penHz,
            windowMilliseconds: penWindow, latency: windowed, asap: asap)
        result.framesAtDeadline = onTime + late
        result.framesShownAtAimedVblank = onTime
        result.keyToApp = keys
        result.tapToCommit = taps
        result.tapToKeyboard = toKeyboard
        result.scheduling = scheduling
        if other != nil { result.neighbourFramesPerSecond = Double(neighbourCommits) / max(measuredSeconds, 0.001) }
        result.enableToKeyboard = enableToKeyboard
        if backend != nil { result.output = "drm" }
        return result
    }

    /// Tap to keyboard: notes' field tapped `taps` times (20 in a run of 300 frames, fewer in
    /// shorter runs), the keyboard dismissed in between (notes gives up its field when told);
    /// each time from the touch-up to the first frame composed with the keyboard, and from notes'
    /// enable read (naming the tap) to that frame.
    private static func tapsToKeyboard(_ compositor: Compositor, _ loop: RepaintLoop, taps: Int) throws -> (tap: [Double], enable: [Double]) {
        var tap: [Double] = [], enable: [Double] = []
        for _ in 0..<taps {
            compositor.touch(id: 3, phase: .down, x: 200, y: 38)
            let t0 = MonotonicClock.nanoseconds
            compositor.touch(id: 3, phase: .up, x: 200, y: 38)
            var read: UInt64?, shownAt: Int?
            guard try loop.run(milliseconds: 3000, until: {
                if read == nil, compositor.textInputState(.primary)?.enabled == true { read = MonotonicClock.nanoseconds }
                if shownAt == nil, compositor.keyboardShown != nil { shownAt = compositor.frameCount }
                return shownAt.map { compositor.frameCount > $0 } ?? false
            }) else { return ([], []) }
            let t1 = MonotonicClock.nanoseconds
            tap.append(Double(t1 - t0) / 1_000_000)
            enable.append(Double(t1 - (read ?? t0)) / 1_000_000)
            _ = try loop.run(milliseconds: 3000) { !compositor.keyboardMoving }
            guard let d = compositor.keyboardKeys.first(where: { $0.label == "↓" })?.frame else { break }
            compositor.touch(id: 3, phase: .down, x: Double(d.x) + 4, y: Double(d.y) + 4)
            compositor.touch(id: 3, phase: .up, x: Double(d.x) + 4, y: Double(d.y) + 4)
            _ = try loop.run(milliseconds: 3000) { compositor.keyboardShown == nil && !compositor.keyboardMoving && compositor.textInputState(.primary)?.enabled != true }
        }
        return (tap, enable)
    }

    /// Tap to text: notes' title tapped (the on-screen keyboard slides up), then a key tapped
    /// 200 times; each time from the touch-up to the `textCommit` written; then the keyboard
    /// dismissed. Empty when the keyboard did not show.
    private static func tapsToCommit(_ compositor: Compositor) throws -> [Double] {
        compositor.touch(id: 3, phase: .down, x: 200, y: 38)
        compositor.touch(id: 3, phase: .up, x: 200, y: 38)
        guard try compositor.run(timeoutMilliseconds: 3000, until: { compositor.keyboardShown != nil && !compositor.keyboardMoving }),
            let key = compositor.keyboardKeys.first(where: { $0.label.lowercased() == "a" })?.frame
        else { return [] }
        let (x, y) = (Double(key.x) + Double(key.width) / 2, Double(key.y) + Double(key.height) / 2)
        var taps: [Double] = []
        for _ in 0..<200 {
            compositor.touch(id: 3, phase: .down, x: x, y: y)
            let t0 = MonotonicClock.nanoseconds
            compositor.touch(id: 3, phase: .up, x: x, y: y)
            compositor.flushClients()
            taps.append(Double(MonotonicClock.nanoseconds - t0) / 1_000_000)
            try compositor.dispatch(timeoutMilliseconds: 0)
        }
        if let d = compositor.keyboardKeys.first(where: { $0.label == "↓" })?.frame {
            compositor.touch(id: 3, phase: .down, x: Double(d.x) + 4, y: Double(d.y) + 4)
            compositor.touch(id: 3, phase: .up, x: Double(d.x) + 4, y: Double(d.y) + 4)
        }
        _ = try compositor.run(timeoutMilliseconds: 3000) { compositor.keyboardShown == nil && !compositor.keyboardMoving }
        return taps
    }
}

extension Compositor {
    /// A compositor for a workload on the wall clock: ipad-pro in landscape in `arrangement`,
    /// headless with a vblank simulated at `refreshHz` (or on `backend`), repainting with
    /// `window`, relaunching nothing.
    static func onTheWallClock(
        arrangement: Arrangement, refreshHz: Double, window: RepaintWindow, backend: (any OutputBackend)? = nil, logger: Logger
    ) throws -> Compositor {
        var configuration = CompositorConfiguration(profile: try DeviceProfile.named("ipad-pro"), orientation: .landscape, arrangement: arrangement, listen: false)
        configuration.headlessRefreshMillihertz = Int((refreshHz * 1000).rounded())
        configuration.repaintWindow = window
        configuration.relaunch = .never
        return try Compositor(configuration: configuration, backend: backend, logger: logger)
    }
}

extension RepaintLoop {
    /// Runs the live loop until `done` (checked after each batch of events and each frame, and
    /// every millisecond while the loop would sleep), or `milliseconds` of the wall clock passed:
    /// whether `done` was met.
    func run(milliseconds: UInt64, until done: () -> Bool) throws -> Bool {
        let until = MonotonicClock.nanoseconds + milliseconds * 1_000_000
        let wake = try TimerDescriptor()
        try wake.arm(nanoseconds: 1_000_000, interval: 1_000_000)
        compositor.watch(wake.fd.rawValue) { _ = wake.acknowledge() }
        defer { compositor.unwatch(wake.fd.rawValue) }
        var met = false
        try run {
            met = done()
            return met || MonotonicClock.nanoseconds >= until
        }
        return met
    }

    /// Runs the live loop for `nanoseconds` of the wall clock, or until the app in `role` goes.
    func play(_ nanoseconds: UInt64, while role: Role) throws {
        let until = MonotonicClock.nanoseconds + nanoseconds
        // The loop sleeps while nothing happens (idle apps, no input): a timer wakes it at the end.
        let wake = try TimerDescriptor()
        try wake.arm(atNanoseconds: until)
        compositor.watch(wake.fd.rawValue) { _ = wake.acknowledge() }
        defer { compositor.unwatch(wake.fd.rawValue) }
        try run { MonotonicClock.nanoseconds >= until || compositor.client(role) == nil }
    }
}

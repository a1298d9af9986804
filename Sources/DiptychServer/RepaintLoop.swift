// SPDX-License-Identifier: MIT
// The live repaint loop, as libweston schedules repaints and wlroots emits an output's frame
// event: a frame is drawn when something asks for one (a commit, a gesture, an output that
// came back) and the output can take it (its last flip completed), at its repaint deadline:
// the window before the next vblank (Weston's repaint-window), so that what arrives until then
// is on screen at that vblank. Between frames the loop sleeps until its next event or deadline
// (the repaint timer wakes it at the frame's).

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux

/// Runs a compositor live until asked to stop. Confined to the compositor's thread.
public final class RepaintLoop {
    public let compositor: Compositor
    /// The frames' figures, and their records for `frames.json` when kept: the repaint path's
    /// observer.
    public let frames: LiveFrames
    /// The shortest time between two frames' starts, in milliseconds: paces an output without
    /// presentation events (headless without a simulated refresh).
    public var refreshInterval: UInt64 = 16
    /// Its realtime scheduling and bound, when it has one (`RealtimeLoop`).
    public var realtime: RealtimeLoop?
    /// Frames drawn and dropped so far.
    public private(set) var framesDrawn = 0
    public private(set) var framesDropped = 0

    public init(compositor: Compositor) {
        self.compositor = compositor
        frames = LiveFrames(compositor: compositor)
    }

    /// Dispatches events and draws frames until `stop()` is true (checked after every batch
    /// of events; a signal handler watched by the compositor sets it).
    public func run(until stop: () -> Bool) throws {
        let backend = compositor.backend
        let main = compositor.main
        var nextPoll = backend.pollInterval.map { MonotonicClock.milliseconds + $0 }
        var notBefore: UInt64 = 0
        while !stop() {
            realtime?.turn(now: MonotonicClock.nanoseconds)
            var now = MonotonicClock.milliseconds
            if let interval = backend.pollInterval, let due = nextPoll, now >= due {
                compositor.handle(backend.poll())
                compositor.pollSecondScreen()
                nextPoll = now + interval
            }
            // The clock's minute changes the status bar.
            if let due = compositor.nextClockDeadline, now >= due { compositor.scheduleFrame() }
            // Frames are asked for (`scheduleFrame`): each output that wants one and can take it
            // gets it at its repaint deadline (the window before the vblank it can make); the
            // main screen's scene is built once, to see what changed, then drawn. The second
            // screen is an output like it: drawn when it wants a frame of its own (its holder
            // committed, or it came back) or the main frame it mirrors changed.
            let nowNs = MonotonicClock.nanoseconds
            var timer: UInt64?
            func due(_ output: Output, ready: Bool) -> Bool {
                guard ready && output.wantsFrame else { return false }
                let deadline = output.repaintDeadline(now: nowNs)
                if nowNs >= deadline { return true }
                timer = min(timer ?? deadline, deadline)
                return false
            }
            let ready = backend.readyForFrame && now >= notBefore
            let draw = due(main, ready: ready) || (ready && !main.wantsFrame && unscheduledFrame())
            if draw {
                main.drew()
                let b0 = MonotonicClock.nanoseconds
                if let report = compositor.drawWantedFrame() {
                    main.worked(MonotonicClock.nanoseconds - b0)
                    if report.result == .dropped { framesDropped += 1 } else { framesDrawn += 1 }
                    // An output without presentation events is paced by the refresh interval, and
                    // a dropped frame is retried after one.
                    if !backend.reportsPresentation || report.result == .dropped { notBefore = now + refreshInterval }
                    // What moves by itself (a settle, a cross-fade, a window held) asks for the next.
                    if compositor.isInMotion || compositor.fade != nil || report.result == .dropped { compositor.scheduleFrame() }
                }
            }
            if let second = compositor.secondScreen?.output, due(second, ready: second.backend.readyForFrame) {
                compositor.drawSecondScreen()
            }
            if let timer { try compositor.repaintTimer.arm(atNanoseconds: timer) }
            now = MonotonicClock.milliseconds
            try compositor.dispatch(timeoutMilliseconds: sleep(now: now, nextPoll: nextPoll, notBefore: notBefore))
        }
    }

    /// A frame wanted though none was asked for. Debug builds look on every turn the loop
    /// would otherwise idle (the pull the loop used to do), count it, and draw it: the tests
    /// assert the count stays zero. Release builds trust the requests.
    private func unscheduledFrame() -> Bool {
        #if DEBUG
        guard compositor.wantedFrame() != nil else { return false }
        compositor.main.unscheduledFrames += 1
        return true
        #else
        return false
        #endif
    }

    /// How long to sleep: until the earliest of the backend's poll, an activation deadline,
    /// the pen's time-out, and (when a frame is wanted and the output can take it) the next
    /// frame's earliest start; nil (until an event) when nothing is due.
    private func sleep(now: UInt64, nextPoll: UInt64?, notBefore: UInt64) -> Int? {
        var wake = [nextPoll, compositor.nextTickDeadline, compositor.palm.nextDeadline, compositor.nextClockDeadline].compactMap { $0 }
        // (A deadline of the repaint window is the repaint timer's.)
        if compositor.backend.readyForFrame && compositor.main.wantsFrame && notBefore > now { wake.append(notBefore) }
        return wake.min().map { Int($0 > now ? $0 - now : 0) }
    }
}

// SPDX-License-Identifier: MIT
// What each frame cost, in stages (input, the apps' round trip, layout, composite, present),
// and the records of a live compositor's frames that `run --out` writes as `frames.json`.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychOutput
import DiptychRender

/// The timings of one frame, in milliseconds.
public struct FrameRecord: Sendable {
    public var frame: Int
    /// Virtual time of the frame.
    public var time: UInt64
    /// Applying the frame's input, and writing what it sent the apps.
    public var input: Double
    /// Waiting for the apps' answers (their time, not the compositor's; not in `total`).
    public var apps: Double
    public var layout: Double
    public var composite: Double
    /// Showing the frame, and writing the apps' `frameDone`. Writes to apps are timed by the
    /// compositor thread's CPU time: an app a write wakes may run on this CPU first (measured:
    /// 60 µs of writing took 0.9 ms once so), and that time is the app's.
    public var present: Double
    /// input + layout + composite + present: the compositor's own work.
    public var total: Double
    /// pixman alone on the same operations and the apps' buffers.
    public var pixman: Double?
    /// pixman alone on the same operations with sources this process drew in that frame.
    public var freshPixman: Double?
    public var memcpy: Double?
    /// Output pixels repainted.
    public var repaintedPixels: Int
    /// From the input applied in this frame to the frame that shows it, if any.
    public var inputLatency: Double?
    /// Page faults the compositor process took during the frame (profiling runs only).
    public var pageFaults: Int?
    /// What the frame showed: the panes and the divider, in points.
    public var shown: ShownPanes?
    /// What was moving: "follow" (a finger), "settle", "fade" (a rotation); nil when still.
    public var motion: String?
    /// During a rotation: how far the old picture has turned, in degrees.
    public var turn: Double?
    /// The on-screen keyboard as the frame drew it; nil: none.
    public var keyboard: KeyboardRecord?
    /// The screen was blank (the frame black).
    public var blanked = false

    public init(
        frame: Int, time: UInt64, input: Double, apps: Double, layout: Double, composite: Double, present: Double, total: Double,
        pixman: Double?, freshPixman: Double?, memcpy: Double?, repaintedPixels: Int, inputLatency: Double?
    ) {
        (self.frame, self.time, self.input, self.apps, self.layout, self.composite, self.present, self.total) =
            (frame, time, input, apps, layout, composite, present, total)
        (self.pixman, self.freshPixman, self.memcpy, self.repaintedPixels, self.inputLatency) = (pixman, freshPixman, memcpy, repaintedPixels, inputLatency)
    }

    public var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        var pairs: [(String, JSONValue)] = [
            ("frame", .int(frame)), ("time", .int(Int(time))), ("input_ms", r(input)), ("apps_ms", r(apps)),
            ("layout_ms", r(layout)), ("composite_ms", r(composite)), ("present_ms", r(present)), ("total_ms", r(total)),
            ("repainted_px", .int(repaintedPixels)),
        ]
        if let p = pixman { pairs.append(("pixman_ms", r(p))) }
        if let p = freshPixman { pairs.append(("fresh_pixman_ms", r(p))) }
        if let m = memcpy { pairs.append(("memcpy_ms", r(m))) }
        if let l = inputLatency { pairs.append(("input_latency_ms", r(l))) }
        if let f = pageFaults { pairs.append(("page_faults", .int(f))) }
        if let shown { pairs += shown.json }
        if let motion { pairs.append(("motion", .string(motion))) }
        if let turn { pairs.append(("turn", .double((turn * 10).rounded() / 10))) }
        pairs.append(("keyboard", keyboard?.json ?? .null))
        pairs.append(("blanked", .bool(blanked)))
        return .object(pairs)
    }
}

/// The records of a live compositor's frames (`frames.json`) and its always-kept figures: an
/// observer of the one repaint path, which counts in the input handled since the last frame.
/// Bounded: a kiosk runs for months.
public final class LiveFrames: FrameObserver {
    public let compositor: Compositor
    /// Every frame's record, kept only when someone will read them (`keepsRecords`: `--out`,
    /// a test); a kiosk keeps none.
    public private(set) var records: [FrameRecord] = []
    public var keepsRecords: Bool
    /// Always kept, fixed in size: frames, late frames, frame times, input latencies and the
    /// compositor's relaunches.
    public var statistics: FrameStatistics {
        var s = figures
        s.relaunches = compositor.relaunches
        return s
    }
    private var figures = FrameStatistics()
    public private(set) var maxSnapshotBytes = 0
    private var framesDrawn = 0

    /// Watches `compositor`'s frames from now on.
    public init(compositor: Compositor, keepsRecords: Bool = true) {
        self.compositor = compositor
        self.keepsRecords = keepsRecords
        compositor.frameObserver = self
    }

    /// A frame of the live compositor (no round trip: apps run at their own pace): layout,
    /// composite and present as the repaint path timed them, the time spent handling input
    /// since the last frame, and writing what the frame sent the apps.
    public func presented(_ report: FrameReport) {
        let (input, hadInput) = compositor.takeInputTime()
        let writes = writeClients()
        maxSnapshotBytes = max(maxSnapshotBytes, compositor.snapshotBytes)
        let repainted = report.repaintedPixels
        // The frame's own work (not what an observer ran between layout and composite).
        let frame = report.layoutMilliseconds + report.compositeMilliseconds + report.presentMilliseconds
        var r = FrameRecord(
            frame: framesDrawn, time: compositor.now, input: input, apps: 0, layout: report.layoutMilliseconds, composite: report.compositeMilliseconds,
            present: report.presentMilliseconds + ms(writes.cpu), total: input + frame + ms(writes.cpu), pixman: nil, freshPixman: nil, memcpy: nil,
            repaintedPixels: repainted, inputLatency: hadInput && repainted > 0 ? input + frame : nil)
        r.shown = report.shown
        r.motion = report.motion
        r.turn = report.turn
        r.keyboard = report.keyboard
        r.blanked = compositor.isBlanked
        figures.frame(totalMilliseconds: r.total, refreshMilliseconds: compositor.main.refreshMilliseconds, inputLatency: r.inputLatency)
        framesDrawn += 1
        guard keepsRecords else { return }
        // Bounded all the same: keep the last 100,000 frames.
        if records.count >= 100_000 { records.removeFirst(10_000) }
        records.append(r)
    }

    private func ms(_ a: UInt64, _ b: UInt64) -> Double { Double(b &- a) / 1_000_000 }
    private func ms(_ ns: UInt64) -> Double { Double(ns) / 1_000_000 }

    /// Writes what the apps were sent: the wall time it took and this thread's CPU time in it,
    /// in nanoseconds (an app a write wakes may take this CPU first; that time is the app's).
    private func writeClients() -> (wall: UInt64, cpu: UInt64) {
        guard compositor.clients.hasUnflushed else { return (0, 0) }
        let c0 = ThreadClock.nanoseconds, w0 = MonotonicClock.nanoseconds
        compositor.flushClients()
        let c1 = ThreadClock.nanoseconds, w1 = MonotonicClock.nanoseconds
        return (w1 &- w0, c1 &- c0)
    }

    /// `frames.json`: every record and the output size.
    public var framesJSON: JSONValue {
        .object([
            ("frames", .array(records.map(\.json))),
            ("output", .object([("width", .int(compositor.output.width)), ("height", .int(compositor.output.height))])),
        ])
    }
}

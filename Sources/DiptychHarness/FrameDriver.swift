// SPDX-License-Identifier: MIT
// Runs frames in stages and times them: input, the apps' round trip, layout, composite and
// present, with optional baselines (pixman alone on the same operations, memcpy of a frame).
// Scenarios and the profiler share it, so frames.json and `profile` report the same records.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychRender
import DiptychServer

/// Drives a compositor frame by frame and records what each frame cost.
public final class FrameDriver: FrameObserver {
    public let compositor: Compositor
    /// Also time the baselines after each frame.
    public var baselines = false
    /// With `baselines`, also time every path of the area-average kernel this CPU runs on
    /// the frame's operations, and a copy of the scaled sources, alternating their order
    /// with pixman's frame by frame (the `emulated` workload's comparison).
    public var kernelBaselines = false
    /// Keep Chrome trace events.
    public var tracing = false
    /// With `kernelBaselines`, each recorded frame's time of its operations on each path.
    public private(set) var kernelSamples: [BoxKernel: [Double]] = [:]
    /// With `kernelBaselines`, each recorded frame's time to copy the sources it scales.
    public private(set) var sourceCopySamples: [Double] = []
    private var pendingKernels: [BoxKernel: Double] = [:]
    private var pendingSourceCopy: Double?
    private var sourceCopies: [Size: PixelImage] = [:]
    public private(set) var records: [FrameRecord] = []
    public private(set) var traceEvents: [JSONValue] = []
    public private(set) var maxSnapshotBytes = 0
    private var scratch: PixelImage?
    private var scratchCopy: PixelImage?
    /// Sources of the apps' sizes that the baseline draws itself each frame, by size.
    private var freshSources: [Size: PixelImage] = [:]
    private let origin = MonotonicClock.nanoseconds

    public init(compositor: Compositor) { self.compositor = compositor }

    /// Runs one frame at virtual time `time`; `input` applies this frame's input and returns
    /// whether there was any. `record` false runs it without keeping its figures (warm-up).
    @discardableResult
    public func frame(at time: UInt64, roundTripTimeout: Int = 5000, record: Bool = true, input: () throws -> Bool) throws -> FrameRecord {
        compositor.virtualTime = time
        let faults0 = ProcessStats.pageFaults
        let t0 = MonotonicClock.nanoseconds
        let hadInput = try input()
        compositor.tick()
        // What the input sent the apps is written here (the loop writes it before it waits),
        // timed by this thread's CPU time: an app woken by a write may take this CPU first,
        // and that time is the app's.
        let writes = writeClients()
        let t1 = MonotonicClock.nanoseconds
        try compositor.roundTrip(timeoutMilliseconds: roundTripTimeout)
        compositor.tick()
        let t2 = MonotonicClock.nanoseconds
        // A real output takes a frame only after its last flip: wait for it (not counted).
        try compositor.waitUntilOutputReady()
        // The one repaint path draws the frame; this driver watches it (`laidOut`, where the
        // baselines may run before the composite, and `presented`).
        compositor.frameObserver = self
        pending = (nil, nil, nil)
        pendingKernels = [:]
        pendingSourceCopy = nil
        let report = compositor.drawFrame()
        let t5 = MonotonicClock.nanoseconds
        let presentWrites = writeClients()
        if baselines && !baselineFirst { baseline(report.operations, report.stats) }
        maxSnapshotBytes = max(maxSnapshotBytes, compositor.snapshotBytes)
        let repainted = report.repaintedPixels
        let inputTime = ms(t0, t1) - ms(writes.wall) + ms(writes.cpu), presentTime = report.presentMilliseconds + ms(presentWrites.cpu)
        let frameTime = report.layoutMilliseconds + report.compositeMilliseconds + report.presentMilliseconds
        var r = FrameRecord(
            frame: records.count, time: time, input: inputTime, apps: ms(t1, t2), layout: report.layoutMilliseconds,
            composite: report.compositeMilliseconds, present: presentTime,
            total: inputTime + frameTime + ms(presentWrites.cpu), pixman: pending.pixman, freshPixman: pending.fresh, memcpy: pending.memcpy,
            repaintedPixels: repainted, inputLatency: hadInput && repainted > 0 ? ms(t0, t5) - ms(report.layoutEnd, report.compositeStart) : nil)
        // The whole frame in this process: mapping commits, compositing and the baselines.
        if baselines { r.pageFaults = ProcessStats.pageFaults - faults0 }
        r.shown = report.shown
        r.motion = report.motion
        r.turn = report.turn
        r.keyboard = report.keyboard
        r.blanked = compositor.isBlanked
        guard record else { return r }
        records.append(r)
        for (k, t) in pendingKernels { kernelSamples[k, default: []].append(t) }
        if let t = pendingSourceCopy { sourceCopySamples.append(t) }
        if tracing { trace(r, t0: t0, t1: t1, t2: report.layoutStart, t3: report.layoutEnd, t4: report.compositeEnd, t5: report.presentEnd) }
        return r
    }

    /// Whether this frame's baselines run before its composite (even frames) or after it.
    private var baselineFirst: Bool { baselines && records.count % 2 == 0 }

    /// The baselines of the frame being drawn.
    private var pending: (pixman: Double?, memcpy: Double?, fresh: Double?) = (nil, nil, nil)

    public func laidOut(_ frame: Compositor.Frame) {
        // The baselines run before the composite on even frames and after it on odd ones, so
        // neither side always finds the apps' buffers warm in the cache.
        if baselineFirst { baseline(frame.operations, frame.stats) }
    }

    public func presented(_ report: FrameReport) {}

    /// pixman alone on the frame's operations, a copy of a whole frame, and pixman on sources
    /// drawn here: into `pending`.
    private func baseline(_ operations: [RenderOperation], _ stats: RenderStats) {
        let out = compositor.output
        if scratch?.width != out.width || scratch?.height != out.height {
            scratch = PixelImage(width: out.width, height: out.height)
            scratchCopy = PixelImage(width: out.width, height: out.height)
        }
        if kernelBaselines {
            timeKernels(operations)
        } else {
            let b0 = MonotonicClock.nanoseconds
            PixmanRenderer.replay(operations, into: scratch!, pixmanOnly: true)
            pending.pixman = ms(b0, MonotonicClock.nanoseconds)
        }
        // The copy of a whole frame evicts the caches: measured on every frame of a workload
        // that repaints whole frames anyway, apart (`memcpySamples`) for small repaints,
        // whose next frame it would otherwise find cold.
        if stats.compositedPixels + stats.filledPixels >= out.width * out.height / 2 {
            let m0 = MonotonicClock.nanoseconds
            scratchCopy!.copyBytes(from: out)
            pending.memcpy = ms(m0, MonotonicClock.nanoseconds)
        }
        // An independent baseline: sources of the same sizes drawn here in this frame (as
        // an app would draw them), then pixman alone on them.
        let shade = UInt8(truncatingIfNeeded: records.count * 7)
        var drawn: [Size: PixelImage] = [:]
        // What the operations read is drawn (all of it, for a scaled source): a frame that
        // repaints a strip does not sweep whole sources through the caches.
        for case .composite(let image, _, let transform, _, let rects, let offset, _) in operations {
            let size = Size(width: image.width, height: image.height)
            let s = drawn[size] ?? freshSources[size] ?? PixelImage(width: size.width, height: size.height)
            freshSources[size] = s
            drawn[size] = s
            let whole = Rect(x: 0, y: 0, width: size.width, height: size.height)
            let read = transform == nil ? rects.compactMap { Rect(x: $0.x + offset.x, y: $0.y + offset.y, width: $0.width, height: $0.height).intersection(whole) } : [whole]
            s.fill(read, color: RGB(red: shade, green: 0x40, blue: 0x80))
        }
        let f0 = MonotonicClock.nanoseconds
        PixmanRenderer.replay(operations, into: scratch!, pixmanOnly: true) { drawn[Size(width: $0.width, height: $0.height)]! }
        pending.fresh = ms(f0, MonotonicClock.nanoseconds)
    }

    /// pixman alone, each kernel path and a copy of the scaled sources on this frame, in an
    /// order that turns by one each frame (none always finds the caches as another left them).
    private func timeKernels(_ operations: [RenderOperation]) {
        var sources: [PixelImage] = []
        for case .composite(let image, _, .some, _, _, _, _) in operations where !sources.contains(where: { $0 === image }) {
            sources.append(image)
        }
        let runs: [BoxKernel?] = [nil] + BoxKernel.available
        let turn = records.count % (runs.count + 1)
        for i in 0...runs.count {
            let k = (i + turn) % (runs.count + 1)
            let t0 = MonotonicClock.nanoseconds
            if k == runs.count {
                for s in sources {
                    let size = Size(width: s.stride / 4, height: s.height)
                    let copy = sourceCopies[size] ?? PixelImage(width: size.width, height: size.height)
                    sourceCopies[size] = copy
                    copy.bytes.copyMemory(from: s.bytes, byteCount: s.stride * s.height)
                }
                pendingSourceCopy = ms(t0, MonotonicClock.nanoseconds)
            } else if let kernel = runs[k] {
                PixmanRenderer.replay(operations, into: scratch!, kernel: kernel)
                pendingKernels[kernel] = ms(t0, MonotonicClock.nanoseconds)
            } else {
                PixmanRenderer.replay(operations, into: scratch!, pixmanOnly: true)
                pending.pixman = ms(t0, MonotonicClock.nanoseconds)
            }
        }
    }

    private func ms(_ a: UInt64, _ b: UInt64) -> Double { Double(b &- a) / 1_000_000 }
    private func ms(_ ns: UInt64) -> Double { Double(ns) / 1_000_000 }

    /// Writes what the apps were sent (`Compositor.flushClients`): the wall time it took and
    /// this thread's CPU time in it, in nanoseconds.
    private func writeClients() -> (wall: UInt64, cpu: UInt64) {
        guard compositor.hasUnflushedEvents else { return (0, 0) }
        // The wall clock read inside the CPU clock's reads: a woken app takes the CPU when a
        // system call returns, the CPU clock's own included.
        let c0 = ThreadClock.nanoseconds, w0 = MonotonicClock.nanoseconds
        compositor.flushClients()
        let c1 = ThreadClock.nanoseconds, w1 = MonotonicClock.nanoseconds
        return (w1 &- w0, c1 &- c0)
    }

    private static let tracks = ["input", "apps", "layout", "composite", "present"]

    private func trace(_ r: FrameRecord, t0: UInt64, t1: UInt64, t2: UInt64, t3: UInt64, t4: UInt64, t5: UInt64) {
        func us(_ t: UInt64) -> Double { Double(t &- origin) / 1000 }
        if traceEvents.isEmpty {
            for (i, name) in Self.tracks.enumerated() {
                traceEvents.append(.object([("name", .string("thread_name")), ("ph", .string("M")), ("pid", .int(1)), ("tid", .int(i + 1)), ("args", .object([("name", .string(name))]))]))
            }
        }
        let spans = [(0, t0, t1), (1, t1, t2), (2, t2, t3), (3, t4 - UInt64(r.composite * 1_000_000), t4), (4, t4, t5)]
        for (i, a, b) in spans {
            traceEvents.append(.object([
                ("name", .string(Self.tracks[i])), ("cat", .string("frame")), ("ph", .string("X")), ("pid", .int(1)), ("tid", .int(i + 1)),
                ("ts", .double(us(a))), ("dur", .double(Double(b &- a) / 1000)), ("args", .object([("frame", .int(r.frame))])),
            ]))
        }
        // One track per app: from the round trip's start to its answer.
        for (k, app) in compositor.lastRoundTrip.enumerated() {
            let tid = 100 + k
            if r.frame == 0 {
                traceEvents.append(.object([("name", .string("thread_name")), ("ph", .string("M")), ("pid", .int(1)), ("tid", .int(tid)), ("args", .object([("name", .string("app \(app.label)"))]))]))
            }
            traceEvents.append(.object([
                ("name", .string(app.label)), ("cat", .string("app")), ("ph", .string("X")), ("pid", .int(1)), ("tid", .int(tid)),
                ("ts", .double(us(app.start))), ("dur", .double(Double(app.end &- app.start) / 1000)),
            ]))
        }
    }

    /// Times `count` copies of a whole output frame, apart from any frame (the memcpy
    /// baseline of frames that repaint little: see `frame`).
    public func memcpySamples(_ count: Int) -> [Double] {
        let out = compositor.output
        let a = PixelImage(width: out.width, height: out.height), b = PixelImage(width: out.width, height: out.height)
        b.copyBytes(from: out)
        return (0..<count).map { _ in
            let m0 = MonotonicClock.nanoseconds
            a.copyBytes(from: b)
            return ms(m0, MonotonicClock.nanoseconds)
        }
    }

    /// `frames.json`: every record and the output size.
    public var framesJSON: JSONValue {
        .object([
            ("frames", .array(records.map(\.json))),
            ("output", .object([("width", .int(compositor.output.width)), ("height", .int(compositor.output.height))])),
        ])
    }
}

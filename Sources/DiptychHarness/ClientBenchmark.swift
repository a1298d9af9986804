// SPDX-License-Identifier: MIT
// `diptych profile --workload client --app CMD`: whether an app keeps up with `frameDone`, on
// the wall clock. A pen moves over the app's pane faster than the output refreshes, so the app
// always has a new dot to draw; it draws a frame per `frameDone`. Each refresh of the measured
// time should show a new frame of the app: the figures are the share that did, the time between
// its frames, and (with an allocation counter) the app's heap allocations per frame.

import DiptychCore
import DiptychServer
import DiptychLinux
import Logging

/// What the client workload measured.
public struct ClientBenchResult: Sendable {
    public var app: String
    public var refreshHz: Double
    /// The app's pane in pixels.
    public var paneWidth: Int, paneHeight: Int
    public var seconds: Double
    /// Refreshes in the measured time, and the frames shown with a new commit of the app.
    public var refreshes: Int
    public var appFrames: Int
    /// Milliseconds between the app's successive frames on screen.
    public var intervals: [Double]
    /// The app's heap allocations per frame shown (when an allocation counter was given).
    public var allocationsPerFrame: Double?
    /// The repaint window in effect at the end, in milliseconds.
    public var windowMilliseconds = 0.0

    /// The share of refreshes that showed a new frame of the app.
    public var keptUp: Double { refreshes > 0 ? Double(appFrames) / Double(refreshes) : 0 }

    public var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        return .object([
            ("workload", .string("client")), ("app", .string(app)), ("refresh_hz", r(refreshHz)),
            ("pane", .object([("width", .int(paneWidth)), ("height", .int(paneHeight))])),
            ("seconds", r(seconds)), ("window_ms", r(windowMilliseconds)), ("refreshes", .int(refreshes)), ("app_frames", .int(appFrames)), ("kept_up", r(keptUp)),
            ("interval", LatencyResult.summary(intervals)),
            ("allocations_per_frame", allocationsPerFrame.map { r($0) } ?? .null),
        ])
    }

    public var text: String {
        let q = { (p: Double) in fixed(ProfileResult.quantile(self.intervals, p)) }
        var lines = [
            "client: \(app) in a \(paneWidth)x\(paneHeight) pane at \(fixed(refreshHz, 1)) Hz for \(fixed(seconds, 1)) s, repaint window \(fixed(windowMilliseconds)) ms",
            "new frames of the app: \(appFrames) of \(refreshes) refreshes (\(fixed(keptUp * 100, 1)) %)",
            "between its frames: p50 \(q(0.5)) ms  p99 \(q(0.99)) ms  max \(fixed(intervals.max() ?? 0)) ms (a refresh is \(fixed(1000 / refreshHz)) ms)",
        ]
        if let a = allocationsPerFrame { lines.append("the app's heap allocations per frame: \(fixed(a, 2))") }
        return lines.joined(separator: "\n")
    }
}

public enum ClientBenchmark {
    /// Runs `app` (a command line) full screen, or with `compact` as the secondary in a compact
    /// Split View pane beside notes, on a headless output refreshing at `refreshHz`, for
    /// `seconds` after a second's warm-up. `allocationCounter`: a file whose first 8 bytes
    /// count the app's heap allocations (as Tests/Tools/malloc-count.c keeps it).
    public static func run(
        app: [String], label: String, refreshHz: Double, window: RepaintWindow = .auto, compact: Bool, seconds: Double, allocationCounter: String?,
        logger: Logger, command: (String) throws -> [String]
    ) throws -> ClientBenchResult {
        let compositor = try Compositor.onTheWallClock(arrangement: compact ? .split23 : .full, refreshHz: refreshHz, window: window, logger: logger)
        let refreshHz = Double(compositor.backend.refreshMillihertz) / 1000
        defer { compositor.shutdown(graceMilliseconds: 500) }
        let role: Role = compact ? .secondary : .primary
        if compact { try compositor.launch(try command("notes"), role: .primary, label: "notes") }
        try compositor.launch(app, role: role, label: label)
        // The app in its pane (an interpreter takes a while to say hello), and drawn.
        _ = try compositor.run(timeoutMilliseconds: 20_000) { compositor.client(role) != nil || compositor.disconnections[role] != nil }
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        guard let id = compositor.client(role), let pane = compositor.layout.pane(role) else {
            throw CompositorError("\(label) went away: \(compositor.disconnections[role] ?? "")")
        }

        // The pen loops inside the app's pane, twice a refresh on average.
        let screen = compositor.layout.screen
        let centre = (x: (Double(pane.frame.x) + Double(pane.frame.width) / 2) / Double(screen.width), y: 0.55)
        let reach = (x: 0.35 * Double(pane.frame.width) / Double(screen.width), y: 0.3)
        let pen = try SyntheticPen(hz: 2 * refreshHz, seed: MonotonicClock.nanoseconds | 1, centre: centre, reach: reach)
        try compositor.addInput(pen)
        var commits: [UInt64] = []
        var shown: [(commits: UInt64, at: UInt64)] = []
        var measuring = false
        compositor.hooks.onCommit = { client, stamp in if client == id && measuring { commits.append(stamp) } }
        compositor.hooks.onFrameShown = { stamp, at in if measuring { shown.append((stamp, at)) } }

        let loop = RepaintLoop(compositor: compositor)
        try loop.play(1_000_000_000, while: role)
        let allocations0 = try allocationCounter.map(count)
        measuring = true
        let start = MonotonicClock.nanoseconds
        try loop.play(UInt64(seconds * 1e9), while: role)
        measuring = false
        let end = MonotonicClock.nanoseconds
        let allocations1 = try allocationCounter.map(count)
        guard compositor.client(role) != nil else { throw CompositorError("\(label) went away: \(compositor.disconnections[role] ?? "")") }

        // A frame shows a new frame of the app when one of its commits came after the frame
        // before's newest commit.
        var times: [UInt64] = []
        var c = 0, previous: UInt64 = 0
        for f in shown {
            var fresh = false
            while c < commits.count && commits[c] <= f.commits {
                if commits[c] > previous { fresh = true }
                c += 1
            }
            previous = f.commits
            if fresh { times.append(f.at) }
        }
        let intervals = zip(times, times.dropFirst()).map { Double($1 - $0) / 1_000_000 }
        let elapsed = Double(end - start) / 1e9
        var result = ClientBenchResult(
            app: label, refreshHz: refreshHz, paneWidth: pane.pixelWidth, paneHeight: pane.pixelHeight, seconds: elapsed,
            refreshes: Int((elapsed * refreshHz).rounded()), appFrames: times.count, intervals: intervals)
        result.windowMilliseconds = compositor.repaintWindowMilliseconds
        if let a0 = allocations0, let a1 = allocations1, a1 >= a0, !times.isEmpty { result.allocationsPerFrame = Double(a1 - a0) / Double(times.count) }
        return result
    }

    /// The count in an allocation counter's file.
    static func count(_ path: String) throws -> UInt64 {
        let bytes = try Files.read(path)
        guard bytes.count >= 8 else { throw CompositorError("\(path): not an allocation counter (\(bytes.count) bytes)") }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1)) }
    }
}

// SPDX-License-Identifier: MIT
// What the latency workload measured (`LatencyProfiler`), beside a quiet or a busy neighbour,
// as text, JSON and the targets it checks.

import DiptychCore

/// What the latency workload measured.
public struct LatencyResult: Sendable {
    public var refreshHz: Double
    public var drawMilliseconds: Double
    public var penHz: Double
    /// The window in effect at the end of the run, in milliseconds.
    public var windowMilliseconds: Double
    /// Input-to-present latencies in milliseconds: with the window, and as soon as ready.
    public var latency: [Double]
    public var asap: [Double]
    /// With the window: frames composed at a deadline, and of those, the ones that reached the
    /// screen by the vblank they aimed at.
    public var framesAtDeadline = 0
    public var framesShownAtAimedVblank = 0
    /// Where the frames went: "headless" (a simulated vblank) or the DRM connector.
    public var output = "headless"
    /// Key to app in milliseconds: the compositor's own time from a key (as libinput gives it)
    /// to the event written to the focused app's socket.
    public var keyToApp: [Double] = []
    /// Tap to text: the compositor's own time from a finger lifted off an on-screen keyboard's
    /// key (the touch-up read) to the `textCommit` written to the app's socket.
    public var tapToCommit: [Double] = []
    /// Tap to keyboard: from a finger lifted off a text field (the touch-up read) to the first
    /// frame composed with the keyboard sliding in, and of that the compositor's own part (from
    /// the app's enable naming the tap, read, to that frame).
    public var tapToKeyboard: [Double] = []
    public var enableToKeyboard: [Double] = []
    /// How the run was scheduled: the loop's scheme and how the apps shared the CPU
    /// (`"loop rr, apps by nice"`; see `RealtimeLoop`, `Compositor.cpuShare`).
    public var scheduling = ""
    /// With a neighbour app in the other pane: its frames a second while the pen was measured.
    public var neighbourFramesPerSecond: Double?
    /// `--neighbour busy`: the same figures with a neighbour that burns every core (the run above
    /// had a quiet one).
    public var busy: BusyNeighbour?

    /// The figures of the run beside a busy neighbour.
    public struct BusyNeighbour: Sendable {
        public var latency: [Double]
        public var asap: [Double]
        public var windowMilliseconds: Double
        public var neighbourFramesPerSecond: Double?

        public init(latency: [Double], asap: [Double], windowMilliseconds: Double, neighbourFramesPerSecond: Double?) {
            (self.latency, self.asap, self.windowMilliseconds, self.neighbourFramesPerSecond) = (latency, asap, windowMilliseconds, neighbourFramesPerSecond)
        }
    }

    static func summary(_ values: [Double]) -> JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        return .object([
            ("p50_ms", r(ProfileResult.quantile(values, 0.5))), ("p99_ms", r(ProfileResult.quantile(values, 0.99))),
            ("max_ms", r(values.max() ?? 0)),
        ])
    }

    public var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        return .object([
            ("workload", .string("latency")), ("refresh_hz", r(refreshHz)), ("draw_ms", r(drawMilliseconds)), ("pen_hz", r(penHz)),
            ("samples", .int(latency.count)), ("asap_samples", .int(asap.count)), ("window_ms", r(windowMilliseconds)),
            ("latency", Self.summary(latency)), ("asap", Self.summary(asap)), ("output", .string(output)),
            ("frames_at_deadline", .int(framesAtDeadline)), ("frames_shown_at_aimed_vblank", .int(framesShownAtAimedVblank)),
            ("key_to_app", Self.summary(keyToApp)), ("key_samples", .int(keyToApp.count)),
            ("tap_to_text_commit", Self.summary(tapToCommit)), ("tap_samples", .int(tapToCommit.count)),
            ("tap_to_keyboard", Self.summary(tapToKeyboard)), ("enable_to_keyboard", Self.summary(enableToKeyboard)),
            ("keyboard_samples", .int(tapToKeyboard.count)), ("scheduling", .string(scheduling)),
        ] + (neighbourFramesPerSecond.map { [("neighbour_fps", r($0))] } ?? [])
          + (busy.map { b in [("neighbour", JSONValue.object([
              ("latency", Self.summary(b.latency)), ("asap", Self.summary(b.asap)), ("window_ms", r(b.windowMilliseconds)),
              ("samples", .int(b.latency.count)), ("neighbour_fps", b.neighbourFramesPerSecond.map { r($0) } ?? .null),
          ]))] } ?? []))
    }

    /// The targets: p50 ≤ ½ refresh + D + W + 1 ms, p99 ≤ refresh + D + W + 1 ms, W ≤ 3 ms, p99
    /// below the as-soon-as-ready p99; an on-screen key's touch-up to `textCommit` p99 < 1 ms.
    public var targets: [(String, Bool)] {
        let refresh = 1000 / refreshHz, w = windowMilliseconds, d = drawMilliseconds
        let p50 = ProfileResult.quantile(latency, 0.5), p99 = ProfileResult.quantile(latency, 0.99)
        let asap99 = ProfileResult.quantile(asap, 0.99)
        return [
            ("p50 \(fixed(p50)) ≤ \(fixed(refresh / 2 + d + w + 1)) ms", p50 <= refresh / 2 + d + w + 1),
            ("p99 \(fixed(p99)) ≤ \(fixed(refresh + d + w + 1)) ms", p99 <= refresh + d + w + 1),
            ("window \(fixed(w)) ≤ 3 ms", w <= 3),
            ("p99 \(fixed(p99)) < as soon as ready \(fixed(asap99)) ms", p99 < asap99),
        ] + (tapToCommit.isEmpty ? [] : [("on-screen key to textCommit p99 \(fixed(ProfileResult.quantile(tapToCommit, 0.99))) < 1 ms", ProfileResult.quantile(tapToCommit, 0.99) < 1)])
          + (busy.map { b in
              // Beside the busy neighbour: the same targets, with that run's own window.
              let p50 = ProfileResult.quantile(b.latency, 0.5), p99 = ProfileResult.quantile(b.latency, 0.99), w = b.windowMilliseconds
              return [
                  ("beside a busy neighbour p50 \(fixed(p50)) ≤ \(fixed(refresh / 2 + d + w + 1)) ms", p50 <= refresh / 2 + d + w + 1),
                  ("beside a busy neighbour p99 \(fixed(p99)) ≤ \(fixed(refresh + d + w + 1)) ms", p99 <= refresh + d + w + 1),
              ]
          } ?? [])
    }

    public var text: String {
        func row(_ name: String, _ v: [Double]) -> String {
            let q = { (p: Double) in fixed(ProfileResult.quantile(v, p)) }
            return "\(name)  p50 \(q(0.5)) ms  p99 \(q(0.99)) ms  max \(fixed(v.max() ?? 0)) ms  (\(v.count) pen events)"
        }
        var lines = [
            "latency: pen at \(fixed(penHz, 0)) Hz to the screen through an app drawing \(fixed(drawMilliseconds)) ms a dot; output \(fixed(refreshHz, 1)) Hz",
            row("repaint window \(fixed(windowMilliseconds)) ms:", latency),
            row("as soon as ready:      ", asap),
        ]
        lines.append("frames composed at the deadline shown at the vblank they aimed at: \(framesShownAtAimedVblank) of \(framesAtDeadline) (\(output)); scheduled: \(scheduling)")
        if !keyToApp.isEmpty {
            lines.append("key to app (the compositor's time, keymap to write):  p50 \(fixed(ProfileResult.quantile(keyToApp, 0.5))) ms  p99 \(fixed(ProfileResult.quantile(keyToApp, 0.99))) ms  (\(keyToApp.count) keys)")
        }
        if !tapToCommit.isEmpty {
            lines.append("on-screen key to textCommit (the compositor's time, touch-up to write):  p50 \(fixed(ProfileResult.quantile(tapToCommit, 0.5))) ms  p99 \(fixed(ProfileResult.quantile(tapToCommit, 0.99))) ms  (\(tapToCommit.count) taps)")
        }
        if !tapToKeyboard.isEmpty {
            let q = { (v: [Double], p: Double) in fixed(ProfileResult.quantile(v, p)) }
            lines.append("tap on a field to the keyboard's first frame:  p50 \(q(tapToKeyboard, 0.5)) ms  p99 \(q(tapToKeyboard, 0.99)) ms; the compositor's part (the enable read to that frame): p50 \(q(enableToKeyboard, 0.5)) ms  p99 \(q(enableToKeyboard, 0.99)) ms  (\(tapToKeyboard.count) taps)")
        }
        if let fps = neighbourFramesPerSecond { lines.append("the neighbour (the other pane's app) drew \(fixed(fps, 1)) frames a second meanwhile") }
        if let b = busy {
            let q = { (v: [Double], p: Double) in fixed(ProfileResult.quantile(v, p)) }
            lines.append("beside a busy neighbour (it burns every core): with the window p50 \(q(b.latency, 0.5)) ms  p99 \(q(b.latency, 0.99)) ms; as soon as ready p50 \(q(b.asap, 0.5)) ms  p99 \(q(b.asap, 0.99)) ms; the neighbour drew \(b.neighbourFramesPerSecond.map { fixed($0, 1) } ?? "?") frames a second")
        }
        for (what, met) in targets { lines.append("  \(met ? "met" : "NOT met"): \(what)") }
        return lines.joined(separator: "\n")
    }
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 3) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let v = (value * scale).rounded() / scale
    var s = "\(v)"
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if digits == 0 { s = String(s[..<dot]) } else if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    }
    return s
}

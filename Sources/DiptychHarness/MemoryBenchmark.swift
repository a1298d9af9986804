// SPDX-License-Identifier: MIT
// `diptych profile --workload memory`: whether the compositor's memory comes back after each
// transient. Two real apps on the wall clock (notes full screen, markets beside it), then,
// round after round: a Slide Over swiped in and out, a rotation and
// back, a split's divider snapped both ways, the on-screen keyboard raised, typed on and
// dismissed, and a screenshot. The figures are the compositor's resident memory (this
// process's: the apps are processes of their own) at idle, at its highest, 5 s after each
// round and at the end.

import DiptychCore
import DiptychImage
import DiptychServer
import DiptychLinux
import Logging

/// What the memory workload measured (bytes).
public struct MemoryBenchResult: Sendable {
    public var idle: Int
    public var peak: Int
    /// 5 s after each round's last transient.
    public var afterRounds: [Int]
    public var settleSeconds: Double

    /// The last round's figure less the idle one.
    public var kept: Int { (afterRounds.last ?? idle) - idle }
    /// The highest figure after a round over the idle one.
    public var plateauRatio: Double { Double(afterRounds.max() ?? idle) / Double(max(1, idle)) }

    public var json: JSONValue {
        .object([
            ("workload", .string("memory")), ("idle_bytes", .int(idle)), ("peak_bytes", .int(peak)),
            ("after_rounds_bytes", .array(afterRounds.map { .int($0) })), ("settle_s", .double(settleSeconds)),
            ("kept_bytes", .int(kept)), ("plateau_ratio", .double((plateauRatio * 1000).rounded() / 1000)),
        ])
    }

    public var text: String {
        func mb(_ b: Int) -> String { fixed(Double(b) / 1_048_576, 1) + " MiB" }
        return [
            "memory: the compositor's resident memory, ipad-pro landscape, notes and markets",
            "idle \(mb(idle)), highest \(mb(peak))",
            "\(fixed(settleSeconds, 0)) s after each round (Slide Over in and out, a turn and back, the divider both ways, the keyboard, a screenshot): "
                + afterRounds.map(mb).joined(separator: ", "),
            "kept after the last round: \(mb(kept)); highest after a round: \(fixed(plateauRatio, 2))x idle",
        ].joined(separator: "\n")
    }
}

public enum MemoryBenchmark {
    /// Plays `rounds` rounds of transients, each followed by `settleSeconds` of rest.
    public static func run(rounds: Int, settleSeconds: Double = 5, logger: Logger, command: (String) throws -> [String]) throws -> MemoryBenchResult {
        let compositor = try Compositor.onTheWallClock(arrangement: .full, refreshHz: 60, window: .auto, logger: logger)
        defer { compositor.shutdown(graceMilliseconds: 500) }
        try compositor.launch(try command("notes"), role: .primary, label: "notes")
        try compositor.launch(try command("markets"), role: .secondary, label: "markets")
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        let loop = RepaintLoop(compositor: compositor)
        var peak = 0
        func resident() -> Int {
            let r = Compositor.residentBytes() ?? 0
            peak = max(peak, r)
            return r
        }
        func frames(_ n: Int, _ each: (Int) -> Void = { _ in }) throws {
            for f in 0..<n {
                each(f)
                try loop.play(16_666_667, while: .primary)
                _ = resident()
            }
        }
        func rest(_ seconds: Double) throws { try loop.play(UInt64(seconds * 1e9), while: .primary) }

        try rest(3)
        let idle = resident()
        var after: [Int] = []
        for _ in 0..<rounds {
            // A Slide Over swiped in over the full-screen app, and out.
            let slide = MotionChoreography(.slideOverIn, compositor: compositor)
            try frames(64) { _ = slide.input(frame: $0) }
            // A turn to portrait and back.
            compositor.rotate(to: .portrait)
            try frames(60)
            compositor.rotate(to: .landscape)
            try frames(60)
            // The divider snapped from two thirds to a half and back.
            _ = compositor.arrange(.split23)
            try frames(30)
            let snap = MotionChoreography(.snap, compositor: compositor)
            try frames(128) { _ = snap.input(frame: $0) }
            _ = compositor.arrange(.full)
            try frames(30)
            // The keyboard raised over notes, a key typed, dismissed.
            var keys = KeyboardChoreography(compositor: compositor)
            var raised = false
            for _ in 0..<600 {
                _ = keys.input()
                try frames(1)
                raised = raised || compositor.keyboardShown != nil
                if raised && compositor.keyboardShown == nil && !compositor.keyboardMoving { break }
            }
            // A screenshot, as `ctl screenshot` takes it.
            do {
                let shot = compositor.screenshot(screen: 1)
                _ = resident()
                withExtendedLifetime(shot) {}
            }
            try rest(settleSeconds)
            after.append(resident())
        }
        guard compositor.client(.primary) != nil else { throw CompositorError("notes went away: \(compositor.disconnections[.primary] ?? "")") }
        return MemoryBenchResult(idle: idle, peak: peak, afterRounds: after, settleSeconds: settleSeconds)
    }
}

// SPDX-License-Identifier: MIT
// Momentum, as iOS gives it: the finger's velocity at release (the least-squares slope of its
// last 100 ms), where that velocity would carry a thing with iOS's deceleration rate (the
// projection that chooses a resting place), and how fast a settle may start so that its spring
// overshoots no more than a bound.

/// The finger's recent positions along one axis, for its release velocity.
public struct VelocityTracker: Equatable, Sendable {
    /// Samples (time in ms, position in pt), oldest first; at most `limit`, none older than
    /// `window` before the newest.
    private var samples: [(t: UInt64, x: Double)] = []
    static let window: UInt64 = 100
    static let limit = 32

    public init() {}

    public static func == (a: VelocityTracker, b: VelocityTracker) -> Bool {
        a.samples.elementsEqual(b.samples) { $0.t == $1.t && $0.x == $1.x }
    }

    /// The finger was at `x` at `t`.
    public mutating func add(_ x: Double, at t: UInt64) {
        samples.append((t, x))
        let oldest = t >= Self.window ? t - Self.window : 0
        samples.removeAll { $0.t < oldest }
        if samples.count > Self.limit { samples.removeFirst(samples.count - Self.limit) }
    }

    /// The velocity at `now` in points per millisecond: the least-squares slope of the
    /// samples in the last 100 ms (at least two, at two different times), else 0.
    public func velocity(at now: UInt64) -> Double {
        let oldest = now >= Self.window ? now - Self.window : 0
        let recent = samples.filter { $0.t >= oldest && $0.t <= now }
        guard recent.count >= 2 else { return 0 }
        let n = Double(recent.count)
        let mt = recent.reduce(0.0) { $0 + Double($1.t) } / n
        let mx = recent.reduce(0.0) { $0 + $1.x } / n
        var stt = 0.0, stx = 0.0
        for s in recent {
            let dt = Double(s.t) - mt
            stt += dt * dt
            stx += dt * (s.x - mx)
        }
        return stt > 0 ? stx / stt : 0
    }
}

public enum Momentum {
    /// iOS's normal deceleration rate (per millisecond).
    public static let decelerationRate = 0.998

    /// How far a velocity of `v` points per millisecond carries a thing as it decelerates:
    /// v (pt/s) / 1000 × r / (1 − r), about half a second of it.
    public static func projection(_ v: Double) -> Double {
        let r = decelerationRate
        return v * r / (1 - r)
    }

    /// The overshoot bounds, in points: the divider and the panes it moves; floating windows.
    public static let dividerOvershoot = 8.0
    public static let floatingOvershoot = 24.0

    /// The initial rate (progress per ms, as `Spring.progress` takes it) of a settle over
    /// `distance` points lasting `duration` ms that starts at `velocity` pt/ms, lowered only as
    /// far as needed for the spring to go at most `overshoot` points past its target (or, let
    /// go moving away from it, back past where it was let go).
    public static func initialRate(velocity: Double, distance: Double, duration: UInt64, overshoot: Double) -> Double {
        guard abs(distance) >= 0.5, duration > 0, velocity.isFinite else { return 0 }
        let rate = velocity / distance
        func fits(_ r: Double) -> Bool { Spring.excursion(rate: r, duration: duration) * abs(distance) <= overshoot }
        if fits(rate) { return rate }
        var low = 0.0, high = 1.0
        for _ in 0..<30 {
            let mid = (low + high) / 2
            if fits(rate * mid) { low = mid } else { high = mid }
        }
        return rate * low
    }
}

/// iOS's rubber band: dragged `overdrag` points past a limit, a thing `dimension` points across
/// follows with growing resistance, (1 − 1/(x·0.55/d + 1))·d, never as far as d.
public enum RubberBand {
    public static func offset(_ overdrag: Double, dimension d: Double) -> Double {
        guard overdrag > 0, d > 0 else { return 0 }
        return (1 - 1 / (overdrag * 0.55 / d + 1)) * d
    }

    /// `value` kept in `range`, rubber-banded past either end.
    public static func clamp(_ value: Double, to range: ClosedRange<Double>, dimension d: Double) -> Double {
        if value < range.lowerBound { return range.lowerBound - offset(range.lowerBound - value, dimension: d) }
        if value > range.upperBound { return range.upperBound + offset(value - range.upperBound, dimension: d) }
        return value
    }
}

/// What a finger let go of carries into its settle: its velocity (pt/ms) along the distance
/// (pt, signed) the thing has left to go, and how far it may overshoot.
struct Carried {
    var velocity: Double
    var distance: Double
    var overshoot: Double
}

// SPDX-License-Identifier: MIT
// Motion: how panes move from where a gesture left them to where the shell put them.
// A transition holds the panes as drawn when it began and as they end, and gives the panes of
// any instant between, eased by a critically damped spring. Time is a parameter (virtual in
// scenarios, monotonic in `run`), so the same inputs give the same frames.

/// Motion constants.
public enum MotionMetrics {
    /// How long a settle (snap, pin, dismissal, Slide Over coming to rest) takes.
    public static let settleMilliseconds: UInt64 = 350
    /// How long the cross-fade of a rotation (or a change of emulated device) takes.
    public static let fadeMilliseconds: UInt64 = 300
    /// Under Reduce Motion, how long the cross-fade that stands for a settle takes.
    public static let reducedFadeMilliseconds: UInt64 = 200
    /// A rotation's turn (iPadOS turns in about 400 ms).
    public static let turnMilliseconds: UInt64 = 400
    /// How many times smaller each way a turn's pictures are drawn than the panel.
    public static let turnReduction = 4
    /// The spring's natural frequency times the settle's duration: 8 leaves 0.3% of the
    /// distance at the end, which the normalisation below closes without a jump.
    static let stiffness = 8.0
    /// How far past the right edge a dismissed Slide Over goes, so its shadow leaves too (pt).
    public static let exitMargin = 16
    /// How long an edge touch is held back before it is given to the app (ms).
    public static let edgeHoldMilliseconds: UInt64 = 150
}

/// A critically damped spring: x(t) = 1 − (1 + (ω − u)t)·e^(−ωt), started at the rate u
/// (progress per unit of time: the thing's velocity at the release over the distance left),
/// scaled so that it reaches exactly 1 at the end of the settle. Released at rest (u = 0) it
/// never overshoots; started fast towards its target it may, once, and comes back.
public enum Spring {
    /// Progress (0…1, above 1 while overshooting) `elapsed` milliseconds into a motion of
    /// `duration` milliseconds that starts at `rate` progress per millisecond.
    public static func progress(elapsed: UInt64, duration: UInt64, rate: Double = 0) -> Double {
        guard duration > 0, elapsed < duration else { return 1 }
        let k = MotionMetrics.stiffness
        let t = Double(elapsed) / Double(duration) * k
        let u = rate * Double(duration) / k
        let end = 1 - (1 + (1 - u) * k) * exp(-k)
        return (1 - (1 + (1 - u) * t) * exp(-t)) / end
    }

    /// How far outside its path (a fraction of the distance) a settle of `duration` ms started
    /// at `rate` goes at most: past its target when started fast towards it, back past its start
    /// when started away from it (0: never).
    static func excursion(rate: Double, duration: UInt64) -> Double {
        var most = 0.0
        for i in 0...256 {
            let p = progress(elapsed: UInt64(i) * duration / 256, duration: duration, rate: rate)
            most = max(most, p - 1, -p)
        }
        return most
    }

    /// e^x for the small negative arguments the spring uses, without Foundation (the pure tier
    /// imports none): a scaled Taylor series, accurate to double precision here.
    static func exp(_ x: Double) -> Double {
        // e^x = (e^(x/2^n))^(2^n) with |x/2^n| < 2^-5.
        var n = 0
        var y = x
        while abs(y) > 1.0 / 32 {
            y /= 2
            n += 1
        }
        var term = 1.0, sum = 1.0
        for i in 1...12 {
            term *= y / Double(i)
            sum += term
        }
        for _ in 0..<n { sum *= sum }
        return sum
    }
}

/// Panes moving from one arrangement to another.
public struct Transition: Equatable, Sendable {
    /// The panes as drawn when it began, and where they end (panes leaving the screen end
    /// outside it), in drawing order.
    public var from: [PresentedPane]
    public var to: [PresentedPane]
    public var start: UInt64
    public var duration: UInt64
    /// What the compositor does once the panes are in place (an app that left goes to the
    /// background; the drag's snapshots are let go).
    public var onFinish: [ShellEffect]
    /// The rate the settle starts at (progress per ms): the carried thing's release velocity
    /// over the distance left, clamped for the overshoot (see `Momentum.initialRate`).
    public var rate = 0.0

    public var end: UInt64 { start + duration }

    /// Whether it is still moving at `now`.
    public func isRunning(at now: UInt64) -> Bool { now < end }

    /// The panes at `now`: each pane's edges eased from where they were to where they end;
    /// the Slide Over chrome fades in or out with them.
    public func panes(at now: UInt64) -> [PresentedPane] {
        let p = Spring.progress(elapsed: now >= start ? now - start : 0, duration: duration, rate: rate)
        return to.map { end in
            guard let begin = from.first(where: { $0.app == end.app }) else { return end }
            func mix(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * p).rounded()) }
            var pane = end
            let x0 = mix(begin.frame.minX, end.frame.minX), x1 = mix(begin.frame.maxX, end.frame.maxX)
            // A pane that grows taller (a Slide Over pinned) takes its full height at once: grown
            // gradually it would leave bands beside it that the narrowing primary no longer
            // covers. One that grows shorter (made to float) eases, over the primary.
            let taller = end.frame.height >= begin.frame.height
            let y0 = taller ? end.frame.minY : mix(begin.frame.minY, end.frame.minY)
            let y1 = taller ? end.frame.maxY : mix(begin.frame.maxY, end.frame.maxY)
            pane.frame = Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
            pane.floating = min(1, max(0, begin.floating + (end.floating - begin.floating) * p))
            pane.anchor = begin.anchor
            pane.prefersSnapshots = begin.prefersSnapshots
            pane.blur = begin.blur * max(0, min(1, 1 - p))
            return pane
        }
    }

    /// A transition from the panes drawn now to `target`, for a screen `screenWidth` points
    /// wide: a pane that is not in `target` leaves by the nearer side (a Slide Over past the
    /// right edge with its shadow). Kept in the drawing order of `from`, new panes on top.
    static func between(
        _ from: [PresentedPane], _ target: [PresentedPane], screenWidth w: Int, dividerWidth d: Int, at now: UInt64, onFinish: [ShellEffect]
    ) -> Transition {
        var to: [PresentedPane] = []
        for old in from {
            if let new = target.first(where: { $0.app == old.app }) {
                to.append(new)
                continue
            }
            var gone = old
            let centre = old.frame.minX + old.frame.width / 2
            gone.frame.x = centre >= w / 2 ? w + (old.floating > 0 ? MotionMetrics.exitMargin : d) : -old.frame.width - d
            gone.leaving = true
            to.append(gone)
        }
        to += target.filter { t in !from.contains { $0.app == t.app } }
        return Transition(from: from, to: to, start: now, duration: MotionMetrics.settleMilliseconds, onFinish: onFinish)
    }
}

extension PresentedPane {
    /// The divider drawn between two panes side by side: the gap between the left pane's right
    /// edge and the right pane's left edge, when there is one (a floating Slide Over leaves
    /// none), clipped to the screen.
    public static func divider(between panes: [PresentedPane], screen: Size) -> Rect? {
        guard panes.count == 2 else { return nil }
        // Left to right (every frame asks: without sorting into a new array).
        let (left, right) = panes[1].frame.minX < panes[0].frame.minX ? (panes[1].frame, panes[0].frame) : (panes[0].frame, panes[1].frame)
        let x0 = max(0, left.maxX), x1 = min(screen.width, right.minX)
        guard x1 > x0 else { return nil }
        return Rect(x: x0, y: 0, width: x1 - x0, height: screen.height)
    }
}

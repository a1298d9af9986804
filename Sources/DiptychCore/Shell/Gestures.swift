// SPDX-License-Identifier: MIT
// The shell's gesture recognisers, each a value with its own state and decision:
// the divider drag, a Slide Over dragged (or tapped) by its left edge, and the swipe in from
// the right edge that brings a Slide Over in. The shell routes touches to them.

/// Gesture constants, in points and milliseconds.
public enum GestureMetrics {
    /// A touch this close to the divider (each side) drags it.
    public static let dividerGrab = 12.0
    /// A touch this close to the right edge may swipe a Slide Over in.
    public static let edgeZone = 16.0
    /// How far left that swipe must travel.
    public static let swipeDistance = 48.0
    /// A tap is shorter than this ...
    public static let tapMilliseconds: UInt64 = 300
    /// ... and moves less than this.
    public static let tapSlop = 12.0
    /// The strip along the inside of the Slide Over's left edge that is its edge handle (a
    /// tap pins, a drag moves it): inside it only, so a touch on the primary always reaches
    /// the primary.
    public static let slideOverEdgeStrip = 24.0
    /// The grabber's target at the Slide Over's top centre, width and height.
    public static let grabberTarget = (width: 44.0, height: 30.0)
    /// A drag on the grabber that goes this far up or down before it goes `grabberSideways`
    /// sideways pins the Slide Over.
    public static let grabberPull = 80.0
    public static let grabberSideways = 40.0
}

/// A divider drag in progress.
public struct DividerDrag: Equatable, Sendable {
    /// The divider's left edge when the drag began, in points.
    public var startX: Int
    /// Where the finger is relative to the divider's left edge.
    public var grabOffset: Double
    /// The divider's left edge now, in points (not yet snapped).
    public var x: Double
    public var startArrangement: Arrangement
    /// The finger's recent positions, for its velocity at the release.
    var tracker = VelocityTracker()

    /// A drag grabbed at `fingerX` on the divider at `dividerX` (at `now`).
    init(fingerX: Double, dividerX: Int, arrangement: Arrangement, at now: UInt64 = 0) {
        startX = dividerX
        grabOffset = fingerX - Double(dividerX)
        x = Double(dividerX)
        startArrangement = arrangement
        tracker.add(fingerX, at: now)
    }

    /// The divider follows the finger (at `now`, for its velocity).
    mutating func move(fingerX: Double, at now: UInt64) {
        x = fingerX - grabOffset
        tracker.add(fingerX, at: now)
    }

    /// The screen turned under the drag: the divider keeps its place in proportion to the
    /// width, and a cancelled drag goes back to the divider of the new orientation.
    mutating func reorient(scale: Double, dividerX: Int) {
        x *= scale
        startX = dividerX
    }

    /// The divider's left edge as drawn: whole points, kept on the screen.
    func drawnX(screenWidth: Int, dividerWidth: Int) -> Int {
        min(max(0, Int(x.rounded(.down))), screenWidth - dividerWidth)
    }

    /// Where a released (or cancelled) divider goes.
    enum Outcome: Equatable {
        /// Nearer than half the compact width to the right edge: the secondary leaves.
        case dismissSecondary
        /// In the left quarter: the primary leaves and the secondary takes the screen.
        case dismissPrimary
        /// The nearest split (the one it started from when that is nearest).
        case split(Arrangement)
    }

    /// The contract's snap rule, for a screen `screenWidth` points wide whose splits put the
    /// divider at `splits` (arrangement, divider x), released at `velocity` pt/ms: an app is
    /// dismissed only by where the finger let go (never by a flick alone); otherwise the split
    /// nearest the position the velocity projects to.
    func outcome(
        cancelled: Bool, velocity: Double = 0, screenWidth w: Double, dividerWidth dw: Double, compactWidth c: Double, splits: [(Arrangement, Int)]
    ) -> Outcome {
        let x = cancelled ? Double(startX) : min(max(0, self.x), w - dw)
        if w - (x + dw) < c / 2 { return .dismissSecondary }
        if x < w / 4 { return .dismissPrimary }
        let projected = cancelled ? x : x + Momentum.projection(velocity)
        let nearest = splits.min { abs(Double($0.1) - projected) < abs(Double($1.1) - projected) }
        return .split(nearest?.0 ?? startArrangement)
    }
}

/// A Slide Over held by its left edge or its grabber: dragged right it may be dismissed, tapped
/// on the edge it is pinned, pulled down (or up) by the grabber it is pinned.
public struct SlideOverEdgeDrag: Equatable, Sendable {
    var startX: Double
    var startTime: UInt64
    /// Held by the grabber (not the edge), and where it started vertically.
    var byGrabber = false
    var startY = 0.0
    /// By the grabber: it went `grabberPull` up or down before `grabberSideways` sideways.
    var pulled = false
    /// The farthest the finger got from where it started (a tap stays under the slop).
    var maxMove = 0.0
    /// How far right the Slide Over is pushed now, in points (negative: pulled left of its
    /// place, rubber-banded).
    public private(set) var offset = 0.0
    /// The Slide Over's width, for the rubber band (0: none).
    var width = 0.0
    /// The finger's recent positions, for its velocity at the release.
    var tracker = VelocityTracker()

    init(startX: Double, startTime: UInt64) {
        self.startX = startX
        self.startTime = startTime
        tracker.add(startX, at: startTime)
    }

    mutating func move(fingerX x: Double, y: Double? = nil, at now: UInt64) {
        maxMove = max(maxMove, abs(x - startX))
        offset = x >= startX ? x - startX : -RubberBand.offset(startX - x, dimension: width)
        tracker.add(x, at: now)
        if byGrabber, let y, !pulled, maxMove <= GestureMetrics.grabberSideways, abs(y - startY) > GestureMetrics.grabberPull { pulled = true }
    }

    enum Outcome: Equatable {
        case pin
        case dismiss
        case stay
    }

    /// A tap pins; a release whose left edge, projected with the finger's velocity, is past
    /// W − c/2 dismisses it (a flick to the right does).
    func release(fingerX x: Double, now: UInt64, screenWidth w: Double, compactWidth c: Double) -> Outcome {
        let moved = max(maxMove, abs(x - startX))
        if byGrabber && pulled { return .pin }
        if !byGrabber && now &- startTime < GestureMetrics.tapMilliseconds && moved < GestureMetrics.tapSlop { return .pin }
        let edge = w - c + max(offset, x - startX) + Momentum.projection(velocity(at: now))
        return edge > w - c / 2 ? .dismiss : .stay
    }

    /// The finger's velocity at `now`, pt/ms.
    func velocity(at now: UInt64) -> Double { tracker.velocity(at: now) }
}

/// A touch that began in the right edge zone while a Slide Over could come in: held back from
/// the app under it until the swipe claims it or it is given to the app.
public struct EdgeHold: Equatable, Sendable {
    /// A touch position in points.
    struct Sample: Equatable, Sendable {
        var x: Double
        var y: Double
    }

    /// The app under the finger, which gets the touch if it is not claimed.
    var app: AppID
    var start: Sample
    var startTime: UInt64
    /// The motions held since the `down`, oldest first. At most `sampleLimit` are kept: past
    /// that, the newest replaces the last (an app needs the path's shape, not every sample).
    var motions: [Sample] = []
    static let sampleLimit = 32

    init(app: AppID, x: Double, y: Double, now: UInt64) {
        self.app = app
        start = Sample(x: x, y: y)
        startTime = now
    }

    /// When it is given to the app if nothing else happened.
    var deadline: UInt64 { startTime + MotionMetrics.edgeHoldMilliseconds }

    mutating func hold(x: Double, y: Double) {
        if motions.count >= Self.sampleLimit { motions.removeLast() }
        motions.append(Sample(x: x, y: y))
    }

    /// Whether the finger at `x` has swiped far enough left to bring the Slide Over in.
    func claims(fingerX x: Double) -> Bool { start.x - x >= GestureMetrics.swipeDistance }

    /// Whether the finger left the edge zone other than by swiping in: it moved along the
    /// edge (further than the tap slop, more up or down than left).
    func leftOtherwise(x: Double, y: Double) -> Bool {
        let dy = abs(y - start.y)
        return dy > GestureMetrics.tapSlop && dy > start.x - x
    }
}

/// A Slide Over swiped in and following the finger: its left edge under the finger, never
/// further left than its place.
public struct SlideIn: Equatable, Sendable {
    var fingerX: Double
    /// The finger's recent positions, for its velocity at the release.
    var tracker = VelocityTracker()

    init(fingerX: Double, at now: UInt64) {
        self.fingerX = fingerX
        tracker.add(fingerX, at: now)
    }

    mutating func move(fingerX x: Double, at now: UInt64) {
        fingerX = x
        tracker.add(x, at: now)
    }

    /// The pane's left edge in points on a screen `screenWidth` wide.
    func paneX(screenWidth w: Int, compactWidth c: Int) -> Int {
        min(w, max(w - c, Int(fingerX.rounded(.down))))
    }
}

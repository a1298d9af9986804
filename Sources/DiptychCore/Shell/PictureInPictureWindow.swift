// SPDX-License-Identifier: MIT
// One Picture in Picture window's state (where it rests, its size, its growth and shrink, the
// fingers on it), the controls a tap shows on it and what tapping them asks of the app.

/// What a tap on a window's controls asks its app to do (the event `pipAction`).
public enum PiPAction: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    case playPause = 0, restore = 1, close = 2

    public var name: String {
        switch self {
        case .playPause: "playPause"
        case .restore: "restore"
        case .close: "close"
        }
    }
}

/// The controls a tap shows on a window, and where each lies in it (points from its
/// top-left): close at the top left, back to the app at the top right, play/pause centred.
public enum PiPControl: Int, Sendable, CaseIterable, BitwiseCopyable {
    case close, restore, playPause

    /// The side of a control's glyph and how far the corner ones sit from the edges (points).
    public static let glyph = 24, inset = 10, centreGlyph = 32
    /// A control takes a touch within this distance of its centre (a 44 pt target).
    static let reach = 22.0

    /// The control's glyph in a window of `size` points.
    public func rect(in size: Size) -> Rect {
        let g = Self.glyph, i = Self.inset
        switch self {
        case .close: return Rect(x: i, y: i, width: g, height: g)
        case .restore: return Rect(x: size.width - i - g, y: i, width: g, height: g)
        case .playPause:
            let c = Self.centreGlyph
            return Rect(x: (size.width - c) / 2, y: (size.height - c) / 2, width: c, height: c)
        }
    }

    var action: PiPAction {
        switch self {
        case .close: .close
        case .restore: .restore
        case .playPause: .playPause
        }
    }

    /// The control under a point `x`, `y` points from a window's top-left, if any.
    static func at(x: Double, y: Double, in size: Size) -> PiPControl? {
        allCases.first { c in
            let r = c.rect(in: size)
            let dx = x - (Double(r.x) + Double(r.width) / 2), dy = y - (Double(r.y) + Double(r.height) / 2)
            return abs(dx) <= reach && abs(dy) <= reach
        }
    }
}

/// One app's Picture in Picture window.
public struct PiPWindow: Sendable {
    public var app: AppID
    /// The size of the buffer it shows, in pixels (the window takes its aspect).
    public var bufferSize: Size
    /// The corner it rests in (or settles towards); stashed, the side and height it hides at.
    public var corner: ScreenCorner
    /// Whether the app says its video plays (the play/pause control shows pause then).
    public var playing = true
    /// Slid off at the side of `corner`, a 16 pt tab showing.
    public internal(set) var stashed = false
    /// The width a pinch gave it, in points (nil: the usual quarter of the screen).
    public internal(set) var width: Double?
    /// Until when its controls show (ms).
    var controlsUntil: UInt64 = 0
    /// Growing out of this rectangle (points) since `start` (opened), or shrinking into it
    /// from where it was (closing; it goes once there).
    var growth: (from: Rect, start: UInt64)?
    var closing: (into: Rect, from: Rect, start: UInt64)?
    /// A finger holding it: the touch and the grab point inside the window (points).
    var held: (id: Contact, dx: Double, dy: Double)?
    /// Where the holding finger went down and whether it has travelled (a tap has not).
    var press: (x: Double, y: Double, moved: Bool)?
    /// A second finger pinching it: its touch, the fingers' distance and the width then, and
    /// the window's centre.
    var pinch: (id: Contact, distance: Double, width: Double, centre: (x: Double, y: Double))?
    /// The fingers on it now (points), for the pinch.
    var fingers: [Contact: (x: Double, y: Double)] = [:]
    /// Where its top-left is while held, in points.
    var position: (x: Double, y: Double) = (0, 0)
    /// Settling into `corner` from `from` since `start`, each axis starting at its rate (the
    /// finger's velocity carried on; see `Momentum.initialRate`).
    var settle: (from: (x: Double, y: Double), start: UInt64, rate: (x: Double, y: Double))?
    /// The holding finger's recent positions, for its velocity at the release.
    var tracks = (x: VelocityTracker(), y: VelocityTracker())

    /// Whether its controls show at `now`.
    public func showsControls(at now: UInt64) -> Bool { now < controlsUntil && closing == nil }
}

/// What a touch on a window came to when it lifted.
public enum PiPTouchEnd: Equatable, Sendable {
    /// Moved, pinched, or toggled the controls: the window's business alone.
    case handled
    /// Tapped one of the controls: the app is told.
    case action(AppID, PiPAction)
}

/// A window as one frame shows it.
public struct PiPShown: Sendable {
    public var app: AppID
    public var frame: Rect
    /// Its controls show (and whether the play/pause one says pause).
    public var controls: Bool
    public var playing: Bool
    /// Stashed at the left (true) or right (false) side: its tab shows there.
    public var stashedLeft: Bool?
    /// Shrinking back into its app (it shows the last picture it had).
    public var closing: Bool
}

/// Where the video a window grows out of and shrinks into lies.
extension PictureInPicture {
    /// Where an app's video is on screen (points): `source` (the app's `sourceRect`, in its pane
    /// as it was when given, `given`) placed in `pane`, scaled with the pane when it changed size
    /// since, cut to the pane; without one (or one wholly outside the pane), a small rectangle
    /// at the pane's centre.
    public static func videoRect(_ source: Rect?, given: Rect?, pane: Rect) -> Rect {
        if var r = source {
            if let g = given, g.size != pane.size, g.width > 0, g.height > 0 {
                // The app is back in a pane of another size (full screen where it was split):
                // its video is where it would be, in proportion.
                func scale(_ v: Int, _ to: Int, _ from: Int) -> Int { v * to / from }
                r = Rect(x: scale(r.x, pane.width, g.width), y: scale(r.y, pane.height, g.height),
                         width: scale(r.width, pane.width, g.width), height: scale(r.height, pane.height, g.height))
            }
            if let placed = Rect(x: pane.x + r.x, y: pane.y + r.y, width: r.width, height: r.height).intersection(pane), !placed.isEmpty {
                return placed
            }
        }
        let w = max(1, pane.width / 8), h = max(1, pane.width / 14)
        return Rect(x: pane.x + (pane.width - w) / 2, y: pane.y + (pane.height - h) / 2, width: w, height: h)
    }

    /// The largest rectangle of `buffer`'s aspect centred in `r` (the picture as the app shows
    /// it in its video rectangle: the window grows and shrinks without distorting it).
    static func fitted(_ buffer: Size, in r: Rect) -> Rect {
        guard buffer.width > 0, buffer.height > 0 else { return r }
        var w = r.width, h = r.width * buffer.height / buffer.width
        if h > r.height { (w, h) = (r.height * buffer.width / buffer.height, r.height) }
        return Rect(x: r.x + (r.width - w) / 2, y: r.y + (r.height - h) / 2, width: max(1, w), height: max(1, h))
    }
}

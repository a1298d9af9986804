// SPDX-License-Identifier: MIT
// Picture in Picture: the floating windows apps open over both panes, where they sit
// (a corner, 10 pt in from the edges and below the status bar), how big they are (about a
// quarter of the screen wide, with their buffer's aspect), and the drag that moves one and
// settles it in the nearest corner with the §9 spring. Pure: the screen and the time come in
// as parameters, so a drag replays exactly in tests.

/// A corner of the screen.
public enum ScreenCorner: Int, Sendable, CaseIterable {
    case topLeft, topRight, bottomLeft, bottomRight

    var isLeft: Bool { self == .topLeft || self == .bottomLeft }
    var isTop: Bool { self == .topLeft || self == .topRight }

    /// The corner of the quarter of `screen` that holds the point (x, y).
    static func nearest(x: Double, y: Double, screen: Size) -> ScreenCorner {
        let left = x < Double(screen.width) / 2, top = y < Double(screen.height) / 2
        return top ? (left ? .topLeft : .topRight) : (left ? .bottomLeft : .bottomRight)
    }
}

/// The space Picture in Picture windows live in: the logical screen in points, its scale, and
/// how far down the top corners sit (below the status bar when it is drawn).
public struct PiPSpace: Equatable, Sendable {
    public var screen: Size
    public var scale: Int
    public var topInset: Int

    public init(screen: Size, scale: Int, topInset: Int) {
        self.screen = screen
        self.scale = scale
        self.topInset = topInset
    }
}

/// One app's Picture in Picture window.
public struct PiPWindow: Sendable {
    public var app: AppID
    /// The size of the buffer it shows, in pixels (the window takes its aspect).
    public var bufferSize: Size
    /// The corner it rests in (or settles towards).
    public var corner: ScreenCorner
    /// A finger holding it: the touch and the grab point inside the window (points).
    var held: (id: Int32, dx: Double, dy: Double)?
    /// Where its top-left is while held, in points.
    var position: (x: Double, y: Double) = (0, 0)
    /// Settling into `corner` from `from` since `start`, each axis starting at its rate (the
    /// finger's velocity carried on; see `Momentum.initialRate`).
    var settle: (from: (x: Double, y: Double), start: UInt64, rate: (x: Double, y: Double))?
    /// The holding finger's recent positions, for its velocity at the release.
    var tracks = (x: VelocityTracker(), y: VelocityTracker())
}

/// Picture in Picture windows, bottom to top, and the touches that hold them.
public struct PictureInPicture: Sendable {
    /// Inset from the screen's edges (and below the status bar), in points.
    public static let margin = 10
    /// The share of the screen's width a window takes.
    public static let widthShare = 0.25
    /// A buffer whose natural width (its pixels over the scale) is within this share of the
    /// screen's width is shown pixel for pixel.
    static let naturalShare = 0.2...0.3
    /// The most extreme aspect ratio a Picture in Picture buffer may have.
    public static let maxAspect = 4.0
    /// The smallest side of a Picture in Picture buffer, in pixels.
    public static let minSide = 16

    public private(set) var windows: [PiPWindow] = []

    public init() {}

    /// Whether a buffer of `size` pixels may be shown in a window on a screen whose longer side
    /// is `longestSide` pixels; the reason when not.
    public static func refusal(bufferSize size: Size, longestSide: Int) -> String? {
        let (w, h) = (size.width, size.height)
        if w < minSide || h < minSide { return "a Picture in Picture buffer of \(w)×\(h) px is smaller than \(minSide) px on a side" }
        if w > longestSide || h > longestSide {
            return "a Picture in Picture buffer of \(w)×\(h) px is larger than the screen (\(longestSide) px on its longer side)"
        }
        if Double(max(w, h)) > maxAspect * Double(min(w, h)) {
            return "a Picture in Picture buffer of \(w)×\(h) px is more elongated than 1:\(Int(maxAspect))"
        }
        return nil
    }

    /// Opens a window for `app` showing a buffer of `bufferSize`, in the first free corner
    /// (bottom right, then top right, bottom left, top left), or updates the size of the one
    /// it has. Returns whether it was opened now.
    @discardableResult
    public mutating func show(_ app: AppID, bufferSize: Size) -> Bool {
        if let i = windows.firstIndex(where: { $0.app == app }) {
            windows[i].bufferSize = bufferSize
            return false
        }
        let taken = Set(windows.map(\.corner))
        let corner = [ScreenCorner.bottomRight, .topRight, .bottomLeft, .topLeft].first { !taken.contains($0) } ?? .bottomRight
        windows.append(PiPWindow(app: app, bufferSize: bufferSize, corner: corner))
        return true
    }

    /// Closes the app's window, if it has one; returns whether it had.
    @discardableResult
    public mutating func close(_ app: AppID) -> Bool {
        guard let i = windows.firstIndex(where: { $0.app == app }) else { return false }
        windows.remove(at: i)
        return true
    }

    // MARK: - Geometry

    /// A window's size in points: its buffer pixel for pixel when that is about a quarter of
    /// the screen wide, else scaled to a quarter of the width (and to at most half the height).
    public static func size(of buffer: Size, in space: PiPSpace) -> Size {
        let s = Double(max(1, space.scale))
        let naturalW = Double(buffer.width) / s, naturalH = Double(buffer.height) / s
        let screenW = Double(space.screen.width), screenH = Double(space.screen.height)
        if naturalShare.contains(naturalW / screenW) && naturalH <= screenH / 2 {
            return Size(width: Int(naturalW.rounded()), height: Int(naturalH.rounded()))
        }
        var w = screenW * widthShare
        var h = w * Double(buffer.height) / Double(max(1, buffer.width))
        if h > screenH / 2 {
            h = screenH / 2
            w = h * Double(buffer.width) / Double(max(1, buffer.height))
        }
        return Size(width: max(1, Int(w.rounded())), height: max(1, Int(h.rounded())))
    }

    /// Where a window of `size` rests in `corner`, in points.
    public static func home(_ corner: ScreenCorner, size: Size, in space: PiPSpace) -> (x: Double, y: Double) {
        let m = Double(margin)
        let x = corner.isLeft ? m : Double(space.screen.width - size.width) - m
        let y = corner.isTop ? Double(space.topInset) + m : Double(space.screen.height - size.height) - m
        return (x, y)
    }

    /// A window's frame as drawn at `now`, in points: at rest in its corner, following a
    /// finger, or settling.
    public func frame(of w: PiPWindow, in space: PiPSpace, at now: UInt64) -> Rect {
        let size = Self.size(of: w.bufferSize, in: space)
        let home = Self.home(w.corner, size: size, in: space)
        var p = home
        if w.held != nil {
            p = w.position
        } else if let s = w.settle, now < s.start + MotionMetrics.settleMilliseconds {
            let elapsed = now >= s.start ? now - s.start : 0
            let tx = Spring.progress(elapsed: elapsed, duration: MotionMetrics.settleMilliseconds, rate: s.rate.x)
            let ty = Spring.progress(elapsed: elapsed, duration: MotionMetrics.settleMilliseconds, rate: s.rate.y)
            p = (s.from.x + (home.x - s.from.x) * tx, s.from.y + (home.y - s.from.y) * ty)
        }
        return Rect(x: Int(p.x.rounded()), y: Int(p.y.rounded()), width: size.width, height: size.height)
    }

    /// Every window's frame at `now`, bottom to top.
    public func frames(in space: PiPSpace, at now: UInt64) -> [(app: AppID, frame: Rect)] {
        windows.map { ($0.app, frame(of: $0, in: space, at: now)) }
    }

    /// Whether a window is settling at `now`.
    public func isSettling(at now: UInt64) -> Bool {
        windows.contains { w in w.settle.map { now < $0.start + MotionMetrics.settleMilliseconds } ?? false }
    }

    /// Whether a finger holds a window.
    public var isHeld: Bool { windows.contains { $0.held != nil } }

    // MARK: - Touches

    /// Whether touch `id` holds a window.
    public func holds(_ id: Int32) -> Bool { windows.contains { $0.held?.id == id } }

    /// A finger went down at (x, y) points: the topmost window under it is picked up (and
    /// the touch is the window's, never an app's). Returns whether a window took it.
    public mutating func touchDown(id: Int32, x: Double, y: Double, in space: PiPSpace, now: UInt64) -> Bool {
        for i in windows.indices.reversed() where windows[i].held == nil {
            let f = frame(of: windows[i], in: space, at: now)
            guard f.contains(x: x, y: y) else { continue }
            windows[i].held = (id, x - Double(f.x), y - Double(f.y))
            windows[i].position = (Double(f.x), Double(f.y))
            windows[i].settle = nil
            windows[i].tracks = (VelocityTracker(), VelocityTracker())
            windows[i].tracks.x.add(x, at: now)
            windows[i].tracks.y.add(y, at: now)
            // The window picked up is drawn on top.
            windows.append(windows.remove(at: i))
            return true
        }
        return false
    }

    /// The finger holding a window moved: the window follows it, kept on the screen. Returns
    /// whether the touch is a window's.
    public mutating func touchMotion(id: Int32, x: Double, y: Double, in space: PiPSpace, now: UInt64) -> Bool {
        guard let i = windows.firstIndex(where: { $0.held?.id == id }), let h = windows[i].held else { return false }
        windows[i].tracks.x.add(x, at: now)
        windows[i].tracks.y.add(y, at: now)
        let size = Self.size(of: windows[i].bufferSize, in: space)
        let maxX = Double(space.screen.width - size.width), maxY = Double(space.screen.height - size.height)
        // Past a screen edge it follows with growing resistance (iOS's rubber band).
        windows[i].position = (
            RubberBand.clamp(x - h.dx, to: 0...max(0, maxX), dimension: Double(size.width)),
            RubberBand.clamp(y - h.dy, to: 0...max(0, maxY), dimension: Double(size.height))
        )
        return true
    }

    /// The finger holding a window lifted (or was cancelled): the window settles into the
    /// corner nearest where its centre is flung (its position projected with the finger's
    /// velocity), carrying that velocity. Returns whether the touch was a window's.
    public mutating func touchUp(id: Int32, x: Double, y: Double, in space: PiPSpace, now: UInt64, cancelled: Bool) -> Bool {
        guard let i = windows.firstIndex(where: { $0.held?.id == id }) else { return false }
        if !cancelled { _ = touchMotion(id: id, x: x, y: y, in: space, now: now) }
        let size = Self.size(of: windows[i].bufferSize, in: space)
        let p = windows[i].position
        let v = cancelled ? (x: 0.0, y: 0.0) : (x: windows[i].tracks.x.velocity(at: now), y: windows[i].tracks.y.velocity(at: now))
        let centre = (x: p.x + Double(size.width) / 2 + Momentum.projection(v.x), y: p.y + Double(size.height) / 2 + Momentum.projection(v.y))
        windows[i].held = nil
        windows[i].corner = ScreenCorner.nearest(
            x: min(max(0, centre.x), Double(space.screen.width)), y: min(max(0, centre.y), Double(space.screen.height)), screen: space.screen)
        let home = Self.home(windows[i].corner, size: size, in: space)
        let d = MotionMetrics.settleMilliseconds, bound = Momentum.floatingOvershoot
        windows[i].settle = (
            p, now,
            (Momentum.initialRate(velocity: v.x, distance: home.x - p.x, duration: d, overshoot: bound),
             Momentum.initialRate(velocity: v.y, distance: home.y - p.y, duration: d, overshoot: bound))
        )
        return true
    }

    /// Lets go of every held window where it is and stops settles (a rotation): windows sit
    /// in their corners. Returns the touches that were holding windows.
    public mutating func rest() -> [Int32] {
        var ids: [Int32] = []
        for i in windows.indices {
            if let h = windows[i].held { ids.append(h.id) }
            windows[i].held = nil
            windows[i].settle = nil
        }
        return ids
    }
}

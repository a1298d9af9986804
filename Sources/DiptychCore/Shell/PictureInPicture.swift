// SPDX-License-Identifier: MIT
// Picture in Picture: the floating windows apps open over both panes, where they sit
// (a corner, 10 pt in from the edges and below the status bar, or stashed at a side with a
// 16 pt tab showing), how big they are (about a quarter of the screen wide with their buffer's
// aspect, pinched between a quarter and a half), how they grow out of the app's video and shrink
// back into it, the controls a tap shows, and the drag that moves one and settles it in the
// corner it is flung towards. Pure: the screen and the time come in as parameters, so a gesture
// replays exactly in tests.

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

/// Picture in Picture windows, bottom to top, and the touches that hold them.
public struct PictureInPicture: Sendable {
    /// Inset from the screen's edges (and below the status bar), in points.
    public static let margin = 10
    /// The share of the screen's width a window takes, and how far a pinch may take it.
    public static let widthShare = 0.25
    public static let pinchShares = 0.25...0.5
    /// What shows of a stashed window at the screen's side, in points.
    public static let tab = 16
    /// How long a tap shows the controls (ms).
    public static let controlsMilliseconds: UInt64 = 3000
    /// How long the window takes to grow out of the app's video or shrink back (ms).
    public static let growMilliseconds = MotionMetrics.settleMilliseconds
    /// A finger that travels this far (points) drags; less is a tap.
    static let tapSlop = 10.0
    /// A buffer whose natural width (its pixels over the scale) is within this share of the
    /// screen's width is shown pixel for pixel.
    static let naturalShare = 0.2...0.3
    /// The most extreme aspect ratio a Picture in Picture buffer may have.
    public static let maxAspect = 4.0
    /// The smallest side of a Picture in Picture buffer, in pixels.
    public static let minSide = 16

    public private(set) var windows: [PiPWindow] = []
    /// iOS's Reduce Motion: a window let go is at its resting place at once (the compositor
    /// cross-fades), and none grows or shrinks.
    public var reduceMotion = false

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
    /// (bottom right, then top right, bottom left, top left), growing out of `source` (points)
    /// from `now`, or updates the size and the playing state of the one it has. Returns
    /// whether it was opened now.
    @discardableResult
    public mutating func show(_ app: AppID, bufferSize: Size, playing: Bool = true, from source: Rect? = nil, at now: UInt64 = 0) -> Bool {
        if let i = windows.firstIndex(where: { $0.app == app && $0.closing == nil }) {
            windows[i].bufferSize = bufferSize
            windows[i].playing = playing
            return false
        }
        // A window still shrinking away makes room for the new one.
        windows.removeAll { $0.app == app }
        let taken = Set(windows.map(\.corner))
        let corner = [ScreenCorner.bottomRight, .topRight, .bottomLeft, .topLeft].first { !taken.contains($0) } ?? .bottomRight
        var w = PiPWindow(app: app, bufferSize: bufferSize, corner: corner, playing: playing)
        if let source, !source.isEmpty, !reduceMotion { w.growth = (Self.fitted(bufferSize, in: source), now) }
        windows.append(w)
        return true
    }

    /// Closes the app's window, if it has one; returns whether it had. With `into` (points:
    /// the app's video on screen, the app back) it shrinks into it from `now` and goes then;
    /// else it goes at once.
    @discardableResult
    public mutating func close(_ app: AppID, into: Rect? = nil, in space: PiPSpace? = nil, at now: UInt64 = 0) -> Bool {
        guard let i = windows.firstIndex(where: { $0.app == app && $0.closing == nil }) else {
            windows.removeAll { $0.app == app }
            return false
        }
        if let into, !into.isEmpty, let space, !reduceMotion {
            windows[i].closing = (Self.fitted(windows[i].bufferSize, in: into), frame(of: windows[i], in: space, at: now), now)
            windows[i].held = nil
            windows[i].pinch = nil
        } else {
            windows.remove(at: i)
        }
        return true
    }

    /// Drops the windows whose shrinking ended by `now`; returns whether any went.
    public mutating func prune(at now: UInt64) -> Bool {
        let before = windows.count
        windows.removeAll { w in w.closing.map { now >= $0.start + Self.growMilliseconds } ?? false }
        return windows.count != before
    }

    // MARK: - Geometry

    /// A window's size in points: its buffer pixel for pixel when that is about a quarter of
    /// the screen wide, else scaled to a quarter of the width (and to at most half the height).
    public static func size(of buffer: Size, in space: PiPSpace) -> Size {
        let s = Double(max(1, space.scale))
        let naturalW = Double(buffer.width) / s, naturalH = Double(buffer.height) / s
        let screenW = Double(space.screen.width)
        if naturalShare.contains(naturalW / screenW) && naturalH <= Double(space.screen.height) / 2 {
            return Size(width: Int(naturalW.rounded()), height: Int(naturalH.rounded()))
        }
        return size(of: buffer, width: screenW * widthShare, in: space)
    }

    /// A window `width` points wide with the buffer's aspect, at most half the screen tall.
    static func size(of buffer: Size, width: Double, in space: PiPSpace) -> Size {
        var w = width
        var h = w * Double(buffer.height) / Double(max(1, buffer.width))
        let screenH = Double(space.screen.height)
        if h > screenH / 2 {
            h = screenH / 2
            w = h * Double(buffer.width) / Double(max(1, buffer.height))
        }
        return Size(width: max(1, Int(w.rounded())), height: max(1, Int(h.rounded())))
    }

    /// A window's size in points (what a pinch made it, else the usual).
    public static func size(of w: PiPWindow, in space: PiPSpace) -> Size {
        guard let width = w.width else { return size(of: w.bufferSize, in: space) }
        return size(of: w.bufferSize, width: width, in: space)
    }

    /// The widths a pinch may give a window on `space`'s screen (points).
    static func pinchWidths(in space: PiPSpace) -> ClosedRange<Double> {
        let w = Double(space.screen.width)
        return w * pinchShares.lowerBound...w * pinchShares.upperBound
    }

    /// Where a window of `size` rests in `corner`, in points.
    public static func home(_ corner: ScreenCorner, size: Size, in space: PiPSpace) -> (x: Double, y: Double) {
        let m = Double(margin)
        let x = corner.isLeft ? m : Double(space.screen.width - size.width) - m
        let y = corner.isTop ? Double(space.topInset) + m : Double(space.screen.height - size.height) - m
        return (x, y)
    }

    /// Where a window rests: its corner, or stashed off that side with the tab showing.
    static func home(of w: PiPWindow, size: Size, in space: PiPSpace) -> (x: Double, y: Double) {
        var p = home(w.corner, size: size, in: space)
        if w.stashed { p.x = w.corner.isLeft ? Double(tab - size.width) : Double(space.screen.width - tab) }
        return p
    }

    /// A window's frame as drawn at `now`, in points: at rest, following a finger, settling,
    /// growing out of its app's video or shrinking back into it.
    public func frame(of w: PiPWindow, in space: PiPSpace, at now: UInt64) -> Rect {
        let size = Self.size(of: w, in: space)
        let home = Self.home(of: w, size: size, in: space)
        var p = home
        if w.held != nil {
            p = w.position
        } else if let s = w.settle, now < s.start + MotionMetrics.settleMilliseconds {
            let elapsed = now >= s.start ? now - s.start : 0
            let tx = Spring.progress(elapsed: elapsed, duration: MotionMetrics.settleMilliseconds, rate: s.rate.x)
            let ty = Spring.progress(elapsed: elapsed, duration: MotionMetrics.settleMilliseconds, rate: s.rate.y)
            p = (s.from.x + (home.x - s.from.x) * tx, s.from.y + (home.y - s.from.y) * ty)
        }
        let rest = Rect(x: Int(p.x.rounded()), y: Int(p.y.rounded()), width: size.width, height: size.height)
        if let c = w.closing { return Self.between(c.from, c.into, Self.progress(since: c.start, at: now)) }
        if let g = w.growth, now < g.start + Self.growMilliseconds { return Self.between(g.from, rest, Self.progress(since: g.start, at: now)) }
        return rest
    }

    /// How far a growth or a shrink begun at `start` is at `now` (0…1, the window's spring).
    static func progress(since start: UInt64, at now: UInt64) -> Double {
        min(1, Spring.progress(elapsed: now >= start ? now - start : 0, duration: growMilliseconds))
    }

    /// The rectangle `t` of the way from `a` to `b`.
    static func between(_ a: Rect, _ b: Rect, _ t: Double) -> Rect {
        func mix(_ u: Int, _ v: Int) -> Int { Int((Double(u) + Double(v - u) * t).rounded()) }
        return Rect(x: mix(a.x, b.x), y: mix(a.y, b.y), width: max(1, mix(a.width, b.width)), height: max(1, mix(a.height, b.height)))
    }

    /// Every window's frame at `now`, bottom to top.
    public func frames(in space: PiPSpace, at now: UInt64) -> [(app: AppID, frame: Rect)] {
        windows.map { ($0.app, frame(of: $0, in: space, at: now)) }
    }

    /// Every window as a frame at `now` shows it, bottom to top.
    public func shown(in space: PiPSpace, at now: UInt64) -> [PiPShown] {
        windows.map { w in
            PiPShown(
                app: w.app, frame: frame(of: w, in: space, at: now), controls: w.showsControls(at: now), playing: w.playing,
                stashedLeft: w.stashed && w.held == nil ? w.corner.isLeft : nil, closing: w.closing != nil)
        }
    }

    /// Whether a window moves by itself at `now` (settling, growing or shrinking).
    public func isSettling(at now: UInt64) -> Bool {
        windows.contains { w in
            if let s = w.settle, now < s.start + MotionMetrics.settleMilliseconds { return true }
            if let g = w.growth, now < g.start + Self.growMilliseconds { return true }
            return w.closing != nil
        }
    }

    /// Whether a finger holds a window.
    public var isHeld: Bool { windows.contains { $0.held != nil } }

    /// When the next window's controls hide (ms), if any show at `now`.
    public func controlsDeadline(after now: UInt64) -> UInt64? {
        windows.lazy.map(\.controlsUntil).filter { $0 > now }.min()
    }

    // MARK: - Touches

    /// Whether touch `id` holds a window.
    public func holds(_ id: Contact) -> Bool { windows.contains { $0.held?.id == id || $0.pinch?.id == id } }

    /// A finger went down at (x, y) points: the topmost window under it is picked up (and
    /// the touch is the window's, never an app's); a second finger on a held window pinches it.
    /// Returns whether a window took it.
    public mutating func touchDown(id: Contact, x: Double, y: Double, in space: PiPSpace, now: UInt64) -> Bool {
        for i in windows.indices.reversed() where windows[i].closing == nil {
            let f = frame(of: windows[i], in: space, at: now)
            guard f.contains(x: x, y: y) else { continue }
            if let h = windows[i].held {
                // A second finger: the pinch resizes the window about its centre.
                guard windows[i].pinch == nil, let other = windows[i].fingers[h.id] else { return true }
                let size = Self.size(of: windows[i], in: space)
                let centre = (x: windows[i].position.x + Double(size.width) / 2, y: windows[i].position.y + Double(size.height) / 2)
                windows[i].pinch = (id, max(1, Self.distance(other, (x, y))), Double(size.width), centre)
                windows[i].fingers[id] = (x, y)
                windows[i].press?.moved = true
                return true
            }
            windows[i].held = (id, x - Double(f.x), y - Double(f.y))
            windows[i].press = (x, y, false)
            windows[i].fingers = [id: (x, y)]
            windows[i].position = (Double(f.x), Double(f.y))
            windows[i].settle = nil
            windows[i].growth = nil
            windows[i].tracks = (VelocityTracker(), VelocityTracker())
            windows[i].tracks.x.add(x, at: now)
            windows[i].tracks.y.add(y, at: now)
            // The window picked up is drawn on top.
            windows.append(windows.remove(at: i))
            return true
        }
        return false
    }

    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    /// A finger on a window moved: the window follows it, kept on the screen (or a pinch
    /// resizes it). Returns whether the touch is a window's.
    public mutating func touchMotion(id: Contact, x: Double, y: Double, in space: PiPSpace, now: UInt64) -> Bool {
        guard let i = windows.firstIndex(where: { $0.held?.id == id || $0.pinch?.id == id }), let h = windows[i].held else { return false }
        windows[i].fingers[id] = (x, y)
        if let p = windows[i].pinch {
            // Both fingers: the width follows their spread, within a quarter and a half of the
            // screen; the centre stays.
            guard let a = windows[i].fingers[h.id], let b = windows[i].fingers[p.id] else { return true }
            let range = Self.pinchWidths(in: space)
            windows[i].width = min(range.upperBound, max(range.lowerBound, p.width * Self.distance(a, b) / p.distance))
            let size = Self.size(of: windows[i], in: space)
            windows[i].position = (p.centre.x - Double(size.width) / 2, p.centre.y - Double(size.height) / 2)
            return true
        }
        guard id == h.id else { return true }
        if let p = windows[i].press, !p.moved, Self.distance((p.x, p.y), (x, y)) > Self.tapSlop {
            windows[i].press?.moved = true
            // A drag hides the controls.
            windows[i].controlsUntil = 0
        }
        windows[i].tracks.x.add(x, at: now)
        windows[i].tracks.y.add(y, at: now)
        let size = Self.size(of: windows[i], in: space)
        let maxX = Double(space.screen.width - size.width), maxY = Double(space.screen.height - size.height)
        // Past a screen edge it follows with growing resistance (iOS's rubber band).
        windows[i].position = (
            RubberBand.clamp(x - h.dx, to: 0...max(0, maxX), dimension: Double(size.width)),
            RubberBand.clamp(y - h.dy, to: 0...max(0, maxY), dimension: Double(size.height))
        )
        return true
    }

    /// A finger on a window lifted (or was cancelled). A tap on a stashed window brings it
    /// back; a tap on a control is that control's action; another tap shows the controls for
    /// 3 s (or hides them). A drag settles into the corner nearest where the window's centre is
    /// flung (its position projected with the finger's velocity), carrying that velocity, or
    /// stashes it when flung off a side by more than half its width. Returns nil when the touch
    /// was not a window's.
    public mutating func touchUp(id: Contact, x: Double, y: Double, in space: PiPSpace, now: UInt64, cancelled: Bool) -> PiPTouchEnd? {
        guard let i = windows.firstIndex(where: { $0.held?.id == id || $0.pinch?.id == id }), let h = windows[i].held else { return nil }
        if windows[i].pinch != nil {
            // Either finger lifting ends the pinch: the window rests at its new size (the other
            // finger stays the window's until it lifts).
            windows[i].pinch = nil
            return release(i, velocity: (0, 0), space: space, now: now)
        }
        guard id == h.id else { return .handled }
        if !cancelled { _ = touchMotion(id: id, x: x, y: y, in: space, now: now) }
        let tapped = !cancelled && windows[i].press.map { !$0.moved } ?? false
        if tapped {
            let f = frame(of: windows[i], in: space, at: now)
            windows[i].held = nil
            windows[i].press = nil
            if windows[i].stashed {
                windows[i].stashed = false
                settle(i, from: windows[i].position, velocity: (0, 0), space: space, now: now)
                return .handled
            }
            // Back where it was picked up (a tap mid-settle settles on).
            settle(i, from: windows[i].position, velocity: (0, 0), space: space, now: now)
            if windows[i].showsControls(at: now) {
                let size = Size(width: f.width, height: f.height)
                if let c = PiPControl.at(x: x - Double(f.x), y: y - Double(f.y), in: size) {
                    windows[i].controlsUntil = now + Self.controlsMilliseconds
                    return .action(windows[i].app, c.action)
                }
                windows[i].controlsUntil = 0
            } else {
                windows[i].controlsUntil = now + Self.controlsMilliseconds
            }
            return .handled
        }
        let v = cancelled ? (x: 0.0, y: 0.0) : (x: windows[i].tracks.x.velocity(at: now), y: windows[i].tracks.y.velocity(at: now))
        return release(i, velocity: v, space: space, now: now)
    }

    /// Lets go of window `i` with velocity `v` (pt/ms): it rests where its centre is flung.
    private mutating func release(_ i: Int, velocity v: (x: Double, y: Double), space: PiPSpace, now: UInt64) -> PiPTouchEnd {
        let size = Self.size(of: windows[i], in: space)
        let p = windows[i].position
        let centre = (x: p.x + Double(size.width) / 2 + Momentum.projection(v.x), y: p.y + Double(size.height) / 2 + Momentum.projection(v.y))
        windows[i].held = nil
        windows[i].press = nil
        windows[i].fingers = [:]
        let screenW = Double(space.screen.width)
        // Flung off a side by more than half its width: stashed there.
        windows[i].stashed = centre.x < 0 || centre.x > screenW
        windows[i].corner = ScreenCorner.nearest(
            x: min(max(0, centre.x), screenW), y: min(max(0, centre.y), Double(space.screen.height)), screen: space.screen)
        settle(i, from: p, velocity: v, space: space, now: now)
        return .handled
    }

    /// Window `i` settles home from `p`, starting at velocity `v` (pt/ms).
    private mutating func settle(_ i: Int, from p: (x: Double, y: Double), velocity v: (x: Double, y: Double), space: PiPSpace, now: UInt64) {
        guard !reduceMotion else {
            windows[i].settle = nil
            return
        }
        let home = Self.home(of: windows[i], size: Self.size(of: windows[i], in: space), in: space)
        let d = MotionMetrics.settleMilliseconds, bound = Momentum.floatingOvershoot
        windows[i].settle = (
            p, now,
            (Momentum.initialRate(velocity: v.x, distance: home.x - p.x, duration: d, overshoot: bound),
             Momentum.initialRate(velocity: v.y, distance: home.y - p.y, duration: d, overshoot: bound))
        )
    }

    /// Lets go of every held window where it is and stops settles and growth (a rotation):
    /// windows sit in their corners. Returns the touches that were holding windows.
    public mutating func rest() -> [Contact] {
        var ids: [Contact] = []
        for i in windows.indices {
            if let h = windows[i].held { ids.append(h.id) }
            if let p = windows[i].pinch { ids.append(p.id) }
            windows[i].held = nil
            windows[i].pinch = nil
            windows[i].press = nil
            windows[i].fingers = [:]
            windows[i].settle = nil
            windows[i].growth = nil
        }
        windows.removeAll { $0.closing != nil }
        return ids
    }
}

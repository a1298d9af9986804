// SPDX-License-Identifier: MIT
// The multitasking shell (SPEC §3, §7): which app holds which role, the arrangement, and the
// gestures that change them (divider drag, Slide Over swipe, pin and dismiss), as a pure state
// machine. Time comes in as a parameter, so every gesture replays exactly in tests.

/// Identifies an app to the shell (the compositor uses its client id).
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: AppID, b: AppID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "app-\(rawValue)" }
}

/// What the compositor must do after the shell handled an input or a change.
public enum ShellEffect: Equatable, Sendable {
    /// Deliver a touch to an app, in points local to its pane.
    case touch(AppID, id: Int32, phase: TouchPhase, x: Double, y: Double)
    /// Deliver a pen sample to an app, in points local to its pane.
    case pen(AppID, phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double)
    /// Send a lifecycle notification now.
    case lifecycle(AppID, LifecycleEvent)
    /// The layout changed: send `configure` (and `sizeClassChanged`) where an app's pane changed.
    case layoutChanged
    /// Send `didBecomeActive` once the app has committed a buffer for its configure, or after
    /// 250 ms.
    case activateWhenDrawn(AppID)
    /// Ask the app for offscreen snapshots at each of these panes.
    case requestSnapshots(AppID, [Pane])
    /// Forget the snapshots of the drag that just ended.
    case dropSnapshots
}

/// Which edge of its pane a surface is pinned to while the pane's width is in motion.
public enum Anchor: Sendable, Equatable {
    case leading
    case trailing
}

/// A pane as drawn this frame (during a drag it is not the configured pane).
public struct PresentedPane: Equatable, Sendable {
    public var app: AppID
    public var role: Role
    /// The frame in points.
    public var frame: Rect
    public var anchor: Anchor
    /// Show the snapshot nearest the pane's width instead of the live surface (during a drag).
    public var prefersSnapshots: Bool
}

/// The multitasking state machine.
public struct Shell: Sendable {
    // MARK: Gesture constants (points and milliseconds, SPEC §7)

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
    /// A touch this close to the Slide Over's left edge pins or dismisses it.
    public static let slideOverGrab = 12.0

    public private(set) var profile: DeviceProfile
    public private(set) var orientation: Orientation
    /// False for "Settings > Multitasking" off: every app full screen, no gestures.
    public let multitasking: Bool
    public private(set) var primary: AppID?
    public private(set) var secondary: AppID?
    /// Whether the secondary is on screen (else it is in the background).
    public private(set) var secondaryShown: Bool
    /// The arrangement asked for while the secondary shows; a landscape `split-1/2` stays
    /// remembered while portrait shows `split-2/3`.
    public private(set) var requested: Arrangement
    private var fullScreenOnly: Set<AppID> = []
    private var routes: [Int32: Route] = [:]
    private var penRoute: AppID?

    enum Route: Equatable, Sendable {
        case app(AppID)
        case divider(DividerDrag)
        case slideEdge(startX: Double, startTime: UInt64, maxMove: Double, offset: Double)
        case edgeSwipe(app: AppID, startX: Double)
        case swallowed
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
    }

    public init(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement, multitasking: Bool = true) {
        self.profile = profile
        self.orientation = orientation
        self.multitasking = multitasking
        secondaryShown = arrangement.showsSecondary
        requested = arrangement.showsSecondary ? arrangement : .slideOver
    }

    // MARK: - Derived state

    /// The arrangement on screen now.
    public var arrangement: Arrangement {
        guard multitasking, primary != nil, let s = secondary, secondaryShown else { return .full }
        var a = requested.shown(in: orientation)
        if a.isSplit && (fullScreenOnly.contains(primary!) || fullScreenOnly.contains(s)) { a = .slideOver }
        return a
    }

    /// The configured layout (what apps are told).
    public var layout: Layout {
        // `shown(in:)` never yields split-1/2 in portrait, so this cannot throw.
        (try? LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: arrangement))!
    }

    var screenWidth: Double { Double(profile.screenSize(orientation).width) }

    /// The app in a role, if any.
    public func app(_ role: Role) -> AppID? { role == .primary ? primary : secondary }

    /// The configured pane of an app, or nil while it is in the background.
    public func pane(of app: AppID) -> Pane? {
        if app == primary { return layout.pane(.primary) }
        if app == secondary { return layout.pane(.secondary) }
        return nil
    }

    /// The divider drag in progress, if any.
    public var drag: DividerDrag? {
        for case .divider(let d) in routes.values { return d }
        return nil
    }

    /// The panes as drawn now, bottom to top: the configured layout, or the panes of a drag in
    /// progress (the divider follows the finger), or a Slide Over being dragged by its edge.
    public var presentation: [PresentedPane] {
        let l = layout
        var out: [PresentedPane] = []
        for p in l.panes {
            guard let app = app(p.role) else { continue }
            out.append(PresentedPane(app: app, role: p.role, frame: p.frame, anchor: .leading, prefersSnapshots: false))
        }
        if let d = drag, out.count == 2 {
            let w = l.screen.width, dw = profile.dividerWidth
            let x = min(max(0, Int(d.x.rounded(.down))), w - dw)
            out[0].frame = Rect(x: 0, y: 0, width: x, height: l.screen.height)
            out[1].frame = Rect(x: x + dw, y: 0, width: w - x - dw, height: l.screen.height)
            out[0].anchor = .leading
            out[1].anchor = .trailing
            out[0].prefersSnapshots = true
            out[1].prefersSnapshots = true
        }
        for case .slideEdge(_, _, _, let offset) in routes.values where out.count == 2 {
            out[1].frame.x += Int(offset.rounded(.down))
        }
        return out
    }

    /// The divider to draw, if any (follows a drag in progress).
    public var dividerRect: Rect? {
        let l = layout
        if let d = drag {
            let x = min(max(0, Int(d.x.rounded(.down))), l.screen.width - profile.dividerWidth)
            return Rect(x: x, y: 0, width: profile.dividerWidth, height: l.screen.height)
        }
        return l.divider.map { Rect(x: $0.x, y: 0, width: $0.width, height: l.screen.height) }
    }

    // MARK: - Apps

    /// Adds an app in its preferred role if free, else the other. Returns the effects (a
    /// shown app is activated once drawn; a hidden one is sent to the background).
    public mutating func add(_ app: AppID, preferring role: Role, requiresFullScreen: Bool) -> [ShellEffect] {
        if requiresFullScreen { fullScreenOnly.insert(app) }
        if role == .primary && primary == nil {
            primary = app
        } else if secondary == nil {
            secondary = app
        } else if primary == nil {
            primary = app
        } else {
            return []
        }
        var effects: [ShellEffect] = [.layoutChanged]
        if pane(of: app) != nil {
            effects.append(.activateWhenDrawn(app))
        } else {
            effects.append(.lifecycle(app, .didEnterBackground))
        }
        return effects
    }

    /// Removes an app that went away. Its partner, if any, takes the full screen as primary.
    public mutating func remove(_ app: AppID) -> [ShellEffect] {
        fullScreenOnly.remove(app)
        guard app == primary || app == secondary else { return [] }
        // A drag the departing app was part of ends; the app that stays is activated once it
        // has drawn its new bounds, so after the configure below.
        let ended = endGestures(becauseOf: app)
        let activations = ended.filter { if case .activateWhenDrawn = $0 { true } else { false } }
        var effects = ended.filter { if case .activateWhenDrawn = $0 { false } else { true } }
        let wasShown = secondaryShown
        secondaryShown = false
        if app == primary {
            primary = secondary
            secondary = nil
            if let p = primary {
                if !wasShown { effects.append(.lifecycle(p, .willEnterForeground)) }
                effects += [.layoutChanged, .activateWhenDrawn(p)]
            }
        } else {
            secondary = nil
            effects.append(.layoutChanged)
            effects += activations
        }
        return effects
    }

    /// Ends every gesture (a rotation or a departing app), with the apps' cleanup.
    private mutating func endGestures(becauseOf departing: AppID?) -> [ShellEffect] {
        var effects: [ShellEffect] = []
        for (id, route) in routes.sorted(by: { $0.key < $1.key }) {
            switch route {
            case .divider:
                routes[id] = .swallowed
                for p in layout.panes {
                    if let a = app(p.role), a != departing { effects.append(.activateWhenDrawn(a)) }
                }
                effects.append(.dropSnapshots)
            case .slideEdge:
                routes[id] = .swallowed
            case .edgeSwipe(let a, _), .app(let a):
                if a == departing { routes[id] = .swallowed }
            case .swallowed:
                break
            }
        }
        return effects
    }

    // MARK: - Orientation and profile

    /// Soft relaunch on another device profile (emulation changed at run time): gestures end
    /// and every shown app is told its new bounds.
    public mutating func changeProfile(to p: DeviceProfile) -> [ShellEffect] {
        guard p != profile else { return [] }
        var effects = endGestures(becauseOf: nil)
        let shown = layout.panes.compactMap { app($0.role) }
        effects += shown.map { .lifecycle($0, .willResignActive) }
        profile = p
        effects.append(.layoutChanged)
        effects += layout.panes.compactMap { app($0.role) }.map { .activateWhenDrawn($0) }
        return effects
    }

    /// Rotates the screen. A drag in progress ends where the layout is valid (the arrangement
    /// it started from), and every shown app is told its new bounds.
    public mutating func rotate(to o: Orientation) -> [ShellEffect] {
        guard o != orientation else { return [] }
        var effects = endGestures(becauseOf: nil)
        orientation = o
        effects.insert(.layoutChanged, at: 0)
        return effects
    }

    // MARK: - Touch

    /// The topmost presented pane at a point.
    func paneAt(x: Double, y: Double) -> PresentedPane? {
        presentation.last { Double($0.frame.minX) <= x && x < Double($0.frame.maxX) && Double($0.frame.minY) <= y && y < Double($0.frame.maxY) }
    }

    func local(_ app: AppID, _ x: Double, _ y: Double) -> (Double, Double) {
        guard let p = presentation.first(where: { $0.app == app }) else { return (x, y) }
        return (x - Double(p.frame.x), y - Double(p.frame.y))
    }

    func touch(_ app: AppID, _ id: Int32, _ phase: TouchPhase, _ x: Double, _ y: Double) -> ShellEffect {
        let (lx, ly) = local(app, x, y)
        return .touch(app, id: id, phase: phase, x: lx, y: ly)
    }

    /// Handles a touch in points of the logical screen at time `now` (milliseconds).
    public mutating func handleTouch(id: Int32, phase: TouchPhase, x: Double, y: Double, now: UInt64) -> [ShellEffect] {
        switch phase {
        case .down: return touchDown(id: id, x: x, y: y, now: now)
        case .motion: return touchMotion(id: id, x: x, y: y)
        case .up: return touchUp(id: id, x: x, y: y, now: now, cancelled: false)
        case .cancel: return touchUp(id: id, x: x, y: y, now: now, cancelled: true)
        }
    }

    private mutating func touchDown(id: Int32, x: Double, y: Double, now: UInt64) -> [ShellEffect] {
        if routes[id] != nil { _ = touchUp(id: id, x: x, y: y, now: now, cancelled: true) }
        let w = screenWidth
        let busy = routes.values.contains { if case .app = $0 { return false } else { return true } }
        if multitasking && !busy {
            if let d = layout.divider, drag == nil {
                let centre = Double(d.x) + Double(d.width) / 2
                if abs(x - centre) <= Double(d.width) / 2 + Self.dividerGrab {
                    return beginDrag(id: id, x: x, divider: d)
                }
            }
            if arrangement == .slideOver {
                let edge = w - Double(LayoutEngine.compactWidth(screenWidth: Int(w), profile: profile))
                if abs(x - edge) <= Self.slideOverGrab {
                    routes[id] = .slideEdge(startX: x, startTime: now, maxMove: 0, offset: 0)
                    return []
                }
            }
            if arrangement == .full, secondary != nil, let p = primary, x >= w - Self.edgeZone {
                routes[id] = .edgeSwipe(app: p, startX: x)
                return [touch(p, id, .down, x, y)]
            }
        }
        guard let target = paneAt(x: x, y: y) else {
            routes[id] = .swallowed
            return []
        }
        routes[id] = .app(target.app)
        return [touch(target.app, id, .down, x, y)]
    }

    private mutating func beginDrag(id: Int32, x: Double, divider: Divider) -> [ShellEffect] {
        let start = arrangement
        routes[id] = .divider(DividerDrag(startX: divider.x, grabOffset: x - Double(divider.x), x: Double(divider.x), startArrangement: start))
        var effects: [ShellEffect] = []
        let shown = layout.panes.compactMap { app($0.role) }
        for a in shown { effects.append(.lifecycle(a, .willResignActive)) }
        // Every size each app may end at: the splits allowed here, or the full screen.
        let splits: [Arrangement] = orientation == .landscape ? [.split23, .split12] : [.split23]
        let full = (try? LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: .full))!
        for role in Role.allCases {
            guard let a = app(role) else { continue }
            var panes: [Pane] = splits.compactMap { s in
                (try? LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: s))?.pane(role)
            }
            var whole = full.pane(.primary)!
            whole.role = role
            panes.append(whole)
            effects.append(.requestSnapshots(a, panes))
        }
        return effects
    }

    private mutating func touchMotion(id: Int32, x: Double, y: Double) -> [ShellEffect] {
        guard let route = routes[id] else { return [] }
        switch route {
        case .app(let a):
            return [touch(a, id, .motion, x, y)]
        case .divider(var d):
            d.x = x - d.grabOffset
            routes[id] = .divider(d)
            return []
        case .slideEdge(let sx, let t, let maxMove, _):
            routes[id] = .slideEdge(startX: sx, startTime: t, maxMove: max(maxMove, abs(x - sx)), offset: max(0, x - sx))
            return []
        case .edgeSwipe(let a, let sx):
            guard sx - x >= Self.swipeDistance, let s = secondary, primary != nil else {
                return [touch(a, id, .motion, x, y)]
            }
            // The compositor claims the touch: the app loses it, and the Slide Over comes in.
            routes[id] = .swallowed
            var effects = [touch(a, id, .cancel, x, y)]
            if !secondaryShown { effects.append(.lifecycle(s, .willEnterForeground)) }
            secondaryShown = true
            requested = .slideOver
            effects += [.layoutChanged, .activateWhenDrawn(s)]
            return effects
        case .swallowed:
            return []
        }
    }

    private mutating func touchUp(id: Int32, x: Double, y: Double, now: UInt64, cancelled: Bool) -> [ShellEffect] {
        guard let route = routes.removeValue(forKey: id) else { return [] }
        switch route {
        case .app(let a), .edgeSwipe(let a, _):
            return [touch(a, id, cancelled ? .cancel : .up, x, y)]
        case .divider(var d):
            if !cancelled { d.x = x - d.grabOffset }
            return endDrag(d, cancelled: cancelled)
        case .slideEdge(let sx, let t, let maxMove, let offset):
            guard !cancelled else { return [] }
            let moved = max(maxMove, abs(x - sx))
            let edge = screenWidth - Double(LayoutEngine.compactWidth(screenWidth: Int(screenWidth), profile: profile)) + max(offset, x - sx)
            if now - t < Self.tapMilliseconds && moved < Self.tapSlop {
                guard let p = primary, let s = secondary, !fullScreenOnly.contains(p), !fullScreenOnly.contains(s) else { return [] }
                requested = .split23
                return [.layoutChanged]
            }
            if edge > screenWidth - Double(LayoutEngine.compactWidth(screenWidth: Int(screenWidth), profile: profile)) / 2, let s = secondary {
                secondaryShown = false
                return [.lifecycle(s, .didEnterBackground), .layoutChanged]
            }
            return []
        case .swallowed:
            return []
        }
    }

    /// Snaps a released divider (SPEC §7): near the right edge dismisses the secondary, the left
    /// quarter dismisses the primary, else the nearest allowed split.
    private mutating func endDrag(_ d: DividerDrag, cancelled: Bool) -> [ShellEffect] {
        var effects: [ShellEffect] = [.dropSnapshots]
        guard let p = primary, let s = secondary else { return effects }
        let w = screenWidth, dw = Double(profile.dividerWidth)
        let c = Double(LayoutEngine.compactWidth(screenWidth: Int(w), profile: profile))
        let x = cancelled ? Double(d.startX) : min(max(0, d.x), w - dw)
        if w - (x + dw) < c / 2 {
            secondaryShown = false
            effects += [.lifecycle(s, .didEnterBackground), .layoutChanged, .activateWhenDrawn(p)]
            return effects
        }
        if x < w / 4 {
            primary = s
            secondary = p
            secondaryShown = false
            effects += [.lifecycle(p, .didEnterBackground), .layoutChanged, .activateWhenDrawn(s)]
            return effects
        }
        let splits: [Arrangement] = orientation == .landscape ? [.split23, .split12] : [.split23]
        let nearest = splits.min { a, b in
            abs(Double(dividerX(a)) - x) < abs(Double(dividerX(b)) - x)
        }!
        if nearest != d.startArrangement { requested = nearest }
        effects += [.layoutChanged, .activateWhenDrawn(p), .activateWhenDrawn(s)]
        return effects
    }

    private func dividerX(_ a: Arrangement) -> Int {
        (try? LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: a))?.divider?.x ?? 0
    }

    // MARK: - Pen

    /// Handles a pen sample in points of the logical screen: it goes to the app under the pen
    /// when it comes into proximity, and stays with that app until it leaves.
    public mutating func handlePen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double) -> [ShellEffect] {
        if phase == .proximityIn || penRoute == nil { penRoute = paneAt(x: x, y: y)?.app }
        guard let a = penRoute else { return [] }
        if phase == .proximityOut { penRoute = nil }
        let (lx, ly) = local(a, x, y)
        return [.pen(a, phase: phase, x: lx, y: ly, pressure: pressure, tiltX: tiltX, tiltY: tiltY)]
    }
}

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

/// The multitasking state machine: roles, the arrangement and the layout they give, with the
/// gestures in progress (`ShellInput.swift` routes touches and the pen to them).
public struct Shell: Sendable {
    public private(set) var profile: DeviceProfile { didSet { relayout() } }
    public private(set) var orientation: Orientation { didSet { relayout() } }
    /// False for "Settings > Multitasking" off: every app full screen, no gestures.
    public let multitasking: Bool
    public internal(set) var primary: AppID? { didSet { relayout() } }
    public internal(set) var secondary: AppID? { didSet { relayout() } }
    /// Whether the secondary is on screen (else it is in the background).
    public internal(set) var secondaryShown: Bool { didSet { relayout() } }
    /// The arrangement asked for while the secondary shows; a landscape `split-1/2` stays
    /// remembered while portrait shows `split-2/3`.
    public internal(set) var requested: Arrangement { didSet { relayout() } }
    var fullScreenOnly: Set<AppID> = [] { didSet { relayout() } }
    /// The configured layout (what apps are told), kept up to date with the state above.
    public private(set) var layout: Layout
    var routes: [Int32: Route] = [:]
    var penRoute: AppID?

    /// Where a touch in progress goes.
    enum Route: Equatable, Sendable {
        case app(AppID)
        case divider(DividerDrag)
        case slideEdge(SlideOverEdgeDrag)
        case edgeSwipe(EdgeSwipe)
        case swallowed
    }

    public init(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement, multitasking: Bool = true) {
        self.profile = profile
        self.orientation = orientation
        self.multitasking = multitasking
        secondaryShown = arrangement.showsSecondary
        requested = arrangement.showsSecondary ? arrangement : .slideOver
        layout = LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: .full)
        relayout()
    }

    private mutating func relayout() {
        let l = LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: arrangement)
        if l != layout { layout = l }
    }

    // MARK: - Derived state

    /// The arrangement on screen now.
    public var arrangement: Arrangement {
        guard multitasking, let p = primary, let s = secondary, secondaryShown else { return .full }
        var a = requested.shown(in: orientation)
        if a.isSplit && (fullScreenOnly.contains(p) || fullScreenOnly.contains(s)) { a = .slideOver }
        return a
    }

    var screenWidth: Double { Double(profile.screenSize(orientation).width) }

    /// The width of the secondary's compact pane on this screen, in points.
    var compactWidth: Double { Double(LayoutEngine.compactWidth(screenWidth: Int(screenWidth), profile: profile)) }

    /// The app in a role, if any.
    public func app(_ role: Role) -> AppID? { role == .primary ? primary : secondary }

    /// The configured pane of an app, or nil while it is in the background.
    public func pane(of app: AppID) -> Pane? {
        if app == primary { return layout.pane(.primary) }
        if app == secondary { return layout.pane(.secondary) }
        return nil
    }

    /// The apps shown now, in pane order.
    var shownApps: [AppID] { layout.panes.compactMap { app($0.role) } }

    /// The divider drag in progress, if any.
    public var drag: DividerDrag? {
        for case .divider(let d) in routes.values { return d }
        return nil
    }

    /// The panes as drawn now, bottom to top: the configured layout, or the panes of a drag in
    /// progress (the divider follows the finger), or a Slide Over being dragged by its edge.
    public var presentation: [PresentedPane] {
        let l = layout
        var out: [PresentedPane] = PresentedPane.panes(of: l) { app($0) }
        if let d = drag, out.count == 2 {
            let w = l.screen.width, dw = profile.dividerWidth
            let x = d.drawnX(screenWidth: w, dividerWidth: dw)
            out[0].frame = Rect(x: 0, y: 0, width: x, height: l.screen.height)
            out[1].frame = Rect(x: x + dw, y: 0, width: w - x - dw, height: l.screen.height)
            out[0].anchor = .leading
            out[1].anchor = .trailing
            out[0].prefersSnapshots = true
            out[1].prefersSnapshots = true
        }
        for case .slideEdge(let e) in routes.values where out.count == 2 {
            out[1].frame.x += Int(e.offset.rounded(.down))
        }
        return out
    }

    /// The divider to draw, if any (follows a drag in progress).
    public var dividerRect: Rect? {
        let l = layout
        if let d = drag {
            let x = d.drawnX(screenWidth: l.screen.width, dividerWidth: profile.dividerWidth)
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
    mutating func endGestures(becauseOf departing: AppID?) -> [ShellEffect] {
        var effects: [ShellEffect] = []
        for (id, route) in routes.sorted(by: { $0.key < $1.key }) {
            switch route {
            case .divider:
                routes[id] = .swallowed
                for a in shownApps where a != departing { effects.append(.activateWhenDrawn(a)) }
                effects.append(.dropSnapshots)
            case .slideEdge:
                routes[id] = .swallowed
            case .edgeSwipe(let s):
                if s.app == departing { routes[id] = .swallowed }
            case .app(let a):
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
        effects += shownApps.map { .lifecycle($0, .willResignActive) }
        profile = p
        effects.append(.layoutChanged)
        effects += shownApps.map { .activateWhenDrawn($0) }
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
}

extension PresentedPane {
    /// The panes of a configured layout, each surface pinned at its pane's top-left, for the
    /// apps `app` names (panes without an app are left out).
    public static func panes(of layout: Layout, app: (Role) -> AppID?) -> [PresentedPane] {
        layout.panes.compactMap { p in
            app(p.role).map { PresentedPane(app: $0, role: p.role, frame: p.frame, anchor: .leading, prefersSnapshots: false) }
        }
    }
}

// SPDX-License-Identifier: MIT
// The multitasking shell: which app holds which role, the arrangement, and the
// gestures that change them (divider drag, Slide Over swipe, pin and dismiss), as a pure state
// machine. Time comes in as a parameter, so every gesture replays exactly in tests.

/// Identifies an app to the shell (the compositor uses its client id).
public struct AppID: Hashable, Sendable, Comparable, BitwiseCopyable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (a: AppID, b: AppID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "app-\(rawValue)" }
}

/// What the compositor must do after the shell handled an input or a change.
public enum ShellEffect: Equatable, Sendable {
    /// Deliver a touch to an app, in points local to its pane.
    case touch(AppID, id: Int32, phase: TouchPhase, x: Double, y: Double)
    /// Deliver the pointer's left button, which stood for a finger (`Contact.pointer`), to an
    /// app as pointer events, in points local to its pane.
    case pointer(AppID, phase: TouchPhase, x: Double, y: Double)
    /// What the on-screen keyboard typed, for the app that raised it.
    case keyboard(AppID, KeyboardOutput)
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
    /// Tell the app a control of its Picture in Picture window was tapped.
    case pipAction(AppID, PiPAction)
    /// Reduce Motion: the change about to show cross-fades from what is shown now (instead of
    /// the panes moving).
    case crossFade
    /// The user answered (or dismissed) an app's menu or alert.
    case presented(AppID, PresentationAnswer)
    /// The user touched an app's menu or alert: that app takes the keyboard (an alert shown
    /// for an app without the focus gets keys only then).
    case focusByUser(AppID)
}

/// The multitasking state machine: roles, the arrangement and the layout they give, with the
/// gestures in progress (`ShellInput.swift` routes touches and the pen to them).
public struct Shell: Sendable {
    public private(set) var profile: DeviceProfile { didSet { relayout() } }
    public private(set) var orientation: Orientation { didSet { relayout() } }
    /// False for "Settings > Multitasking" off: every app full screen, no gestures.
    public let multitasking: Bool
    /// iOS's Reduce Motion: settles are cross-fades (the compositor draws them), not moves.
    public var reduceMotion = false
    public internal(set) var primary: AppID? { didSet { relayout() } }
    public internal(set) var secondary: AppID? { didSet { relayout() } }
    /// Whether the secondary is on screen (else it is in the background).
    public internal(set) var secondaryShown: Bool { didSet { relayout() } }
    /// The arrangement asked for while the secondary shows; a landscape `split-1/2` stays
    /// remembered while portrait shows `split-2/3`.
    public internal(set) var requested: Arrangement { didSet { relayout() } }
    var fullScreenOnly: Set<AppID> = [] { didSet { relayout() } }
    /// Two apps were on screen when one went away: the next app to come takes the free place
    /// on screen (in the arrangement they had) instead of the background.
    var vacancyShown = false
    /// The configured layout (what apps are told), kept up to date with the state above.
    public private(set) var layout: Layout
    var routes: [Contact: Route] = [:]
    var penRoute: AppID?
    /// The panes settling after a gesture, if any (`Motion.swift`).
    public internal(set) var motion: Transition?

    /// Where a touch in progress goes.
    enum Route: Equatable, Sendable {
        case app(AppID)
        case divider(DividerDrag)
        case slideEdge(SlideOverEdgeDrag)
        /// Held back at the right edge until claimed or given to the app.
        case held(EdgeHold)
        /// Claimed: the Slide Over follows the finger in.
        case slideIn(SlideIn)
        /// A Split View pane's pill held: the pane is lifted and follows the finger sideways
        /// (from `startX` to `x`); let go over the other pane, the apps swap sides.
        case swap(app: AppID, startX: Double, x: Double)
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
        // An app that requires the full screen is never brought in as a Slide Over.
        guard multitasking, let p = primary, let s = secondary, secondaryShown, !fullScreenOnly.contains(s) else { return .full }
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

    /// The panes where the shell puts them now, bottom to top: the configured layout, or the
    /// panes of a drag in progress (the divider follows the finger), or a Slide Over following
    /// the finger in or out. What is drawn may still be settling towards these
    /// (`presentation(at:)`); touches are routed by these.
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
            out[0].blur = 1
            out[1].blur = 1
            // Dimmed from the narrow column's width down to where the release would dismiss
            // the app (a quarter of the screen for the primary, half the column for the
            // secondary).
            let c = Double(profile.compactWidth)
            func dim(_ width: Int, dismissedAt edge: Double) -> Double {
                guard c > edge else { return 0 }
                return PresentedPane.maxDim * max(0, min(1, (c - Double(width)) / (c - edge)))
            }
            out[0].dim = dim(out[0].frame.width, dismissedAt: Double(w) / 4)
            out[1].dim = dim(out[1].frame.width, dismissedAt: c / 2)
        }
        for route in routes.values where out.count == 2 {
            switch route {
            case .swap(let app, let startX, let x):
                guard let i = out.firstIndex(where: { $0.app == app }) else { break }
                var lifted = out.remove(at: i)
                lifted.frame.x += Int((x - startX).rounded())
                lifted.lifted = true
                out.append(lifted)
            case .slideEdge(let e): out[1].frame.x += Int(e.offset.rounded(.down))
            case .slideIn(let s): out[1].frame.x = s.paneX(screenWidth: l.screen.width, compactWidth: out[1].frame.width)
            default: break
            }
        }
        return out
    }

    /// The panes as drawn at `now`: settling after a gesture, or where the shell puts them.
    public func presentation(at now: UInt64) -> [PresentedPane] {
        if let m = motion, m.isRunning(at: now) { return m.panes(at: now) }
        return presentation
    }

    /// The divider as drawn at `now`, if any: between the panes, following them.
    public func dividerRect(at now: UInt64) -> Rect? {
        PresentedPane.divider(between: presentation(at: now), screen: layout.screen)
    }

    /// Whether panes are settling at `now`.
    public func isSettling(at now: UInt64) -> Bool { motion?.isRunning(at: now) ?? false }

    /// Whether something moves at `now` without a finger holding it, or a Slide Over is being
    /// brought in: apps are activated only once it has come to rest.
    public func isMoving(at now: UInt64) -> Bool {
        isSettling(at: now) || routes.values.contains { if case .slideIn = $0 { true } else { false } }
    }

    /// Whether a finger holds panes: a divider drag, a Slide Over swiped in or held by its edge.
    public var isFollowingFinger: Bool {
        routes.values.contains {
            switch $0 {
            case .divider, .slideIn, .slideEdge: true
            default: false
            }
        }
    }

    /// The next time `tick` has something to do: a settle ends, or an edge touch is due to
    /// be given to its app.
    public var nextDeadline: UInt64? {
        var times = routes.values.compactMap { r -> UInt64? in if case .held(let h) = r { h.deadline } else { nil } }
        if let m = motion { times.append(m.end) }
        return times.min()
    }

    /// Time passes: a settle that ended finishes (its effects are returned), and edge touches
    /// held for 150 ms go to their app from their `down`.
    public mutating func tick(now: UInt64) -> [ShellEffect] {
        var effects: [ShellEffect] = []
        // In the touches' order; most ticks (every frame of a settle) have none due, and sort
        // nothing.
        let due = routes.compactMap { id, route -> (id: Contact, hold: EdgeHold)? in
            if case .held(let h) = route, now >= h.deadline { (id, h) } else { nil }
        }
        if !due.isEmpty {
            for (id, h) in due.sorted(by: { $0.id < $1.id }) { effects += releaseHeld(id, h, then: nil) }
        }
        if let m = motion, !m.isRunning(at: now) { effects += finishMotion() }
        return effects
    }

    /// Ends the settle in progress at once (a new gesture, a rotation), with its effects.
    mutating func finishMotion() -> [ShellEffect] {
        guard let m = motion else { return [] }
        motion = nil
        return m.onFinish
    }

    /// Starts settling from the panes drawn before a change (`from`) to where the shell put
    /// them after it; `onFinish` runs once they are in place.
    mutating func settle(from: [PresentedPane], now: UInt64, onFinish: [ShellEffect], carried: Carried? = nil) -> [ShellEffect] {
        let done = finishMotion()
        let target = presentation
        if reduceMotion {
            // Nothing moves by itself: the new layout shows at once, cross-faded.
            let same = from.map(\.frame) == target.map(\.frame) && from.map(\.app) == target.map(\.app)
            return done + (same ? [] : [.crossFade]) + onFinish
        }
        var t = Transition.between(from, target, screenWidth: layout.screen.width, dividerWidth: profile.dividerWidth, at: now, onFinish: onFinish)
        if let c = carried {
            t.rate = Momentum.initialRate(velocity: c.velocity, distance: c.distance, duration: t.duration, overshoot: c.overshoot)
        }
        if t.to.map(\.frame) == t.from.map(\.frame) && t.to.map(\.floating) == t.from.map(\.floating) && t.to.map(\.app) == t.from.map(\.app) {
            return done + onFinish
        }
        motion = t
        return done
    }

    // MARK: - Apps

    /// Adds an app in its preferred role if free, else the other. Returns the effects (a
    /// shown app is activated once drawn; a hidden one is sent to the background).
    public mutating func add(_ app: AppID, preferring role: Role, requiresFullScreen: Bool) -> [ShellEffect] {
        // The app already there may only now get a pane (a secondary that came before the
        // primary was in the background until then).
        let other = primary ?? secondary
        let otherHadPane = other.map { pane(of: $0) != nil } ?? true
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
        if app == secondary && vacancyShown {
            vacancyShown = false
            secondaryShown = true
        }
        var effects: [ShellEffect] = [.layoutChanged]
        if pane(of: app) != nil {
            effects.append(.activateWhenDrawn(app))
        } else {
            effects.append(.lifecycle(app, .didEnterBackground))
        }
        if let other, other != app, !otherHadPane, pane(of: other) != nil {
            effects += [.lifecycle(other, .willEnterForeground), .activateWhenDrawn(other)]
        }
        return effects
    }

    /// Removes an app that went away. Its partner, if any, takes the full screen as primary at
    /// once: nothing of the departed app is left to draw while a settle would run.
    public mutating func remove(_ app: AppID) -> [ShellEffect] {
        fullScreenOnly.remove(app)
        guard app == primary || app == secondary else { return [] }
        // A drag the departing app was part of ends; the app that stays is activated once it
        // has drawn its new bounds, so after the configure below.
        let ended = endGestures(becauseOf: app)
        let activations = ended.filter { if case .activateWhenDrawn = $0 { true } else { false } }
        var effects = ended.filter { if case .activateWhenDrawn = $0 { false } else { true } }
        let wasShown = secondaryShown
        vacancyShown = wasShown
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
        return finishMotion() + effects
    }

    /// Puts `new` in the place of `old` (a relaunched app taking its predecessor's role): the
    /// layout and the other app are untouched; gestures that involved `old` end.
    public mutating func replace(_ old: AppID, with new: AppID, requiresFullScreen: Bool) -> [ShellEffect] {
        guard old == primary || old == secondary else { return [] }
        var effects = finishMotion() + endGestures(becauseOf: old)
        effects.removeAll { if case .activateWhenDrawn(old) = $0 { true } else { false } }
        if penRoute == old { penRoute = nil }
        fullScreenOnly.remove(old)
        if requiresFullScreen { fullScreenOnly.insert(new) }
        if primary == old { primary = new } else { secondary = new }
        effects.append(.layoutChanged)
        effects.append(pane(of: new) != nil ? .activateWhenDrawn(new) : .lifecycle(new, .didEnterBackground))
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
            case .slideEdge, .slideIn, .swap:
                routes[id] = .swallowed
            case .held(let h):
                if h.app == departing || departing == nil { routes[id] = .swallowed }
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
        var effects = finishMotion() + endGestures(becauseOf: nil)
        effects += shownApps.map { .lifecycle($0, .willResignActive) }
        profile = p
        effects.append(.layoutChanged)
        effects += shownApps.map { .activateWhenDrawn($0) }
        return effects
    }

    /// Rotates the screen; every shown app is told its new bounds. A divider drag in progress
    /// goes on in the new orientation: the divider keeps its place in proportion,
    /// the apps are asked for snapshots at the new sizes, and the release snaps there. Other
    /// gestures end.
    public mutating func rotate(to o: Orientation) -> [ShellEffect] {
        guard o != orientation else { return [] }
        var effects = finishMotion()
        var drags: [Contact: DividerDrag] = [:]
        for (id, route) in routes { if case .divider(let d) = route { drags[id] = d } }
        for id in drags.keys { routes[id] = nil }
        let ended = endGestures(becauseOf: nil)
        let oldWidth = screenWidth
        orientation = o
        effects.append(.layoutChanged)
        effects += ended
        for (id, var d) in drags.sorted(by: { $0.key < $1.key }) {
            guard let divider = layout.divider else {
                // No split in this orientation: the drag ends where the layout is valid.
                routes[id] = .swallowed
                effects += shownApps.map { .activateWhenDrawn($0) } + [.dropSnapshots]
                continue
            }
            d.reorient(scale: screenWidth / oldWidth, dividerX: divider.x)
            routes[id] = .divider(d)
            effects.append(.dropSnapshots)
            effects += snapshotRequests()
        }
        return effects
    }
}

extension PresentedPane {
    /// The panes of a configured layout, each surface pinned at its pane's top-left, for the
    /// apps `app` names (panes without an app are left out).
    public static func panes(of layout: Layout, app: (Role) -> AppID?) -> [PresentedPane] {
        layout.panes.compactMap { p in
            app(p.role).map {
                PresentedPane(
                    app: $0, role: p.role, frame: p.frame, anchor: .leading, prefersSnapshots: false,
                    floating: layout.arrangement == .slideOver && p.role == .secondary ? 1 : 0)
            }
        }
    }
}

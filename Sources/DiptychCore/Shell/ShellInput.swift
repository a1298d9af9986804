// SPDX-License-Identifier: MIT
// Touch and pen routing for the shell: each touch goes to an app or to one gesture recogniser
// (`Gestures.swift`) from its `down` until it lifts; the pen goes to the app under it.

extension Shell {
    /// The topmost presented pane at a point.
    /// (A pane lifted by its pill is the finger's, not a target: what is under it is.)
    func paneAt(x: Double, y: Double) -> PresentedPane? {
        presentation.last { !$0.lifted && Double($0.frame.minX) <= x && x < Double($0.frame.maxX) && Double($0.frame.minY) <= y && y < Double($0.frame.maxY) }
    }

    /// The app whose pane is topmost at a point (what a finger there touches: a Slide Over
    /// over the primary, not the primary under it).
    public func appAt(x: Double, y: Double) -> AppID? { paneAt(x: x, y: y)?.app }

    func local(_ app: AppID, _ x: Double, _ y: Double) -> (Double, Double) {
        guard let p = presentation.first(where: { $0.app == app }) else { return (x, y) }
        return (x - Double(p.frame.x), y - Double(p.frame.y))
    }

    /// What `contact` gives `app` at `x`, `y` (points of the screen): a touch, or for the
    /// pointer, pointer events.
    func touch(_ app: AppID, _ contact: Contact, _ phase: TouchPhase, _ x: Double, _ y: Double) -> ShellEffect {
        let (lx, ly) = local(app, x, y)
        switch contact {
        case .finger(let id): return .touch(app, id: id, phase: phase, x: lx, y: ly)
        case .pointer, .pen: return .pointer(app, phase: phase, x: lx, y: ly)
        }
    }

    /// Handles a touch in points of the logical screen at time `now` (milliseconds).
    public mutating func handleTouch(id: Contact, phase: TouchPhase, x: Double, y: Double, now: UInt64) -> [ShellEffect] {
        switch phase {
        case .down: return touchDown(id: id, x: x, y: y, now: now)
        case .motion: return touchMotion(id: id, x: x, y: y, now: now)
        case .up: return touchUp(id: id, x: x, y: y, now: now, cancelled: false)
        case .cancel: return touchUp(id: id, x: x, y: y, now: now, cancelled: true)
        }
    }

    /// The Split View pane whose pill (a 44 × 20 pt target at its top centre, in the status
    /// bar's band) is at `x`, `y`, if any.
    func splitPill(x: Double, y: Double) -> AppID? {
        guard y < Double(StatusBar.height) else { return nil }
        for p in layout.panes {
            let centre = Double(p.frame.minX) + Double(p.frame.width) / 2
            if abs(x - centre) <= GestureMetrics.grabberTarget.width / 2, let a = app(p.role) { return a }
        }
        return nil
    }

    /// Swaps the two apps of a Split View: the widths stay with the sides, the app now on the
    /// left is the primary; both panes move to their new sides.
    mutating func swapSides(from: [PresentedPane], now: UInt64) -> [ShellEffect] {
        guard arrangement.isSplit, let p = primary, let s = secondary else { return [] }
        (primary, secondary) = (s, p)
        return settle(from: from, now: now, onFinish: []) + [.layoutChanged]
    }

    /// The Slide Over's handles: its grabber (a 44 × 30 pt target at its top centre) and the
    /// 24 pt strip inside its left edge. Both lie on the Slide Over, none over the primary.
    enum SlideOverHandle { case grabber, edge }

    func slideOverHandle(x: Double, y: Double) -> SlideOverHandle? {
        guard let s = secondary, let pane = pane(of: s) else { return nil }
        let left = Double(pane.frame.minX), top = Double(pane.frame.minY)
        guard x >= left, x < Double(pane.frame.maxX), y >= top, y < Double(pane.frame.maxY) else { return nil }
        let centre = left + Double(pane.frame.width) / 2
        if abs(x - centre) <= GestureMetrics.grabberTarget.width / 2 && y < top + GestureMetrics.grabberTarget.height { return .grabber }
        return x < left + GestureMetrics.slideOverEdgeStrip ? .edge : nil
    }

    /// Whether a touch at `x` near the right edge may become the swipe that brings the Slide
    /// Over in (there is a secondary to bring, and it may float).
    private func mayBringSlideOver(x: Double) -> Bool {
        guard arrangement == .full, let s = secondary, primary != nil, !fullScreenOnly.contains(s) else { return false }
        return x >= screenWidth - GestureMetrics.edgeZone
    }

    private mutating func touchDown(id: Contact, x: Double, y: Double, now: UInt64) -> [ShellEffect] {
        if routes[id] != nil { _ = touchUp(id: id, x: x, y: y, now: now, cancelled: true) }
        let busy = routes.values.contains { if case .app = $0 { return false } else { return true } }
        // A new gesture takes the panes where they are going.
        let effects = busy ? [] : finishMotion()
        if multitasking && !busy {
            if let d = layout.divider, drag == nil {
                let centre = Double(d.x) + Double(d.width) / 2
                if abs(x - centre) <= Double(d.width) / 2 + GestureMetrics.dividerGrab {
                    return effects + beginDrag(id: id, x: x, divider: d, now: now)
                }
            }
            if arrangement.isSplit, let app = splitPill(x: x, y: y) {
                routes[id] = .swap(app: app, startX: x, x: x)
                return effects
            }
            if arrangement == .slideOver, let handle = slideOverHandle(x: x, y: y) {
                var e = SlideOverEdgeDrag(startX: x, startTime: now)
                e.width = compactWidth
                if handle == .grabber {
                    e.byGrabber = true
                    e.startY = y
                }
                routes[id] = .slideEdge(e)
                return effects
            }
            if mayBringSlideOver(x: x), let target = paneAt(x: x, y: y) {
                // Held back: the app gets it only if the swipe does not claim it.
                routes[id] = .held(EdgeHold(app: target.app, x: x, y: y, now: now))
                return effects
            }
        }
        // Hands off while the divider is held: both apps are inactive behind their snapshots,
        // and nothing may change their state across the drag.
        guard drag == nil, let target = paneAt(x: x, y: y) else {
            routes[id] = .swallowed
            return effects
        }
        routes[id] = .app(target.app)
        return effects + [touch(target.app, id, .down, x, y)]
    }

    /// Gives a held edge touch to its app from its original `down`, with the motions held
    /// since, then `last` (the phase that let it go), if any.
    mutating func releaseHeld(_ id: Contact, _ h: EdgeHold, then last: (TouchPhase, Double, Double)?) -> [ShellEffect] {
        var effects = [touch(h.app, id, .down, h.start.x, h.start.y)]
        effects += h.motions.map { touch(h.app, id, .motion, $0.x, $0.y) }
        if let (phase, x, y) = last { effects.append(touch(h.app, id, phase, x, y)) }
        let ended = last.map { $0.0 == .up || $0.0 == .cancel } ?? false
        routes[id] = ended ? nil : .app(h.app)
        return effects
    }

    /// The splits the divider may snap to here, with their divider positions.
    var splits: [(Arrangement, Int)] {
        let allowed: [Arrangement] = orientation == .landscape ? [.split23, .split12] : [.split23]
        return allowed.map { a in (a, LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: a).divider?.x ?? 0) }
    }

    private mutating func beginDrag(id: Contact, x: Double, divider: Divider, now: UInt64) -> [ShellEffect] {
        // Touches already down in an app are cancelled (their strokes dropped), and the pen
        // leaves the app it was over: nothing reaches the apps until the divider is let go.
        var effects: [ShellEffect] = []
        for (other, route) in routes.sorted(by: { $0.key < $1.key }) {
            guard case .app(let a) = route, let pane = pane(of: a) else { continue }
            let (cx, cy) = (Double(pane.frame.width) / 2, Double(pane.frame.height) / 2)
            switch other {
            case .finger(let id): effects.append(.touch(a, id: id, phase: .cancel, x: cx, y: cy))
            case .pointer, .pen: effects.append(.pointer(a, phase: .cancel, x: cx, y: cy))
            }
            routes[other] = .swallowed
        }
        if let a = penRoute {
            effects.append(.pen(a, phase: .proximityOut, x: 0, y: 0, pressure: 0, tiltX: 0, tiltY: 0))
            penRoute = nil
        }
        routes[id] = .divider(DividerDrag(fingerX: x, dividerX: divider.x, arrangement: arrangement, at: now))
        return effects + shownApps.map { .lifecycle($0, .willResignActive) } + snapshotRequests()
    }

    /// Snapshot requests for every size each shown app may end a divider drag at here: the
    /// splits allowed in this orientation, or the full screen.
    func snapshotRequests() -> [ShellEffect] {
        var effects: [ShellEffect] = []
        let full = LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: .full).panes
        for role in Role.allCases {
            guard let a = app(role) else { continue }
            var panes: [Pane] = splits.compactMap { s in
                LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: s.0).pane(role)
            }
            for var whole in full {
                whole.role = role
                panes.append(whole)
            }
            effects.append(.requestSnapshots(a, panes))
        }
        return effects
    }

    private mutating func touchMotion(id: Contact, x: Double, y: Double, now: UInt64) -> [ShellEffect] {
        guard let route = routes[id] else { return [] }
        switch route {
        case .app(let a):
            return [touch(a, id, .motion, x, y)]
        case .divider(var d):
            d.move(fingerX: x, at: now)
            routes[id] = .divider(d)
            return []
        case .slideEdge(var e):
            e.move(fingerX: x, y: y, at: now)
            routes[id] = .slideEdge(e)
            return []
        case .slideIn(var s):
            s.move(fingerX: x, at: now)
            routes[id] = .slideIn(s)
            return []
        case .held(var h):
            if h.claims(fingerX: x), let s = secondary, primary != nil {
                // Claimed: the app never sees this touch, and the Slide Over comes in under
                // the finger.
                routes[id] = .slideIn(SlideIn(fingerX: x, at: now))
                var effects: [ShellEffect] = []
                if !secondaryShown { effects.append(.lifecycle(s, .willEnterForeground)) }
                secondaryShown = true
                requested = .slideOver
                effects += [.layoutChanged, .activateWhenDrawn(s)]
                return effects
            }
            if now >= h.deadline || h.leftOtherwise(x: x, y: y) { return releaseHeld(id, h, then: (.motion, x, y)) }
            h.hold(x: x, y: y)
            routes[id] = .held(h)
            return []
        case .swap(let app, let startX, _):
            routes[id] = .swap(app: app, startX: startX, x: x)
            return []
        case .swallowed:
            return []
        }
    }

    private mutating func touchUp(id: Contact, x: Double, y: Double, now: UInt64, cancelled: Bool) -> [ShellEffect] {
        let from = presentation(at: now)
        guard let route = routes.removeValue(forKey: id) else { return [] }
        switch route {
        case .app(let a):
            return [touch(a, id, cancelled ? .cancel : .up, x, y)]
        case .held(let h):
            // Lifted before anything claimed it: a tap (or a short stroke) for the app. A
            // cancelled one never reached the app, so it is simply dropped.
            return cancelled ? [] : releaseHeld(id, h, then: (.up, x, y))
        case .slideIn(var s):
            // The Slide Over comes to rest at its place, carried in at the finger's velocity.
            if !cancelled { s.move(fingerX: x, at: now) }
            let drawn = from.first { $0.app == secondary }.map { Double($0.frame.x) } ?? screenWidth - compactWidth
            let carried = Carried(velocity: cancelled ? 0 : s.tracker.velocity(at: now), distance: screenWidth - compactWidth - drawn, overshoot: Momentum.floatingOvershoot)
            return settle(from: from, now: now, onFinish: [], carried: carried)
        case .divider(var d):
            if !cancelled { d.move(fingerX: x, at: now) }
            return endDrag(d, cancelled: cancelled, from: from, now: now)
        case .slideEdge(var e):
            if !cancelled { e.tracker.add(x, at: now) }
            // Where the Slide Over is drawn at the release (its left edge).
            let drawn = from.first { $0.app == secondary }.map { Double($0.frame.x) } ?? screenWidth - compactWidth + e.offset
            switch cancelled ? .stay : e.release(fingerX: x, now: now, screenWidth: screenWidth, compactWidth: compactWidth) {
            case .pin:
                guard let p = primary, let s = secondary, !fullScreenOnly.contains(p), !fullScreenOnly.contains(s) else { return [] }
                requested = .split23
                return settle(from: from, now: now, onFinish: []) + [.layoutChanged]
            case .dismiss:
                guard let s = secondary else { return [] }
                secondaryShown = false
                // As on iOS: inactive first, in the background once it has slid off, carried on
                // at the finger's velocity.
                let carried = Carried(velocity: e.velocity(at: now), distance: screenWidth + Double(MotionMetrics.exitMargin) - drawn, overshoot: Momentum.floatingOvershoot)
                return [.lifecycle(s, .willResignActive)] + settle(from: from, now: now, onFinish: [.lifecycle(s, .didEnterBackground)], carried: carried) + [.layoutChanged]
            case .stay:
                let carried = Carried(velocity: cancelled ? 0 : e.velocity(at: now), distance: screenWidth - compactWidth - drawn, overshoot: Momentum.floatingOvershoot)
                return settle(from: from, now: now, onFinish: [], carried: carried)
            }
        case .swap(let held, _, _):
            // Let go over the other pane: the apps swap sides.
            guard !cancelled, let other = paneAt(x: x, y: y), other.app != held else { return [] }
            return swapSides(from: from, now: now)
        case .swallowed:
            return []
        }
    }

    /// Snaps a released divider: near the right edge dismisses the secondary, the left
    /// quarter dismisses the primary, else the nearest allowed split. The panes settle from
    /// where the finger left them, still showing the drag's snapshots; apps get their
    /// configure now and are activated once the settle and their commit are done.
    private mutating func endDrag(_ d: DividerDrag, cancelled: Bool, from: [PresentedPane], now: UInt64) -> [ShellEffect] {
        guard let p = primary, let s = secondary else { return [.dropSnapshots] }
        let velocity = cancelled ? 0 : d.tracker.velocity(at: now)
        let outcome = d.outcome(
            cancelled: cancelled, velocity: velocity, screenWidth: screenWidth, dividerWidth: Double(profile.dividerWidth), compactWidth: compactWidth,
            splits: splits)
        var effects: [ShellEffect]
        var onFinish: [ShellEffect] = []
        switch outcome {
        case .dismissSecondary:
            secondaryShown = false
            effects = [.layoutChanged, .activateWhenDrawn(p)]
            onFinish = [.lifecycle(s, .didEnterBackground)]
        case .dismissPrimary:
            primary = s
            secondary = p
            secondaryShown = false
            effects = [.layoutChanged, .activateWhenDrawn(s)]
            onFinish = [.lifecycle(p, .didEnterBackground)]
        case .split(let nearest):
            // A landscape split-1/2 shown as split-2/3 in portrait stays remembered.
            if nearest != requested.shown(in: orientation) { requested = nearest }
            effects = [.layoutChanged, .activateWhenDrawn(p), .activateWhenDrawn(s)]
        }
        // The divider carries on at the finger's velocity, from where it is drawn, towards where
        // it rests.
        let released = PresentedPane.divider(between: from, screen: layout.screen).map { Double($0.x) } ?? d.x
        let target = layout.divider.map { Double($0.x) } ?? (outcome == .dismissPrimary ? 0 : screenWidth)
        let carried = Carried(velocity: velocity, distance: target - released, overshoot: Momentum.dividerOvershoot)
        return settle(from: from, now: now, onFinish: onFinish + [.dropSnapshots], carried: carried) + effects
    }

    // MARK: - Pen

    /// Handles a pen sample in points of the logical screen: it goes to the app under the pen
    /// when it comes into proximity, and stays with that app until it leaves.
    public mutating func handlePen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double) -> [ShellEffect] {
        // Hands off while the divider is held (see `touchDown`).
        guard drag == nil else { return [] }
        if phase == .proximityIn || penRoute == nil { penRoute = paneAt(x: x, y: y)?.app }
        guard let a = penRoute else { return [] }
        if phase == .proximityOut { penRoute = nil }
        let (lx, ly) = local(a, x, y)
        return [.pen(a, phase: phase, x: lx, y: ly, pressure: pressure, tiltX: tiltX, tiltY: tiltY)]
    }
}

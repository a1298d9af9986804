// SPDX-License-Identifier: MIT
// Touch and pen routing for the shell: each touch goes to an app or to one gesture recogniser
// (`Gestures.swift`) from its `down` until it lifts; the pen goes to the app under it.

extension Shell {
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
                if abs(x - centre) <= Double(d.width) / 2 + GestureMetrics.dividerGrab {
                    return beginDrag(id: id, x: x, divider: d)
                }
            }
            if arrangement == .slideOver, abs(x - (w - compactWidth)) <= GestureMetrics.slideOverGrab {
                routes[id] = .slideEdge(SlideOverEdgeDrag(startX: x, startTime: now))
                return []
            }
            if arrangement == .full, secondary != nil, let p = primary, x >= w - GestureMetrics.edgeZone {
                routes[id] = .edgeSwipe(EdgeSwipe(app: p, startX: x))
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

    /// The splits the divider may snap to here, with their divider positions.
    private var splits: [(Arrangement, Int)] {
        let allowed: [Arrangement] = orientation == .landscape ? [.split23, .split12] : [.split23]
        return allowed.map { a in (a, LayoutEngine.shownLayout(profile: profile, orientation: orientation, arrangement: a).divider?.x ?? 0) }
    }

    private mutating func beginDrag(id: Int32, x: Double, divider: Divider) -> [ShellEffect] {
        routes[id] = .divider(DividerDrag(fingerX: x, dividerX: divider.x, arrangement: arrangement))
        var effects: [ShellEffect] = shownApps.map { .lifecycle($0, .willResignActive) }
        // Every size each app may end at: the splits allowed here, or the full screen.
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

    private mutating func touchMotion(id: Int32, x: Double, y: Double) -> [ShellEffect] {
        guard let route = routes[id] else { return [] }
        switch route {
        case .app(let a):
            return [touch(a, id, .motion, x, y)]
        case .divider(var d):
            d.move(fingerX: x)
            routes[id] = .divider(d)
            return []
        case .slideEdge(var e):
            e.move(fingerX: x)
            routes[id] = .slideEdge(e)
            return []
        case .edgeSwipe(let swipe):
            guard swipe.claims(fingerX: x), let s = secondary, primary != nil else {
                return [touch(swipe.app, id, .motion, x, y)]
            }
            // The compositor claims the touch: the app loses it, and the Slide Over comes in.
            routes[id] = .swallowed
            var effects = [touch(swipe.app, id, .cancel, x, y)]
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
        case .app(let a):
            return [touch(a, id, cancelled ? .cancel : .up, x, y)]
        case .edgeSwipe(let swipe):
            return [touch(swipe.app, id, cancelled ? .cancel : .up, x, y)]
        case .divider(var d):
            if !cancelled { d.move(fingerX: x) }
            return endDrag(d, cancelled: cancelled)
        case .slideEdge(let e):
            guard !cancelled else { return [] }
            switch e.release(fingerX: x, now: now, screenWidth: screenWidth, compactWidth: compactWidth) {
            case .pin:
                guard let p = primary, let s = secondary, !fullScreenOnly.contains(p), !fullScreenOnly.contains(s) else { return [] }
                requested = .split23
                return [.layoutChanged]
            case .dismiss:
                guard let s = secondary else { return [] }
                secondaryShown = false
                return [.lifecycle(s, .didEnterBackground), .layoutChanged]
            case .stay:
                return []
            }
        case .swallowed:
            return []
        }
    }

    /// Snaps a released divider (SPEC §7): near the right edge dismisses the secondary, the left
    /// quarter dismisses the primary, else the nearest allowed split.
    private mutating func endDrag(_ d: DividerDrag, cancelled: Bool) -> [ShellEffect] {
        var effects: [ShellEffect] = [.dropSnapshots]
        guard let p = primary, let s = secondary else { return effects }
        let outcome = d.outcome(
            cancelled: cancelled, screenWidth: screenWidth, dividerWidth: Double(profile.dividerWidth), compactWidth: compactWidth,
            splits: splits)
        switch outcome {
        case .dismissSecondary:
            secondaryShown = false
            effects += [.lifecycle(s, .didEnterBackground), .layoutChanged, .activateWhenDrawn(p)]
        case .dismissPrimary:
            primary = s
            secondary = p
            secondaryShown = false
            effects += [.lifecycle(p, .didEnterBackground), .layoutChanged, .activateWhenDrawn(s)]
        case .split(let nearest):
            if nearest != d.startArrangement { requested = nearest }
            effects += [.layoutChanged, .activateWhenDrawn(p), .activateWhenDrawn(s)]
        }
        return effects
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

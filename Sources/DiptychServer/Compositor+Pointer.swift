// SPDX-License-Identifier: MIT
// The pointer: a mouse or trackpad moves a round cursor over the logical screen; the app under
// it hears `pointer` enter, leave, motion, button and scroll in its pane's points. The left
// button is a finger to the shell (it drags the divider, a Slide Over, a window); what the
// finger would give an app reaches it as pointer events. Motion is delivered once a turn of
// the loop (a mouse reporting at 1000 Hz wakes an app at most once a frame).

import DiptychCore
import DiptychImage
import DiptychWire

extension Compositor {
    /// The pointer moved to `x`, `y` in points of the logical screen (an absolute device, a
    /// scenario step).
    public func pointerMotion(toX x: Double, y: Double) {
        let size = desk.shell.layout.screen
        let wasShown = desk.pointer.shows(at: now)
        let before = desk.pointer.cursorRect
        desk.pointer.move(toX: x, y: y, within: Size(width: size.width, height: size.height), at: now)
        if cursorOnPlane {
            // The cursor plane moves: nothing is drawn.
            updateCursorPlane()
        } else if !wasShown || desk.pointer.cursorRect != before {
            scheduleFrame()
        }
        desk.pointer.motionPending = true
    }

    /// A scenario's pointer step, its position in panel pixels.
    public func panelPointer(_ step: PointerStep) {
        switch step {
        case .motion(let x, let y):
            let l = geometry.toLogical(x: x, y: y), scale = Double(desk.shell.profile.scale)
            pointerMotion(toX: l.x / scale, y: l.y / scale)
        case .button(let b, let pressed):
            pointerButton(b, pressed: pressed)
        case .scroll(let dx, let dy, let source):
            pointerScroll(dx: dx, dy: dy, source: source)
        }
    }

    /// The pointer moved by `dx`, `dy` points (a mouse, a trackpad: libinput's accelerated
    /// motion).
    public func pointerMotion(dx: Double, dy: Double) {
        let p = desk.pointer
        pointerMotion(toX: p.x + dx, y: p.y + dy)
    }

    /// A button (Linux code) went down or up where the pointer is.
    public func pointerButton(_ button: UInt32, pressed: Bool) {
        deliverPendingPointerMotion()
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        desk.pointer.button(button, pressed: pressed)
        if button == PointerButton.left {
            if let effects = desk.pointerTouch(phase: pressed ? .down : .up, x: x, y: y, now: now, space: pipSpace) { apply(effects) }
            scheduleFrame()
        } else {
            if pressed, desk.pointer.grab == nil, let pane = pane(atX: x, y: y) {
                desk.pointer.grab = pane.app
                focus(pane.app)
            }
            if let app = desk.pointer.grab { sendPointer(.button, to: app, x: x, y: y, button: button, pressed: pressed) }
        }
        if desk.pointer.held.isEmpty {
            desk.pointer.grab = nil
            hover(moved: false)
        }
    }

    /// A scroll of `dx`, `dy` points from `source`, to the app under the pointer.
    public func pointerScroll(dx: Double, dy: Double, source: ScrollSource) {
        deliverPendingPointerMotion()
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        guard let app = desk.pointer.grab ?? pane(atX: x, y: y)?.app else { return }
        sendPointer(.scroll, to: app, x: x, y: y, dx: dx, dy: dy, source: source)
    }

    /// The motion not yet told, before a button or a scroll (which happen where the pointer is).
    private func deliverPendingPointerMotion() {
        guard desk.pointer.motionPending else { return }
        desk.pointer.motionPending = false
        deliverPointerMotion()
    }

    /// Tells the apps of the pointer's motion (taken from the desk): through the shell while
    /// the left button is a finger, to the app holding another button, else to the app under
    /// it (with enter and leave when that changes).
    func deliverPointerMotion() {
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        if desk.pointer.held.contains(PointerButton.left) {
            if let effects = desk.pointerTouch(phase: .motion, x: x, y: y, now: now, space: pipSpace) { apply(effects) }
        } else if let app = desk.pointer.grab {
            sendPointer(.motion, to: app, x: x, y: y)
        } else {
            hover()
        }
    }

    /// The pointer rests over whatever is under it: `leave` to the app it left, `enter` to the
    /// app it came over, else `motion`.
    private func hover(moved: Bool = true) {
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        let under = desk.pointer.shows(at: now) ? pane(atX: x, y: y)?.app : nil
        if under != desk.pointer.over {
            if let old = desk.pointer.over { sendPointer(.leave, to: old, x: x, y: y) }
            desk.pointer.over = under
            if let new = under { sendPointer(.enter, to: new, x: x, y: y) }
        } else if moved, let app = under {
            sendPointer(.motion, to: app, x: x, y: y)
        }
    }

    /// The pane shown at `x`, `y` (points), the topmost: a Slide Over over the primary. None
    /// under a Picture in Picture window.
    func pane(atX x: Double, y: Double) -> PresentedPane? {
        let (px, py) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
        if floatingWindows.contains(where: { $0.frame.contains(x: x, y: y) }) { return nil }
        return presentedPanes.last { $0.frame.contains(x: Double(px), y: Double(py)) && session($0.app) != nil }
    }

    /// A finger the pointer's left button stood for reached an app: as pointer events.
    func pointerAsTouch(_ app: AppID, phase: TouchPhase, x: Double, y: Double) {
        guard let c = session(app) else { return }
        let time = inputTime
        switch phase {
        case .down:
            focus(app)
            send(.pointer(phase: .button, x: x, y: y, button: PointerButton.left, pressed: true, dx: 0, dy: 0, source: .wheel, time: time), to: c)
        case .motion:
            send(.pointer(phase: .motion, x: x, y: y, button: 0, pressed: false, dx: 0, dy: 0, source: .wheel, time: time), to: c)
        case .up, .cancel:
            send(.pointer(phase: .button, x: x, y: y, button: PointerButton.left, pressed: false, dx: 0, dy: 0, source: .wheel, time: time), to: c)
        }
    }

    private func sendPointer(
        _ phase: PointerPhase, to app: AppID, x: Double, y: Double, button: UInt32 = 0, pressed: Bool = false, dx: Double = 0, dy: Double = 0,
        source: ScrollSource = .wheel
    ) {
        guard let c = session(app) else { return }
        let origin = presentedPanes.first { $0.app == app }?.frame
        // `leave` says only that the pointer left: where it went (another app's pane) is none of
        // this app's business, so it carries no position (0, 0).
        let (lx, ly) = phase == .leave ? (0, 0) : (x - Double(origin?.x ?? 0), y - Double(origin?.y ?? 0))
        send(.pointer(phase: phase, x: lx, y: ly, button: button, pressed: pressed, dx: dx, dy: dy, source: source, time: inputTime), to: c)
    }

    /// The cursor's layer (a translucent disc over everything), while it shows.
    func cursorLayer(scale: Int) -> [SceneNode]? {
        guard !cursorOnPlane else { return nil }
        desk.pointer.drawnShowing = desk.pointer.shows(at: now)
        guard desk.pointer.drawnShowing else { return nil }
        let r = desk.pointer.cursorRect
        let px = Rect(x: r.x * scale, y: r.y * scale, width: r.width * scale, height: r.height * scale)
        return [SceneNode(key: .cursor, content: .chrome(.pill(ChromeStyle.cursorColor, alpha: ChromeStyle.cursorAlpha)), imageRect: px, clip: px)]
    }

    /// When the cursor hides if the pointer stays still.
    var cursorHides: UInt64? { desk.pointer.hides(after: now) }

    /// A touch or the pen hides the cursor.
    func hideCursorForTouch() {
        guard desk.pointer.shows(at: now) else { return }
        desk.pointer.touched()
        cursorVisibilityMayHaveChanged()
    }

    /// The cursor may have appeared or gone (time passed, a touch): the plane is updated, or a
    /// frame asked for.
    func cursorVisibilityMayHaveChanged() {
        guard desk.pointer.drawnShowing != desk.pointer.shows(at: now) else { return }
        cursorVisibilityChanged()
    }

    /// The cursor appeared or went: the plane is updated, or a frame asked for.
    func cursorVisibilityChanged() {
        if cursorOnPlane { updateCursorPlane() } else { scheduleFrame() }
    }

    /// Whether the cursor is on the output's cursor plane (moving it draws nothing) rather
    /// than in the frames: when the output has one that took the cursor.
    var cursorOnPlane: Bool { backend.cursorSize > 0 && !desk.pointer.planeRefused }

    /// Shows, hides and moves the cursor on the output's cursor plane. A plane that refuses
    /// the cursor is not asked again: the cursor is drawn into the frames from then on.
    private func updateCursorPlane() {
        let shows = desk.pointer.shows(at: now)
        let scale = Double(desk.shell.profile.scale)
        let diameter = min(backend.cursorSize, Int((Double(PointerState.diameter) * scale * geometry.scale).rounded()))
        if shows != desk.pointer.drawnShowing {
            let image = shows ? PixelImage.disc(diameter: diameter, color: ChromeStyle.cursorColor, alpha: ChromeStyle.cursorAlpha) : nil
            guard backend.setCursor(image, hotspot: (diameter / 2, diameter / 2)) else {
                logger.info("the output has no cursor plane: the cursor is drawn into the frames")
                desk.pointer.planeRefused = true
                scheduleFrame()
                return
            }
            desk.pointer.drawnShowing = shows
            if shows && !desk.pointer.planeUsed {
                desk.pointer.planeUsed = true
                logger.info("the cursor is on the output's cursor plane: pointer motion draws no frame")
            }
        }
        guard shows else { return }
        let p = geometry.transform.apply(x: desk.pointer.x * scale, y: desk.pointer.y * scale)
        backend.moveCursor(x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down)))
    }

    /// Where the pointer is, in points of the logical screen, and whether its cursor shows.
    public var pointerPosition: (x: Double, y: Double, shown: Bool) { (desk.pointer.x, desk.pointer.y, desk.pointer.shows(at: now)) }
}

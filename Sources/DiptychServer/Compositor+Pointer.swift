// SPDX-License-Identifier: MIT
// The pointer: a mouse or trackpad moves a round cursor over the logical screen; the app under
// it hears `pointer` enter, leave, motion, button and scroll in its pane's points. The left
// button is the shell's contact `.pointer` (it drags the divider, a Slide Over, a window as a
// finger does); what it gives an app reaches it as pointer events. Motion is delivered once a turn of
// the loop (a mouse reporting at 1000 Hz wakes an app at most once a frame).

import DiptychCore
import DiptychImage
import DiptychWire

extension Compositor {
    /// The pointer moved to `x`, `y` in points of the logical screen (an absolute device, a
    /// scenario step), at `time` (the device's, ms; nil: now).
    public func pointerMotion(toX x: Double, y: Double, time: Double? = nil) {
        let (wasShown, moved) = desk.movePointer(toX: x, y: y, now: now, time: time ?? Double(now))
        if cursorOnPlane {
            // The cursor plane moves: nothing is drawn.
            updateCursorPlane()
        } else if !wasShown || moved {
            scheduleFrame()
        }
        // Told the apps once a turn (`tick`), or before a button or a scroll.
    }

    /// A scenario's pointer step, its position in panel pixels.
    public func panelPointer(_ step: PointerStep, time: Double? = nil) {
        switch step {
        case .motion(let x, let y):
            let l = geometry.toLogical(x: x, y: y), scale = Double(desk.shell.profile.scale)
            pointerMotion(toX: l.x / scale, y: l.y / scale, time: time)
        case .button(let b, let pressed):
            pointerButton(b, pressed: pressed, time: time)
        case .scroll(let dx, let dy, let source):
            pointerScroll(dx: dx, dy: dy, source: source, time: time)
        }
    }

    /// The pointer moved by `dx`, `dy` points (a mouse, a trackpad: libinput's accelerated
    /// motion).
    public func pointerMotion(dx: Double, dy: Double, time: Double? = nil) {
        let p = desk.pointer
        pointerMotion(toX: p.x + dx, y: p.y + dy, time: time)
    }

    /// A button (Linux code) went down or up where the pointer is.
    public func pointerButton(_ button: UInt32, pressed: Bool, time: Double? = nil) {
        let time = time ?? Double(now)
        deliverPendingPointerMotion()
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        desk.pointerButton(button, pressed: pressed)
        if button == PointerButton.left {
            layOutPresentations()
            if let effects = desk.pointerContact(phase: pressed ? .down : .up, now: now, space: pipSpace) { apply(effects, time: time) }
            scheduleFrame()
        } else {
            if pressed, desk.pointer.grab == nil, let pane = pane(atX: x, y: y) {
                desk.grabPointer(pane.app)
                focus(pane.app)
            }
            if let app = desk.pointer.grab { sendPointer(.button, to: app, x: x, y: y, button: button, pressed: pressed, time: time) }
        }
        if desk.pointer.held.isEmpty {
            desk.grabPointer(nil)
            hover(moved: false, time: time)
        }
    }

    /// A scroll of `dx`, `dy` points from `source`, to the app under the pointer.
    public func pointerScroll(dx: Double, dy: Double, source: ScrollSource, time: Double? = nil) {
        deliverPendingPointerMotion()
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        guard let app = desk.pointer.grab ?? pane(atX: x, y: y)?.app else { return }
        sendPointer(.scroll, to: app, x: x, y: y, dx: dx, dy: dy, source: source, time: time ?? Double(now))
    }

    /// The motion not yet told, before a button or a scroll (which happen where the pointer is).
    private func deliverPendingPointerMotion() {
        guard let time = desk.takePointerMotion() else { return }
        deliverPointerMotion(time: time)
    }

    /// Tells the apps of the pointer's motion (taken from the desk), stamped with the time of
    /// the last motion: through the shell while the left button is a finger, to the app
    /// holding another button, else to the app under it (with enter and leave when that
    /// changes).
    func deliverPointerMotion(time: Double) {
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        if desk.pointer.held.contains(PointerButton.left) {
            layOutPresentations()
            if let effects = desk.pointerContact(phase: .motion, now: now, space: pipSpace) { apply(effects, time: time) }
        } else if let app = desk.pointer.grab {
            sendPointer(.motion, to: app, x: x, y: y, time: time)
        } else {
            hover(time: time)
        }
    }

    /// The pointer rests over whatever is under it: `leave` to the app it left, `enter` to the
    /// app it came over, else `motion`.
    private func hover(moved: Bool = true, time: Double) {
        let (x, y) = (desk.pointer.x, desk.pointer.y)
        let under = desk.pointer.shows(at: now) ? pane(atX: x, y: y)?.app : nil
        if under != desk.pointer.over {
            if let old = desk.pointer.over { sendPointer(.leave, to: old, x: x, y: y, time: time) }
            desk.pointerOver(under)
            if let new = under { sendPointer(.enter, to: new, x: x, y: y, time: time) }
        } else if moved, let app = under {
            sendPointer(.motion, to: app, x: x, y: y, time: time)
        }
    }

    /// The pane shown at `x`, `y` (points), the topmost: a Slide Over over the primary. None
    /// under a Picture in Picture window.
    func pane(atX x: Double, y: Double) -> PresentedPane? {
        let (px, py) = (Int(x.rounded(.down)), Int(y.rounded(.down)))
        if floatingWindows.contains(where: { $0.frame.contains(x: x, y: y) }) { return nil }
        return presentedPanes.last { $0.frame.contains(x: Double(px), y: Double(py)) && session($0.app) != nil }
    }

    /// The pointer's left button, as the shell gave it to an app (in its pane's points): the
    /// left button's press, motion and release.
    func pointerContact(_ app: AppID, phase: TouchPhase, x: Double, y: Double, time: Double) {
        guard let c = session(app) else { return }
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
        source: ScrollSource = .wheel, time: Double
    ) {
        guard let c = session(app) else { return }
        let origin = presentedPanes.first { $0.app == app }?.frame
        // `leave` says only that the pointer left: where it went (another app's pane) is none of
        // this app's business, so it carries no position (0, 0).
        let (lx, ly) = phase == .leave ? (0, 0) : (x - Double(origin?.x ?? 0), y - Double(origin?.y ?? 0))
        send(.pointer(phase: phase, x: lx, y: ly, button: button, pressed: pressed, dx: dx, dy: dy, source: source, time: time), to: c)
    }

    /// The cursor's layer (a translucent disc over everything), while it shows in the frames.
    /// (Only a look: the frame that draws it tells the desk, `layOut`.)
    func cursorLayer(scale: Int) -> [SceneNode]? {
        guard desk.cursorInFrames(at: now, onPlane: cursorOnPlane) else { return nil }
        let r = desk.pointer.cursorRect
        let px = Rect(x: r.x * scale, y: r.y * scale, width: r.width * scale, height: r.height * scale)
        return [SceneNode(key: .cursor, content: .chrome(.pill(ChromeStyle.cursorColor, alpha: ChromeStyle.cursorAlpha)), imageRect: px, clip: px)]
    }

    /// When the cursor hides if the pointer stays still.
    var cursorHides: UInt64? { desk.pointer.hides(after: now) }

    /// A touch or the pen hides the cursor.
    func hideCursorForTouch() {
        guard desk.pointer.shows(at: now) else { return }
        desk.pointerTouched()
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
                desk.cursorPlaneRefused()
                vncCursorMayHaveChanged()
                scheduleFrame()
                return
            }
            desk.cursorDrawn(showing: shows)
            if shows && desk.cursorPlaneUsed() {
                logger.info("the cursor is on the output's cursor plane: pointer motion draws no frame")
            }
        }
        guard shows else { return }
        let p = geometry.transform.apply(x: desk.pointer.x * scale, y: desk.pointer.y * scale)
        backend.moveCursor(x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down)))
    }

    /// Where the pointer is, in points of the logical screen, and whether its cursor shows.
    public var pointerPosition: (x: Double, y: Double, shown: Bool) { (desk.pointer.x, desk.pointer.y, desk.pointer.shows(at: now)) }

    /// When the pointer's cursor shows from now on (a reload of the configuration).
    public func setCursorMode(_ mode: CursorMode) {
        desk.setCursorMode(mode)
        vncCursorMayHaveChanged()
        redrawAll()
    }
}

// SPDX-License-Identifier: MIT
// Carrying out the shell's decisions (configures, lifecycle, snapshots, activation), and the
// inputs that drive it: touch and pen from the panel, rotation, emulation.

import DiptychCore
import Glibc
import DiptychRender
import DiptychWire

extension Compositor {
    /// Carries out what the shell decided; `byUser` false when an app caused it (it connected
    /// by itself), so nothing it brings takes the keyboard. The input events it sends carry
    /// `time` (the input's own, ms; nil: now).
    func apply(_ effects: [ShellEffect], byUser: Bool = true, time: Double? = nil) {
        scheduleFrame()
        let time = time ?? Double(now)
        for effect in effects {
            switch effect {
            case .touch(let app, let id, let phase, let x, let y):
                if phase == .down { focus(app) }
                if let c = session(app) { send(.touch(id: id, phase: phase, x: x, y: y, time: time), to: c) }
            case .pointer(let app, let phase, let x, let y):
                pointerContact(app, phase: phase, x: x, y: y, time: time)
            case .keyboard(let app, let output):
                keyboardTyped(output, for: app, time: time)
            case .pen(let app, let phase, let x, let y, let p, let tx, let ty):
                if phase == .down { focus(app) }
                if let c = session(app) {
                    send(.pen(phase: phase, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, time: time, tool: desk.penTool, buttons: desk.penButtons), to: c)
                }
            case .lifecycle(let app, let event):
                if let c = session(app) {
                    desk.forgetActivation(c.app)
                    send(.lifecycle(event), to: c)
                    c.lifecycleSent(event)
                }
            case .layoutChanged:
                sendConfigures()
            case .activateWhenDrawn(let app):
                guard let c = session(app) else { continue }
                desk.activateWhenDrawn(c.app, deadline: now + Compositor.activationTimeout)
                activateIfDrawn(c)
            case .requestSnapshots(let app, let panes):
                guard let c = session(app) else { continue }
                // The drag shows the app blurred: from its last frame until a snapshot comes.
                clients.blur(c, nil, factor: blurFactor)
                for pane in panes {
                    let serial = clients.newSerial()
                    c.requestedSnapshot(serial, of: pane)
                    send(.snapshotRequest(serial: serial, frame: pane.frame, pixelWidth: pane.pixelWidth, pixelHeight: pane.pixelHeight, horizontalSizeClass: pane.horizontalSizeClass), to: c)
                }
            case .dropSnapshots:
                for c in clients.all { c.dropSnapshots() }
            case .pipAction(let app, let action):
                pipAction(action, of: app)
            case .crossFade:
                // Reduce Motion: the change shows as a short cross-fade from what was shown.
                if frameCount > 0 { beginFade(from: backend.lastFrame.copy(), milliseconds: MotionMetrics.reducedFadeMilliseconds) }
            case .presented(let app, let answer):
                presentationAnswered(answer, of: app)
            case .focusByUser(let app):
                focus(app)
            }
        }
        // A tap ended in an app: an enable may name it (protocol 9).
        if let app = desk.takeNewTap() { session(app)?.tapped() }
        updatePiPEligibility()
        updateSecondScreen()
        updateFocus(byUser: byUser)
        presentationsFollowPanes()
        keyboardMayChange()
    }

    /// Sends `configure` to every shown app whose pane changed (with `sizeClassChanged` where
    /// a class really changed). While an app that joined has not drawn yet (for at most
    /// `newcomerWait`), the apps already on screen keep their configures: a join costs them
    /// nothing until the newcomer shows something, and an app that joins and leaves (however
    /// often) never reflows its partner.
    func sendConfigures() {
        desk.notePanes()
        let waitingForNewcomer = newcomerDrawing != nil
        admission.deferredConfigures = false
        for c in clients.inOrder where c.admitted {
            guard let pane = desk.shell.pane(of: c.app) else { continue }
            // The secondary is also re-told when only the arrangement changed (a Slide Over
            // pinned, a pinned pane made to float): that is what says where it is. The primary's
            // pane under a Slide Over that comes or goes is the same: nothing to tell it.
            if let previous = c.configure, previous.pane == pane, previous.arrangement == layout.arrangement || pane.role == .primary { continue }
            if waitingForNewcomer && c.commits > 0 {
                admission.deferredConfigures = true
                continue
            }
            c.sendConfigure(Configure(
                serial: clients.newSerial(), pane: pane, orientation: layout.orientation, arrangement: layout.arrangement,
                scale: Double(desk.shell.profile.scale), safeAreaInsets: safeAreaInsets(of: pane)))
        }
    }

    /// An admitted app that has not drawn yet and is still waited for: the deadline of the
    /// earliest (nil when none is).
    var newcomerDrawing: UInt64? {
        clients.all.compactMap { c in c.commits == 0 ? c.admittedAt.map { $0 + Self.newcomerWait } : nil }.filter { now < $0 }.min()
    }

    /// Sends the configures held back for a newcomer once it has drawn, left, or had its time.
    func sendDeferredConfigures() {
        if admission.deferredConfigures && newcomerDrawing == nil { sendConfigures() }
    }

    /// Sends `didBecomeActive` once the app has drawn its configure (or had 250 ms) and the
    /// panes have come to rest.
    func activateIfDrawn(_ c: ClientSession) {
        if desk.activates(c.app, drawn: c.hasCommittedForConfigure, now: now) { send(.lifecycle(.didBecomeActive), to: c) }
    }

    /// Sends the activations whose 250 ms ran out, and times out a pen that stopped reporting.
    public func tick() {
        updateScreenPower()
        watchMemory()
        let now = self.now
        // Most ticks (every frame of a settle) change nothing: nothing to apply then.
        let t = desk.tick(now: now)
        if !t.shell.isEmpty { apply(t.shell) }
        takeTextInput()
        presentationsFollowPanes()
        // A keyboard that slid all the way out is gone; one that stepped aside for a rotation
        // comes back when it ends.
        desk.pruneKeyboard(now: now)
        if desk.keyboard != nil {
            keyboardStepsAside()
            // A held delete key repeats.
            let repeats = desk.keyboardRepeats(now: now)
            if !repeats.isEmpty { apply(repeats) }
            // A key held half a second shows its popup.
            if desk.keyboardHoldsLong(now: now) { scheduleFrame() }
        }
        // A closed window that finished shrinking shows nothing more: its picture's buffer goes.
        for c in clients.all where c.pip.departing != nil && !desk.pip.windows.contains(where: { $0.app == c.app }) { c.endDeparture() }
        sendDeferredConfigures()
        if !t.pen.isEmpty { apply(t.pen) }
        // Nothing is activated while panes move (every frame of a settle).
        for app in desk.waitingActivations(now: now) {
            if let c = session(app) { activateIfDrawn(c) }
        }
        repeatKeys()
        sendVNCFrame()
        clients.dropIdlePages()
        // The chrome no frame shows any more goes a while after it was last drawn.
        if let due = renderer.chrome.nextSweep, now >= due { renderer.chrome.sweep(now: now, shown: main.shownChrome) }
        if let time = t.pointerMoved { deliverPointerMotion(time: time) }
        // The cursor hides after a while without motion: a frame without it.
        if t.cursorChanged { cursorVisibilityChanged() }
    }

    /// The next time `tick` has something to do (an activation deadline), if any.
    /// Live only: the monotonic clock is then the compositor's (a scenario's virtual time has
    /// no such wake-ups).
    var nextTickDeadline: UInt64? {
        guard virtualTime == nil else { return nil }
        // The owners that keep their own deadlines, and those the compositor works out.
        let owners: [any Timed] = [supervision, keys, clients, renderer.chrome, launcher.cpu]
        return ([owners.earliestDeadline, desk.nextDeadline(after: now), nextConnectionDeadline, admission.deferredConfigures ? newcomerDrawing : nil, cursorHides,
                 desk.keyboard?.nextRepeat, screenPowerDeadline, memoryDeadline, vncDeadline] as [UInt64?])
            .compactMap { $0 }.min()
    }

    /// Whether nothing moves and no activation is pending: no drag, settle or cross-fade is in
    /// progress, and every shown app has drawn its configure or had its 250 ms.
    public var isSettled: Bool { !isInMotion && !desk.activationPending }

    // MARK: - Input and rotation

    /// Input in panel pixels (a touchscreen mapped to the panel, or a scenario step), taken
    /// into the logical screen: the one entry point for scripted and real input. `time`: the
    /// device's time of the event (ms), which the events it sends apps carry (nil: now).
    public func panelInput(_ input: PanelInput, time: Double? = nil) {
        // The input that wakes a blank screen is swallowed whole.
        if screenSwallows(input) { return }
        let scale = Double(desk.shell.profile.scale)
        switch input {
        case .key(let code, let pressed, let keyboard):
            key(code, pressed: pressed, time: time, keyboard: keyboard)
            return
        case .pointer(let step):
            panelPointer(step, time: time)
            return
        case .pointerMove(let dx, let dy):
            // Panel pixels to points: the logical screen's scale and the panel's fit.
            let f = geometry.scale
            pointerMotion(dx: dx / f / scale, dy: dy / f / scale, time: time)
            return
        default:
            break
        }
        // A finger may move a pane, the divider or a window.
        scheduleFrame()
        switch input {
        case .touch(let id, let phase, let x, let y):
            let l = geometry.toLogical(x: x, y: y)
            touch(id: id, phase: phase, x: l.x / scale, y: l.y / scale, time: time)
        case .pen(let phase, let x, let y, let p, let tx, let ty, let tool, let buttons):
            let l = geometry.toLogical(x: x, y: y)
            pen(phase: phase, x: l.x / scale, y: l.y / scale, pressure: p, tiltX: tx, tiltY: ty, tool: tool, buttons: buttons, time: time)
        case .key, .pointer, .pointerMove:
            break
        }
    }

    /// A finger touch in points of the logical screen. Palm rejection decides first whether
    /// it reaches the shell (and so an app or a gesture); a touch on a Picture in Picture
    /// window moves the window and never reaches an app.
    public func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, time: Double? = nil) {
        hideCursorForTouch()
        layOutPresentations()
        if let effects = desk.touch(id: id, phase: phase, x: x, y: y, now: now, space: pipSpace) { apply(effects, time: time) }
    }

    /// A pen sample in points of the logical screen (see `Desk.pen`).
    public func pen(
        phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, tool: PenTool = .pen, buttons: PenButtons = [], time: Double? = nil
    ) {
        hideCursorForTouch()
        layOutPresentations()
        apply(desk.pen(phase: phase, x: x, y: y, pressure: pressure, tiltX: tiltX, tiltY: tiltY, tool: tool, buttons: buttons, now: now, space: pipSpace), time: time)
    }

    /// Rotates the logical screen (the apps' orientation). Without emulation a headless
    /// output follows it; with emulation the panel stays and the picture is refitted.
    public func rotate(to orientation: Orientation) {
        guard orientation != desk.shell.orientation else { return }
        // (Under Reduce Motion the turn is a cross-fade.)
        crossFading(turning: !configuration.reduceMotion) { desk.rotate(to: orientation) }
    }

    /// Changes the logical screen through `change` (the shell's decision), refitting the
    /// output, with a cross-fade from what was shown; `turning` (a rotation): the old frame
    /// turns into the new one.
    private func crossFading(turning: Bool = false, _ change: () -> [ShellEffect]) {
        // The old frame fades out over the new (or turns into it).
        // (A turn keeps only a reduced copy: a whole frame's copy is a cost the first frame of
        // the turn would pay.)
        if frameCount > 0 { beginFade(from: turning ? backend.lastFrame.reduced(by: TurnPictures.reduction) : backend.lastFrame.copy()) }
        let before = geometry.transform
        let effects = change()
        updateGeometry()
        // How far the logical screen turned on the panel (the panel itself turns with it when
        // the output follows the logical screen, as headless).
        func angle(_ t: AffineTransform) -> Double { atan2(t.b, t.a) }
        if let old = main.fadePictures?.old, let fit = desk.fitFade(old: Size(width: old.width, height: old.height), to: geometry.panel, turning: turning ? angle(geometry.transform) - angle(before) : nil) {
            main.fadePictures?.fit(transform: fit.transform, turnInto: fit.turnInto)
        }
        apply(effects)
    }

    /// Redraws the whole output (and the second screen) at the next frame (after the output
    /// came back).
    public func redrawAll() {
        main.redraw()
        secondScreen?.output.redraw()
    }

    /// Lifts every finger on the screen where it last was (the session went to another VT: a
    /// divider drag ends as if the finger lifted).
    public func liftAllTouches() {
        for t in desk.touchesDown { touch(id: t.id, phase: .up, x: t.x, y: t.y) }
    }

    /// Sets the output's rotation on the panel; apps are not told (their screen is unchanged).
    /// Touch follows: a touch is mapped through the new geometry.
    public func rotateOutput(_ rotation: OutputRotation) {
        guard rotation != geometry.rotation else { return }
        updateGeometry(rotation: rotation)
        redrawAll()
    }

    /// Shows `arrangement` as if the user had arranged it (the operator's `ctl arrangement`);
    /// why not, when it cannot be.
    public func arrange(_ arrangement: Arrangement) -> Shell.ArrangeRefusal? {
        switch desk.arrange(arrangement, now: now) {
        case .success(let effects):
            apply(effects)
            return nil
        case .failure(let why):
            return why
        }
    }

    /// Soft relaunch: emulates another device profile on the same panel. Every shown app gets
    /// a new configure (and sizeClassChanged where a class changes); apps keep running.
    public func emulate(_ profile: DeviceProfile) {
        guard profile != desk.shell.profile else { return }
        crossFading { desk.changeProfile(to: profile) }
        // (The viewers' cursor is the disc at the new scale.)
        vncCursorMayHaveChanged()
    }

    private func updateGeometry(rotation: OutputRotation? = nil) {
        scheduleFrame()
        main.refit(logical: desk.shell.profile.pixelSize(desk.shell.orientation), rotation: rotation)
        if backend.size != geometry.panel, !backend.resize(to: geometry.panel) {
            logger.warning("the output cannot take the new size", metadata: ["output.size": "\(backend.size)", "wanted": "\(geometry.panel)"])
        }
        // A mirroring second screen is refitted at its next frame.
        secondScreen?.output.wantFrame()
    }
}

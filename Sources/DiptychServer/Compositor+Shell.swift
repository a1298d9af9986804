// SPDX-License-Identifier: MIT
// Carrying out the shell's decisions (configures, lifecycle, snapshots, activation), and the
// inputs that drive it: touch and pen from the panel, rotation, emulation.

import DiptychCore
import DiptychWire

extension Compositor {
    /// Carries out what the shell decided.
    func apply(_ effects: [ShellEffect]) {
        scheduleFrame()
        for effect in effects {
            switch effect {
            case .touch(let app, let id, let phase, let x, let y):
                if let c = session(app) { send(.touch(id: id, phase: phase, x: x, y: y, time: inputTimestamp ?? Double(now)), to: c) }
            case .pen(let app, let phase, let x, let y, let p, let tx, let ty):
                if let c = session(app) {
                    send(.pen(phase: phase, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, time: inputTimestamp ?? Double(now), tool: penTool, buttons: penButtons), to: c)
                }
            case .lifecycle(let app, let event):
                if let c = session(app) {
                    pendingActivation[c.id] = nil
                    send(.lifecycle(event), to: c)
                }
            case .layoutChanged:
                sendConfigures()
            case .activateWhenDrawn(let app):
                guard let c = session(app) else { continue }
                pendingActivation[c.id] = now + Compositor.activationTimeout
                activateIfDrawn(c)
            case .requestSnapshots(let app, let panes):
                guard let c = session(app) else { continue }
                for pane in panes {
                    let serial = nextSerial
                    nextSerial &+= 1
                    c.snapshotRequests[serial] = pane
                    send(.snapshotRequest(serial: serial, frame: pane.frame, pixelWidth: pane.pixelWidth, pixelHeight: pane.pixelHeight, horizontalSizeClass: pane.horizontalSizeClass), to: c)
                }
            case .dropSnapshots:
                for c in sessions.values { c.dropSnapshots() }
            }
        }
        updatePiPEligibility()
        updateSecondScreen()
    }

    /// Sends `configure` to every shown app whose pane changed (with `sizeClassChanged` where
    /// a class really changed). While an app that joined has not drawn yet (for at most
    /// `newcomerWait`), the apps already on screen keep their configures: a join costs them
    /// nothing until the newcomer shows something, and an app that joins and leaves (however
    /// often) never reflows its partner.
    func sendConfigures() {
        let waitingForNewcomer = newcomerDrawing != nil
        deferredConfigures = false
        for c in sessions.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) where c.admitted {
            guard let pane = shell.pane(of: c.app) else { continue }
            if let previous = c.configure, previous.pane == pane { continue }
            if waitingForNewcomer && c.commits > 0 {
                deferredConfigures = true
                continue
            }
            c.sendConfigure(Configure(
                serial: nextSerial, pane: pane, orientation: layout.orientation, arrangement: layout.arrangement,
                scale: Double(shell.profile.scale), safeAreaInsets: safeAreaInsets(of: pane)))
            nextSerial &+= 1
        }
    }

    /// An admitted app that has not drawn yet and is still waited for: the deadline of the
    /// earliest (nil when none is).
    var newcomerDrawing: UInt64? {
        sessions.values.filter { $0.admitted && $0.commits == 0 && now < $0.admittedAt + Self.newcomerWait }.map { $0.admittedAt + Self.newcomerWait }.min()
    }

    /// Sends the configures held back for a newcomer once it has drawn, left, or had its time.
    func sendDeferredConfigures() {
        if deferredConfigures && newcomerDrawing == nil { sendConfigures() }
    }

    /// Sends `didBecomeActive` once the app has drawn its configure (or had 250 ms) and the
    /// panes have come to rest.
    func activateIfDrawn(_ c: ClientSession) {
        guard let deadline = pendingActivation[c.id], !shell.isMoving(at: now) else { return }
        if c.hasCommittedForConfigure || now >= deadline {
            pendingActivation[c.id] = nil
            send(.lifecycle(.didBecomeActive), to: c)
        }
    }

    /// Whether the shell's panes are settling now, read from its field (`Shell.isSettling(at:)`
    /// called on the stored shell would copy all of it).
    var isSettlingNow: Bool { shell.motion.map { $0.isRunning(at: now) } ?? false }

    /// Sends the activations whose 250 ms ran out, and times out a pen that stopped reporting.
    public func tick() {
        // Most ticks (every frame of a settle) change nothing: nothing to apply then.
        let effects = shell.tick(now: now)
        if !effects.isEmpty { apply(effects) }
        sendDeferredConfigures()
        if palm.tick(now: now) {
            apply(shell.handlePen(phase: .proximityOut, x: lastPenPosition.x, y: lastPenPosition.y, pressure: 0, tiltX: 0, tiltY: 0))
        }
        // Nothing is activated while panes move (every frame of a settle): asked once, not
        // per app, and the settle from the shell's field before `isMoving` copies the shell.
        guard !pendingActivation.isEmpty, !isSettlingNow, !shell.isMoving(at: now) else { return }
        for id in pendingActivation.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            if let c = sessions[id] { activateIfDrawn(c) }
        }
    }

    /// The next time `tick` has something to do (an activation deadline), if any.
    var nextTickDeadline: UInt64? {
        [pendingActivation.values.min(), shell.nextDeadline, nextConnectionDeadline, nextSupervisionDeadline, deferredConfigures ? newcomerDrawing : nil]
            .compactMap { $0 }.min()
    }

    /// Whether nothing moves and no activation is pending: no drag, settle or cross-fade is in
    /// progress, and every shown app has drawn its configure or had its 250 ms.
    public var isSettled: Bool { !isInMotion && pendingActivation.isEmpty }

    // MARK: - Input and rotation

    /// Input in panel pixels (a touchscreen mapped to the panel, or a scenario step), taken
    /// into the logical screen: the one entry point for scripted and real input.
    public func panelInput(_ input: PanelInput) {
        // A finger may move a pane, the divider or a window.
        scheduleFrame()
        let scale = Double(shell.profile.scale)
        switch input {
        case .touch(let id, let phase, let x, let y):
            let l = geometry.toLogical(x: x, y: y)
            touch(id: id, phase: phase, x: l.x / scale, y: l.y / scale)
        case .pen(let phase, let x, let y, let p, let tx, let ty, let tool, let buttons):
            (penTool, penButtons) = (tool, buttons)
            let l = geometry.toLogical(x: x, y: y)
            pen(phase: phase, x: l.x / scale, y: l.y / scale, pressure: p, tiltX: tx, tiltY: ty)
        }
    }

    /// A finger touch in points of the logical screen. Palm rejection decides first whether
    /// it reaches the shell (and so an app or a gesture).
    public func touch(id: Int32, phase: TouchPhase, x: Double, y: Double) {
        lastTouchPosition[id] = phase == .up || phase == .cancel ? nil : (x, y)
        guard palm.touch(id: id, phase: phase, now: now) == .deliver else { return }
        // A touch on a Picture in Picture window moves the window, never reaches an app.
        if pipTouch(id: id, phase: phase, x: x, y: y) { return }
        apply(shell.handleTouch(id: id, phase: phase, x: x, y: y, now: now))
    }

    /// A pen sample in points of the logical screen. A pen arriving cancels every finger touch
    /// in progress (apps get `cancel`; a gesture ends where it began); the pen goes to the app
    /// under it and never starts a compositor gesture.
    public func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double) {
        for id in palm.pen(phase: phase, now: now) {
            let at = lastTouchPosition[id] ?? (x, y)
            apply(shell.handleTouch(id: id, phase: .cancel, x: at.x, y: at.y, now: now))
        }
        lastPenPosition = (x, y)
        // A pen stroke that starts on a Picture in Picture window draws nothing below it.
        if phase == .down, pip.frames(in: pipSpace, at: now).contains(where: { $0.frame.contains(x: x, y: y) }) { penOnWindow = true }
        if penOnWindow {
            if phase == .up || phase == .proximityOut { penOnWindow = false }
            if phase != .proximityOut { return }
        }
        apply(shell.handlePen(phase: phase, x: x, y: y, pressure: pressure, tiltX: tiltX, tiltY: tiltY))
    }

    /// Rotates the logical screen (the apps' orientation). Without emulation a headless
    /// output follows it; with emulation the panel stays and the picture is refitted.
    public func rotate(to orientation: Orientation) {
        guard orientation != shell.orientation else { return }
        crossFading { shell.rotate(to: orientation) }
    }

    /// Changes the logical screen through `change` (the shell's decision), refitting the
    /// output, with a cross-fade from what was shown.
    private func crossFading(_ change: () -> [ShellEffect]) {
        beginCrossFade()
        // Windows held or settling come to rest in their corners of the new screen.
        _ = pip.rest()
        let effects = change()
        updateGeometry()
        fitCrossFade()
        apply(effects)
    }

    /// Redraws the whole output (and the second screen) at the next frame (after the output
    /// came back).
    public func redrawAll() {
        scheduleFrame()
        main.damage.invalidate()
        secondScreen?.full = true
    }

    /// Lifts every finger on the screen where it last was (the session went to another VT: a
    /// divider drag ends as if the finger lifted).
    public func liftAllTouches() {
        for (id, at) in lastTouchPosition.sorted(by: { $0.key < $1.key }) { touch(id: id, phase: .up, x: at.x, y: at.y) }
    }

    /// Sets the output's rotation on the panel; apps are not told (their screen is unchanged).
    public func rotateOutput(_ rotation: OutputRotation) {
        outputRotation = rotation
        updateGeometry()
    }

    /// Soft relaunch: emulates another device profile on the same panel. Every shown app gets
    /// a new configure (and sizeClassChanged where a class changes); apps keep running.
    public func emulate(_ profile: DeviceProfile) {
        guard profile != shell.profile else { return }
        crossFading { shell.changeProfile(to: profile) }
    }

    private func updateGeometry() {
        scheduleFrame()
        geometry = Self.geometry(logical: shell.profile.pixelSize(shell.orientation), panel: emulateOn, rotation: outputRotation)
        if backend.size != geometry.panel, !backend.resize(to: geometry.panel) {
            logger.warning("the output cannot take the new size", metadata: ["output.size": "\(backend.size)", "wanted": "\(geometry.panel)"])
        }
        main.damage.setGeometry(geometry)
        refitSecondScreen()
    }
}

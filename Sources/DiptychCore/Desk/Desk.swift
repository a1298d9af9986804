// SPDX-License-Identifier: MIT
// The desk: what the compositor decides about what is shown where, apart from the apps and the
// outputs: the shell (roles, arrangement, gestures), palm rejection, the Picture in Picture
// windows and the touches that hold them, a rotation's cross-fade (when and how far: its
// pixels are the renderer's), the apps waiting to be activated, the keyboard focus, the
// on-screen keyboard and the taps that raise it, the apps' menus and alerts (presentations),
// the pointer and the pen's state. A value: its entry points take the time and the input and
// return what to do (`ShellEffect`s), as `Shell` does; the compositor carries that out. Its
// state is its own: nothing outside this file changes it but through these entry points. Not
// copyable: the compositor reads it in place, never a copy of all of it.


package struct Desk: ~Copyable {
    /// The multitasking state: roles, arrangement, gestures.
    package private(set) var shell: Shell
    /// Which finger touches get through while a pen is in use.
    package private(set) var palm: PalmRejection
    /// The Picture in Picture windows.
    package private(set) var pip = PictureInPicture()
    /// The old orientation's last frame fading out, if a rotation is in progress.
    package private(set) var fade: CrossFade?
    /// The touches holding a Picture in Picture window.
    private var pipTouches: Set<Contact> = []
    /// Apps to activate once they have drawn, with the time they are activated anyway.
    private var pendingActivation: [AppID: UInt64] = [:]
    private var lastPen = (x: 0.0, y: 0.0)
    private var lastTouch: [Int32: (x: Double, y: Double)] = [:]
    /// The pen went down on a window: its stroke reaches no app.
    private var penOnWindow = false
    /// The pen's end and barrel buttons, as the input being handled reports them.
    package private(set) var penTool: PenTool = .pen
    package private(set) var penButtons: PenButtons = []
    /// The app that has the keyboard: the one last touched, tapped or clicked, or a Slide
    /// Over that came in.
    package private(set) var focus: AppID?
    /// The pointer, when a mouse or trackpad is used (changed through the entry points below).
    package private(set) var pointer = PointerState()
    /// Whether a Slide Over showed when the focus was last looked at.
    private var slideOverShown = false
    /// The on-screen keyboard, while it shows or slides away.
    package private(set) var keyboard: KeyboardPresence?
    /// Its languages (`keyboard-layouts`), and the one it types now.
    package private(set) var languages: [KeyboardLanguage] = [.us]
    package private(set) var languageIndex = 0
    /// The app the last tap ended in, and when (the keyboard shows for a field enabled up to
    /// `KeyboardRules.enableAfterTap` ms later).
    package private(set) var lastTap: (app: AppID, at: UInt64)?
    /// The app a tap ended in since the compositor last looked (it notes the tap's serial).
    private var newTap: AppID?
    private var taps = TapTracker()
    /// The apps' menus and alerts (they take the contacts that are theirs).
    package private(set) var presented = Presentations()

    package init(shell: Shell, palm: PalmRejection) {
        self.shell = shell
        self.palm = palm
        pip.reduceMotion = shell.reduceMotion
    }

    // MARK: - Input

    /// Gives the keyboard to `app` (nil: nobody); the app that had it, if it changed.
    package mutating func setFocus(_ app: AppID?) -> (lost: AppID?, gained: AppID?)? {
        guard app != focus else { return nil }
        defer { focus = app }
        return (focus, app)
    }

    /// Who should have the keyboard after the shell changed: a Slide Over that the user brought
    /// in takes it (not one that came in because an app connected: focus comes only from the
    /// user, as xdg-activation asks for a token); an app no longer on screen loses it to the
    /// primary; with nobody focused, the primary takes it.
    package mutating func focusAfterChange(byUser: Bool) -> AppID? {
        let slideOver = shell.arrangement == .slideOver
        defer { slideOverShown = slideOver }
        if byUser && slideOver && !slideOverShown, let s = shell.secondary { return s }
        if let f = focus, shell.primary == f || (shell.secondary == f && shell.secondaryShown) { return f }
        return shell.primary
    }

    /// Super+\ and Super+←/→ (see `Shell.toggleSlideOver`, `Shell.moveDivider`).
    package mutating func toggleSlideOver(now: UInt64) -> [ShellEffect] { shell.toggleSlideOver(now: now) }
    package mutating func moveDivider(towardsLeading: Bool, now: UInt64) -> [ShellEffect] { shell.moveDivider(towardsLeading: towardsLeading, now: now) }
    package mutating func arrange(_ a: Arrangement, now: UInt64) -> Result<[ShellEffect], Shell.ArrangeRefusal> { shell.arrange(a, now: now) }

    /// The pointer's left button as the contact `.pointer`: it reaches gestures and windows as
    /// a finger does (an app under it gets pointer events: `ShellEffect.pointer`), never held
    /// off by palm rejection (a mouse is no palm).
    package mutating func pointerContact(phase: TouchPhase, now: UInt64, space: PiPSpace) -> [ShellEffect]? {
        let (x, y) = (pointer.x, pointer.y)
        if let typed = keyboardTouch(.pointer, phase: phase, x: x, y: y, now: now) { return typed }
        if let taken = pipTouch(.pointer, phase: phase, x: x, y: y, now: now, space: space) { return taken }
        if let answered = presented.touch(.pointer, phase: phase, x: x, y: y, under: shell.appAt(x: x, y: y)) { return answered }
        return noteTap(shell.handleTouch(id: .pointer, phase: phase, x: x, y: y, now: now), now: now)
    }

    // MARK: - The pointer

    /// The pointer moved to `x`, `y` (kept on the screen) at `now`: whether the cursor showed
    /// before, and whether its rectangle changed.
    /// `time`: the device's time of the motion (ms), which the apps' events carry.
    package mutating func movePointer(toX x: Double, y: Double, now: UInt64, time: Double) -> (wasShown: Bool, moved: Bool) {
        let wasShown = pointer.shows(at: now), before = pointer.cursorRect
        let size = shell.layout.screen
        pointer.move(toX: x, y: y, within: Size(width: size.width, height: size.height), at: now)
        pointer.motionPending = time
        return (wasShown, pointer.cursorRect != before)
    }

    /// A button went down or up.
    package mutating func pointerButton(_ code: UInt32, pressed: Bool) { pointer.button(code, pressed: pressed) }

    /// The app a held button goes to until the last button comes up (nil: none).
    package mutating func grabPointer(_ app: AppID?) { pointer.grab = app }

    /// The app the pointer is over now (it had `enter`).
    package mutating func pointerOver(_ app: AppID?) { pointer.over = app }

    /// Takes the motion the apps were not told yet: its time, if there was any.
    package mutating func takePointerMotion() -> Double? {
        defer { pointer.motionPending = nil }
        return pointer.motionPending
    }

    /// When the cursor shows (always: from the screen's centre).
    package mutating func setCursorMode(_ mode: CursorMode) {
        pointer.mode = mode
        if mode == .always { pointer.center(in: shell.layout.screen) }
    }

    /// A touch or the pen was used: the cursor hides until the pointer moves again.
    package mutating func pointerTouched() { pointer.touched() }

    /// The cursor shows on the output now, or not (drawn into a frame, or on the cursor plane).
    package mutating func cursorDrawn(showing: Bool) { pointer.drawnShowing = showing }

    /// The output's cursor plane refused the cursor: it is drawn into the frames from now on.
    package mutating func cursorPlaneRefused() { pointer.planeRefused = true }

    /// The cursor was put on the cursor plane: whether for the first time.
    package mutating func cursorPlaneUsed() -> Bool {
        defer { pointer.planeUsed = true }
        return !pointer.planeUsed
    }

    /// Whether the cursor would be drawn into a frame at `now`: it shows, and not on a plane.
    package func cursorInFrames(at now: UInt64, onPlane: Bool) -> Bool { !onPlane && pointer.shows(at: now) }

    /// A finger in points of the logical screen, or nil when palm rejection held it off. A
    /// touch on a Picture in Picture window reaches no app nor gesture (its effects are the
    /// window's: a control's action).
    package mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, now: UInt64, space: PiPSpace) -> [ShellEffect]? {
        lastTouch[id] = phase == .up || phase == .cancel ? nil : (x, y)
        guard palm.touch(id: id, phase: phase, now: now) == .deliver else { return nil }
        if let typed = keyboardTouch(.finger(id), phase: phase, x: x, y: y, now: now) { return typed }
        if let taken = pipTouch(.finger(id), phase: phase, x: x, y: y, now: now, space: space) { return taken }
        if let answered = presented.touch(.finger(id), phase: phase, x: x, y: y, under: shell.appAt(x: x, y: y)) { return answered }
        return noteTap(shell.handleTouch(id: .finger(id), phase: phase, x: x, y: y, now: now), now: now)
    }

    /// Notes the app a tap ended in (see `TapTracker`).
    private mutating func noteTap(_ effects: [ShellEffect], now: UInt64) -> [ShellEffect] {
        if let app = taps.tapEnded(in: effects) {
            lastTap = (app, now)
            newTap = app
        }
        return effects
    }

    /// The app a tap ended in since the last call, if one did (its effects were just carried
    /// out: the app was sent the tap's end).
    package mutating func takeNewTap() -> AppID? {
        defer { newTap = nil }
        return newTap
    }

    /// A contact on the on-screen keyboard (nil: not the keyboard's): keys darken while held
    /// and type when let go; nothing reaches an app, and the keyboard focus stays.
    private mutating func keyboardTouch(_ contact: Contact, phase: TouchPhase, x: Double, y: Double, now: UInt64) -> [ShellEffect]? {
        guard var k = keyboard, !keyboardSuspended || k.holds(contact) else { return nil }
        defer { keyboard = k }
        return k.touch(contact, phase: phase, x: x, y: y, screen: shell.layout.screen, orientation: shell.orientation, at: now)?.map { .keyboard(k.owner, $0) }
    }

    // MARK: - Menus and alerts (see `Presentations`)

    package mutating func present(_ p: Presentation) { presented.present(p, in: paneFrame(of: p.owner)) }
    package mutating func removePresentation(of app: AppID) -> Presentation? { presented.remove(app) }
    package mutating func presentationLaidOut(_ app: AppID, _ l: Presentation.Layout, pane: RectD) { presented.laidOut(app, l, pane: pane) }
    package mutating func presentationTyped(_ output: KeyboardOutput, for app: AppID) -> [ShellEffect]? { presented.type(output, for: app) }

    // MARK: - The on-screen keyboard

    /// Raises the keyboard for `app`'s field of `state` (or updates the one it has): only its
    /// shortcut bar when `bar` (a hardware keyboard types).
    package mutating func showKeyboard(for app: AppID, state: TextInputState, bar: Bool, now: UInt64) {
        if var k = keyboard, k.owner == app, !k.isHiding {
            k.update(state)
            keyboard = k
            return
        }
        keyboard = KeyboardPresence(owner: app, state: state, languages: languages, current: languageIndex, at: now)
        if bar { keyboard?.show(bar: true) }
    }

    /// The keyboard's languages from now on (none: US English), the first in use.
    package mutating func setLanguages(_ list: [KeyboardLanguage]) {
        languages = list.isEmpty ? [.us] : list
        languageIndex = 0
        keyboard?.setLanguages(languages, current: 0)
    }

    /// The next language of the list (the globe key's tap), or language `index`.
    package mutating func switchLanguage(to index: Int? = nil) {
        languageIndex = index.map { min(max($0, 0), languages.count - 1) } ?? (languageIndex + 1) % languages.count
        keyboard?.setLanguages(languages, current: languageIndex)
    }

    /// The keyboard shows only its shortcut bar (`bar`), or its keys again.
    package mutating func keyboardShows(bar: Bool) { keyboard?.show(bar: bar) }

    /// The field of the keyboard's app changed (its caret, its text, its purpose).
    package mutating func updateKeyboard(_ state: TextInputState) { keyboard?.update(state) }

    /// Slides the keyboard away.
    package mutating func hideKeyboard(now: UInt64) { keyboard?.hide(at: now) }

    /// The last tap has raised the keyboard, or the keyboard went: it raises nothing more.
    package mutating func consumeTap() { lastTap = nil }

    /// Whether the keyboard steps aside now: while a divider drag, a Slide Over swipe or a
    /// rotation runs (it comes back after, if still wanted).
    package var keyboardSuspended: Bool { shell.isFollowingFinger || fade != nil }

    /// The keyboard came back after stepping aside: it slides in again from `now`.
    package mutating func keyboardReturns(now: UInt64) {
        guard let k = keyboard, !k.isHiding else { return }
        keyboard = KeyboardPresence(resuming: k, at: now)
    }

    /// What a held delete key gives at `now` (see `KeyboardPresence.repeats`), for its app.
    package mutating func keyboardRepeats(now: UInt64) -> [ShellEffect] {
        guard var k = keyboard, !keyboardSuspended else { return [] }
        defer { keyboard = k }
        return k.repeats(at: now, screen: shell.layout.screen, orientation: shell.orientation).map { .keyboard(k.owner, $0) }
    }

    /// Opens the popup of a key held long enough by `now` (see `KeyboardPresence.holdLong`):
    /// whether one opened.
    package mutating func keyboardHoldsLong(now: UInt64) -> Bool {
        guard var k = keyboard, !keyboardSuspended else { return false }
        defer { keyboard = k }
        return k.holdLong(at: now, screen: shell.layout.screen, orientation: shell.orientation)
    }

    /// Forgets a keyboard that has slid all the way out.
    package mutating func pruneKeyboard(now: UInt64) {
        if keyboard?.isGone(at: now) == true { keyboard = nil }
    }

    /// A pen sample in points of the logical screen. A pen arriving cancels every finger touch
    /// in progress (apps get `cancel`; a gesture ends where it began); the pen goes to the app
    /// under it and never starts a gesture; a stroke that starts on a window draws nothing.
    package mutating func pen(
        phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, tool: PenTool, buttons: PenButtons,
        now: UInt64, space: PiPSpace
    ) -> [ShellEffect] {
        (penTool, penButtons) = (tool, buttons)
        var effects: [ShellEffect] = []
        for id in palm.pen(phase: phase, now: now) {
            let at = lastTouch[id] ?? (x, y)
            // A finger on the keyboard lets go of its key (and its popup) without typing.
            if let typed = keyboardTouch(.finger(id), phase: .cancel, x: at.x, y: at.y, now: now) {
                effects += typed
                continue
            }
            effects += shell.handleTouch(id: .finger(id), phase: .cancel, x: at.x, y: at.y, now: now)
        }
        lastPen = (x, y)
        // The pen on the keyboard types as a finger does.
        let onKeys: TouchPhase? = phase == .down ? .down : phase == .motion ? .motion : phase == .up ? .up : nil
        if let p = onKeys, let typed = keyboardTouch(.pen, phase: p, x: x, y: y, now: now) { return effects + typed }
        if let p = onKeys, let answered = presented.touch(.pen, phase: p, x: x, y: y, under: shell.appAt(x: x, y: y)) { return effects + answered }
        if phase == .down, pip.frames(in: space, at: now).contains(where: { $0.frame.contains(x: x, y: y) }) { penOnWindow = true }
        if penOnWindow {
            if phase == .up || phase == .proximityOut { penOnWindow = false }
            if phase != .proximityOut { return effects }
        }
        return noteTap(effects + shell.handlePen(phase: phase, x: x, y: y, pressure: pressure, tiltX: tiltX, tiltY: tiltY), now: now)
    }

    /// Moves, pinches or taps a Picture in Picture window with the touches on it: nil when the
    /// touch is not a window's, else what it asks (a control's action, or nothing).
    private mutating func pipTouch(_ id: Contact, phase: TouchPhase, x: Double, y: Double, now: UInt64, space: PiPSpace) -> [ShellEffect]? {
        switch phase {
        case .down:
            guard pip.touchDown(id: id, x: x, y: y, in: space, now: now) else { return nil }
            pipTouches.insert(id)
        case .motion:
            guard pipTouches.contains(id) else { return nil }
            _ = pip.touchMotion(id: id, x: x, y: y, in: space, now: now)
        case .up, .cancel:
            guard pipTouches.remove(id) != nil else { return nil }
            switch pip.touchUp(id: id, x: x, y: y, in: space, now: now, cancelled: phase == .cancel) {
            case .action(let app, let action): return [.pipAction(app, action)]
            // Under Reduce Motion a window let go is where it rests at once: cross-faded.
            case .handled: return pip.reduceMotion ? [.crossFade] : []
            case nil: return []
            }
        }
        return []
    }

    /// The fingers on the screen, where each last was.
    package var touchesDown: [(id: Int32, x: Double, y: Double)] {
        lastTouch.sorted { $0.key < $1.key }.map { ($0.key, $0.value.x, $0.value.y) }
    }

    /// What time does at `now`, for the shell, the pen, the windows and the pointer.
    package mutating func tick(now: UInt64) -> Tick {
        var t = Tick(shell: shell.tick(now: now))
        _ = pip.prune(at: now)
        if palm.tick(now: now) {
            t.pen = shell.handlePen(phase: .proximityOut, x: lastPen.x, y: lastPen.y, pressure: 0, tiltX: 0, tiltY: 0)
        }
        t.pointerMoved = takePointerMotion()
        t.cursorChanged = pointer.drawnShowing != pointer.shows(at: now)
        return t
    }

    // MARK: - The shell's changes

    package mutating func add(_ app: AppID, preferring role: Role, requiresFullScreen: Bool) -> [ShellEffect] {
        shell.add(app, preferring: role, requiresFullScreen: requiresFullScreen)
    }

    package mutating func remove(_ app: AppID) -> [ShellEffect] { shell.remove(app) }

    package mutating func replace(_ old: AppID, with app: AppID, requiresFullScreen: Bool) -> [ShellEffect] {
        // The keyboard stays with the place the user gave it to: the app that takes it.
        let keepsFocus: [ShellEffect] = focus == old ? [.focusByUser(app)] : []
        return shell.replace(old, with: app, requiresFullScreen: requiresFullScreen) + keepsFocus
    }

    /// Rotates the logical screen or changes the device, windows coming to rest in their corners
    /// of the new screen.
    package mutating func rotate(to orientation: Orientation) -> [ShellEffect] {
        _ = pip.rest()
        return shell.rotate(to: orientation)
    }

    package mutating func changeProfile(to profile: DeviceProfile) -> [ShellEffect] {
        _ = pip.rest()
        return shell.changeProfile(to: profile)
    }

    // MARK: - Activation

    /// `app` is activated once it has drawn its configure and the panes are at rest, or at
    /// `deadline` whatever it drew.
    package mutating func activateWhenDrawn(_ app: AppID, deadline: UInt64) { pendingActivation[app] = deadline }

    /// `app` heard another lifecycle event, or went away: it is no longer waited for.
    package mutating func forgetActivation(_ app: AppID) { pendingActivation[app] = nil }

    /// Whether `app` is activated now (it has `drawn`, or its time ran out, and nothing moves);
    /// it is no longer waited for then.
    package mutating func activates(_ app: AppID, drawn: Bool, now: UInt64) -> Bool {
        guard let deadline = pendingActivation[app], !shell.isMoving(at: now), drawn || now >= deadline else { return false }
        pendingActivation[app] = nil
        return true
    }

    /// The apps waiting to be activated, in the order they came (by id), while nothing moves.
    package func waitingActivations(now: UInt64) -> [AppID] {
        guard !pendingActivation.isEmpty, !shell.isMoving(at: now) else { return [] }
        return pendingActivation.keys.sorted { $0.rawValue < $1.rawValue }
    }

    package var activationPending: Bool { !pendingActivation.isEmpty }

    /// The next time something of the desk falls due (an activation, a gesture's time-out, a
    /// window's controls hiding) after `now`.
    package func nextDeadline(after now: UInt64) -> UInt64? {
        [pendingActivation.values.min(), shell.nextDeadline, pip.controlsDeadline(after: now)].compactMap { $0 }.min()
    }

    // MARK: - Picture in Picture

    /// Opens or updates `app`'s window; opening, it grows out of `source` (points).
    package mutating func showPiP(_ app: AppID, bufferSize: Size, playing: Bool, from source: Rect?, now: UInt64) {
        pip.show(app, bufferSize: bufferSize, playing: playing, from: source, at: now)
    }

    /// Closes `app`'s window (shrinking into `into`, points, when given); whether it had one.
    @discardableResult
    package mutating func closePiP(_ app: AppID, into: Rect? = nil, space: PiPSpace? = nil, now: UInt64 = 0) -> Bool {
        pip.close(app, into: into, in: space, at: now)
    }

    /// Brings `app` (a window's) back on screen as the primary (see `Shell.restore`).
    package mutating func restore(_ app: AppID, now: UInt64) -> [ShellEffect] { shell.restore(app, now: now) }

    /// Where the shell's apps' panes were last laid out (points): a window opened by an app
    /// that has just left the screen grows out of where its video was. At most two: the
    /// primary's and the secondary's (an app that went away is forgotten).
    package private(set) var lastPanes: [AppID: Rect] = [:]

    /// Where `app`'s pane is (points), or where it last was if the app left the screen.
    package func paneFrame(of app: AppID) -> Rect? { shell.pane(of: app)?.frame ?? lastPanes[app] }

    /// Notes where the shown apps' panes are now.
    package mutating func notePanes() {
        let apps = [shell.primary, shell.secondary].compactMap { $0 }
        lastPanes = lastPanes.filter { apps.contains($0.key) }
        for a in apps {
            if let p = shell.pane(of: a) { lastPanes[a] = p.frame }
        }
    }

    // MARK: - Motion (what a frame shows and what moves: Desk+Looks.swift)

    /// Starts a cross-fade now (from what the output shows, which the renderer keeps), before
    /// the geometry changes. (`milliseconds`: how long it takes.)
    package mutating func beginFade(at now: UInt64, milliseconds: UInt64 = MotionMetrics.fadeMilliseconds) {
        fade = CrossFade(start: now, duration: milliseconds)
    }

    /// Fits the fading frame, of `old` pixels, to a panel of `panel` after a geometry change
    /// (see `CrossFade.fit`); nil, and no fade any more, when it does not fit.
    package mutating func fitFade(old: Size, to panel: Size, turning: Double? = nil) -> (transform: AffineTransform?, turnInto: Size?)? {
        guard var f = fade else { return nil }
        let fit = f.fit(old: old, to: panel, turning: turning)
        fade = fit == nil ? nil : f
        return fit
    }

    /// How far a turn is at `now` (see `CrossFade.turn`).
    package func turn(at now: UInt64) -> (old: (angle: Double, opacity: UInt8), new: (angle: Double, opacity: UInt8))? { fade?.turn(at: now) }

    /// The old frame's opacity in a frame at `now` (see `CrossFade.alpha`); the fade ends once
    /// it has run its course.
    package mutating func fadeAlpha(at now: UInt64) -> UInt8? {
        guard let alpha = fade?.alpha(at: now) else {
            fade = nil
            return nil
        }
        return alpha
    }
}

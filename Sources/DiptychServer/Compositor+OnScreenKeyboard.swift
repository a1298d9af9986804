// SPDX-License-Identifier: MIT
// The on-screen keyboard as the compositor carries it out: it shows when the focused app
// enables text input naming the serial of a tap it was sent, or of a key the keyboard sent it
// (‹ › return), with no later tap (protocol 9; an app of version 5 to 8: text input on at the
// end of a tap in its pane, the enable up to 300 ms after the tap), and hides on its dismiss key, when the app turns text input off, loses the focus or
// leaves the screen; every app on screen hears where it goes (`keyboardFrame`); what it types
// goes to the app that raised it (`textCommit`; return and delete as `key` events); and it is
// drawn docked at the bottom of the screen across both panes.

import DiptychCore
import DiptychKeyboard
import DiptychWire

/// When the keyboard shows.
enum KeyboardRules {
    /// How long after a tap's end a field's enable still raises the keyboard (ms), for an app
    /// of protocol 5 to 8 (from 9 the enable names the tap's serial).
    static let enableAfterTap: UInt64 = 300
}

extension Compositor {
    /// Looks again at whether the keyboard should show, after input or a `textInput`, and
    /// whether it steps aside (a divider drag, a Slide Over swipe, a rotation) or comes back.
    func keyboardMayChange() {
        keyboardStepsAside()
        let focused = desk.focus.flatMap { session($0) }
        // An alert's field of the focused app takes the text while it shows (it needs no tap).
        let alertField = focused.flatMap { alertFieldState(of: $0.app) }
        let state = alertField ?? focused?.text.state
        let wanted = state.map { $0.enabled && !$0.hints.contains(.noKeyboard) } ?? false
        if let k = desk.keyboard, !k.isHiding {
            // It follows its app's field; it goes when that app stops taking text, loses the
            // focus or leaves the screen.
            if let focused, focused.app == k.owner, wanted, let state, desk.shell.pane(of: k.owner) != nil {
                let before = k.keyboard
                desk.updateKeyboard(state)
                // A field the keyboard moved to by a tap or a key of its own: that input is
                // spent (it raises the keyboard no more once it goes).
                if alertField == nil, focused.text.enableRaisesKeyboard { focused.raisedKeyboard() }
                if desk.keyboard?.keyboard != before { scheduleFrame() }
                // A pane moved or came (a Slide Over, an arrangement): its app hears where the
                // keyboard is in its new frame.
                if !textRelay.aside, restingPanes != textRelay.toldPanes { tellKeyboardFrame() }
            } else {
                hideKeyboard()
            }
            return
        }
        guard let focused, wanted, let state, desk.shell.pane(of: focused.app) != nil else { return }
        if alertField == nil {
            guard raisesKeyboard(focused) else { return }
        }
        desk.showKeyboard(for: focused.app, state: state, bar: textRelay.hardwareKeyboard != nil, now: now)
        desk.consumeTap()
        if alertField == nil { focused.raisedKeyboard() }
        scheduleFrame()
        tellKeyboardFrame()
        logger.debug("keyboard shown", metadata: ["client.app": "\(focused.label)", "text.purpose": "\(state.purpose.name)"])
    }

    /// Whether `c`'s enabled field raises the keyboard now: from protocol 9 its enable names
    /// the last tap it was sent (or a key of the keyboard's since); before, it came at most
    /// `KeyboardRules.enableAfterTap` ms after a tap in its pane.
    private func raisesKeyboard(_ c: ClientSession) -> Bool {
        if c.version >= ServerEvent.serialSince { return c.text.enableRaisesKeyboard }
        guard let tap = desk.lastTap, tap.app == c.app, now >= tap.at else { return false }
        return now - tap.at <= KeyboardRules.enableAfterTap
    }

    /// The keyboard steps aside while a divider drag, a Slide Over swipe or a rotation runs,
    /// and slides in again after (the apps hear both).
    func keyboardStepsAside() {
        guard let k = desk.keyboard, !k.isHiding, desk.keyboardSuspended != textRelay.aside else { return }
        textRelay.aside = desk.keyboardSuspended
        if !textRelay.aside { desk.keyboardReturns(now: now) }
        scheduleFrame()
        tellKeyboardFrame()
    }

    /// Slides the keyboard away (its apps hear it).
    func hideKeyboard() {
        guard let k = desk.keyboard, !k.isHiding else { return }
        desk.hideKeyboard(now: now)
        textRelay.aside = false
        desk.consumeTap()
        scheduleFrame()
        tellKeyboardFrame()
    }

    /// Each app's pane at rest (the frame its configure gave it), in points.
    var restingPanes: [AppID: Rect] {
        var out: [AppID: Rect] = [:]
        for p in desk.shell.layout.panes { if let app = desk.shell.app(p.role) { out[app] = p.frame } }
        return out
    }

    /// Tells every app on screen where the keyboard goes (zeros when it hides): in its pane's
    /// points (the pane at rest, as its configure gave it), `local` for the app that raised it.
    /// An app hears the first move of a turn at once and the newest of the rest at the turn's
    /// end: however often another app makes the keyboard move, an app hears it at most twice
    /// a turn.
    func tellKeyboardFrame() {
        let k = desk.keyboard
        let screen = k.map { $0.isHiding || textRelay.aside ? Rect(x: 0, y: 0, width: 0, height: 0) : $0.restFrame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation) }
            ?? Rect(x: 0, y: 0, width: 0, height: 0)
        let panes = restingPanes
        textRelay.toldPanes = screen.width == 0 ? [:] : panes
        for (app, pane) in panes {
            let hidden = screen.width == 0
            let frame = hidden ? screen : Rect(x: screen.x - pane.x, y: screen.y - pane.y, width: screen.width, height: screen.height)
            let told = KeyboardFrame(frame: frame, screenFrame: screen, duration: UInt32(KeyboardPresence.slideMilliseconds), local: app == k?.owner)
            // The first of a turn goes at once (in order with what else the app is sent); later
            // ones wait for the turn's end, the newest replacing the one before.
            if textRelay.tell(app, told), let c = session(app) { send(.keyboardFrame(told), to: c) }
        }
    }

    /// Sends each app the newest keyboard frame it is owed (those held since the first of the
    /// turn), at the end of the turn.
    func sendKeyboardNews() {
        for (app, frame) in textRelay.endTurn() {
            if let c = session(app) { send(.keyboardFrame(frame), to: c) }
        }
    }

    /// What the keyboard typed, for `app`.
    func keyboardTyped(_ output: KeyboardOutput, for app: AppID, time: Double) {
        // An alert's field of the app's takes what is typed while it shows.
        if let effects = desk.presentationTyped(output, for: app) {
            apply(effects)
            scheduleFrame()
            return
        }
        switch output {
        case .commit(let text):
            if let c = session(app) { send(.textCommit(text: text), to: c) }
        case .key(let key):
            guard let c = session(app) else { return }
            let modifiers: KeyModifiers = key == .backTab ? [.shift] : []
            let serial = c.send(.key(keycode: key.keycode, keysym: key.keysym, text: key.text, state: .pressed, modifiers: modifiers, time: time))
            c.send(.key(keycode: key.keycode, keysym: key.keysym, text: "", state: .released, modifiers: modifiers, time: time))
            // ‹ › and return may move the focus to another field, which may raise the keyboard
            // naming the key (protocol 9).
            if key.movesFocus { c.keyboardKeySent(serial: serial) }
        case .dismiss:
            // (The shortcut bar's ↓ only sets the bar down: the hardware keyboard still types
            // into the field, as on iPad.)
            let bar = desk.keyboard?.keyboard.layout == .shortcutBar
            hideKeyboard()
            // The field gives up its focus (its focus ring goes, as on iPad); nothing the app was
            // sent before raises the keyboard again. (An alert's field is the compositor's.)
            if !bar, alertFieldState(of: app) == nil, let c = session(app) {
                c.keyboardDismissed()
                send(.textInputDismissed, to: c)
            }
        case .showKeys:
            // The keys are back until a hardware keyboard types again; the apps hear the new frame.
            textRelay.hardwareKeyboard = nil
            tellKeyboardFrame()
        case .nextLanguage:
            switchLanguage(to: nil)
        case .language(let i):
            switchLanguage(to: i)
        }
        scheduleFrame()
    }

    /// A hardware key went down on `device` (a keyboard with letter keys): one that types or
    /// edits swaps the on-screen keyboard for its shortcut bar.
    func hardwareKeyTyped(_ result: KeyResult, on device: String) {
        guard !result.text.isEmpty || Keysym.editing.contains(result.keysym) else { return }
        textRelay.hardwareKeyboard = device
        keyboardShows(bar: true)
    }

    /// An input device went: if it was the keyboard that typed, the keys come back.
    func inputDeviceRemoved(_ device: String) {
        guard device == textRelay.hardwareKeyboard else { return }
        textRelay.hardwareKeyboard = nil
        keyboardShows(bar: false)
    }

    /// The shown keyboard becomes its shortcut bar or its keys again (the apps hear its new frame).
    private func keyboardShows(bar: Bool) {
        guard let k = desk.keyboard, !k.isHiding, (k.keyboard.layout == .shortcutBar) != bar else { return }
        desk.keyboardShows(bar: bar)
        scheduleFrame()
        tellKeyboardFrame()
    }

    /// The keyboard's layer (its background, keys and labels, in logical pixels at `scale`)
    /// while it shows or slides, at `now`.
    func keyboardLayer(scale: Int) -> [SceneNode]? {
        guard let k = desk.keyboard, !k.isGone(at: now), !desk.keyboardSuspended else { return nil }
        let screen = desk.shell.layout.screen, orientation = desk.shell.orientation
        let (frame, opacity) = k.frame(screen: screen, orientation: orientation, at: now, reduceMotion: configuration.reduceMotion)
        let painter = KeyboardPainter(scale: scale, appearance: keyboardAppearance)
        return painter.nodes(frame: frame, keys: k.keys(screen: screen, orientation: orientation), pressed: Set(k.pressed.values), opacity: opacity, popup: k.popup)
    }

    /// Light or dark: after the focused app's status bar style (light text over a dark app: a
    /// dark keyboard).
    var keyboardAppearance: KeyboardAppearance {
        desk.focus.flatMap { session($0) }.map { barStyle(of: $0, primary: true) == .light } == true ? .dark : .light
    }

    /// The keyboard as the frame drawn now shows it, for `frames.json` (nil: none drawn).
    public var keyboardRecord: KeyboardRecord? {
        guard let k = desk.keyboard, !k.isGone(at: now), !desk.keyboardSuspended else { return nil }
        let f = k.frame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation, at: now, reduceMotion: configuration.reduceMotion).frame
        return KeyboardRecord(
            frame: f, layout: k.keyboard.layout, variant: k.keyboard.variant, shift: k.keyboard.shift, returnKey: k.keyboard.returnKey, appearance: keyboardAppearance,
            language: k.keyboard.language.name)
    }

    /// What the keyboard shows now, for tests and `frames.json`.
    public var keyboardShown: (frame: Rect, layout: KeyboardLayout, shift: ShiftState, owner: String?)? {
        guard let k = desk.keyboard, !k.isHiding, !desk.keyboardSuspended else { return nil }
        return (k.frame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation, at: now, reduceMotion: false).frame, k.keyboard.layout, k.keyboard.shift,
                session(k.owner)?.label)
    }

    /// Where to tap next (screen points) toward typing `c` on the keyboard as it is now, and
    /// whether that tap types it (else it switches a layout or shift), or `item`: hold it and
    /// slide to that item of its popup; nil when no key leads to it or no keyboard shows.
    public func keyboardNextTap(for c: Character) -> (x: Double, y: Double, types: Bool, item: Int?)? {
        guard let k = desk.keyboard, !k.isHiding else { return nil }
        let keys = k.keys(screen: desk.shell.layout.screen, orientation: desk.shell.orientation)
        guard let next = k.keyboard.nextTap(for: c, keys: keys), let at = keyboardCenter(of: keys[next.index].frame) else { return nil }
        return (at.x, at.y, next.types, next.item)
    }

    /// The centre in screen points of `f`, a rectangle in the docked keyboard's points.
    private func keyboardCenter(of f: Rect) -> (x: Double, y: Double)? {
        guard let k = desk.keyboard else { return nil }
        let rest = k.restFrame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation)
        return (Double(rest.x + f.x) + Double(f.width) / 2, Double(rest.y + f.y) + Double(f.height) / 2)
    }

    /// The popup a long press opened on the keyboard (its frames in the keyboard's points).
    public var keyboardPopup: KeyboardPopup? { desk.keyboard?.popup }

    /// The centre of item `i` of the keyboard's popup, in screen points (nil: no popup, or no
    /// such item).
    public func keyboardPopupItemCenter(_ i: Int) -> (x: Double, y: Double)? {
        guard let p = desk.keyboard?.popup, p.itemFrames.indices.contains(i) else { return nil }
        return keyboardCenter(of: p.itemFrames[i])
    }

    /// The centre of the docked keyboard's key doing `action`, in screen points (nil: the
    /// keyboard is not up, or has no such key showing).
    public func keyboardKeyCenter(_ action: KeyboardKey.Action) -> (x: Double, y: Double)? {
        guard let k = desk.keyboard, !k.isHiding else { return nil }
        guard let f = k.keys(screen: desk.shell.layout.screen, orientation: desk.shell.orientation).first(where: { $0.action == action })?.frame else { return nil }
        return keyboardCenter(of: f)
    }

    /// Whether the keyboard is sliding now.
    public var keyboardMoving: Bool { desk.keyboard?.isMoving(at: now) ?? false }

    /// The evdev code of the hardware key typing `c`, and whether it needs Shift.
    public func keycode(typing c: Character) -> (code: UInt32, shift: Bool)? { keys.keymap?.keycode(typing: c) }

    /// The keyboard's keys where they are docked, in screen points (for tests and the `type`
    /// step: a key is tapped at its centre).
    public var keyboardKeys: [(label: String, frame: Rect)] {
        guard let k = desk.keyboard, !k.isHiding else { return [] }
        let rest = k.restFrame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation)
        return k.keys(screen: desk.shell.layout.screen, orientation: desk.shell.orientation).map {
            ($0.label, Rect(x: rest.x + $0.frame.x, y: rest.y + $0.frame.y, width: $0.frame.width, height: $0.frame.height))
        }
    }
}

/// The keyboard as a frame drew it (`frames.json`'s `keyboard`).
public struct KeyboardRecord: Sendable, Equatable {
    /// Where it was drawn, in screen points (sliding: where it was in that frame).
    public var frame: Rect
    public var layout: KeyboardLayout
    public var variant: KeyboardVariant
    public var shift: ShiftState
    /// What the return key says (`default`: "return").
    public var returnKey: ReturnKey
    public var appearance: KeyboardAppearance
    /// The language its keys type (the xkb layout name; `layout` is the plane).
    public var language: String

    public var json: JSONValue {
        .object([("frame", frame.json), ("layout", .string(layout.rawValue)), ("variant", .string(variant.rawValue)), ("shift", .string(shift.rawValue)),
                 ("returnKey", .string(returnKey.name)), ("appearance", .string(appearance.rawValue)), ("language", .string(language))])
    }
}


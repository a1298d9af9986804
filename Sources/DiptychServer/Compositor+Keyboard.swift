// SPDX-License-Identifier: MIT
// The keyboard: keys (evdev codes from libinput or a scenario) through the xkbcommon keymap,
// the compositor's own shortcuts taken out, the rest to the app with the keyboard focus, with
// repeats made here at the configured rate. Focus follows iPadOS: the app last touched, tapped
// or clicked; a Slide Over the user brings in (not one an app brought by connecting); the
// primary when the focused app leaves the screen.

import DiptychCore
import DiptychKeyboard
import DiptychWire
import Logging

/// How held keys repeat: `rate` a second after `delay` milliseconds (0: no repeats).
public struct KeyRepeat: Equatable, Sendable {
    public var rate: Int
    public var delay: Int
    public init(rate: Int = 25, delay: Int = 600) {
        self.rate = rate
        self.delay = delay
    }

    /// `RATE,DELAY` (`25,600`).
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { Int($0.filter { $0 != " " }) }
        guard parts.count == 2, let r = parts[0], let d = parts[1], (0...1000).contains(r), (0...10_000).contains(d) else { return nil }
        self.init(rate: r, delay: d)
    }
}

/// The keyboard's state between keys: the keymap in use (one a `keyboard-layouts` language,
/// switched with the on-screen keyboard's), the keys the focused app was told went down (only
/// those are told coming up), the shortcut keys held (never told), and the key repeating.
final class KeyInput: Timed {
    /// nil: no keymap could be made (no xkb data on the system) and none was asked for: keys
    /// are not handled.
    private(set) var keymap: Keyboard?
    /// One keymap a language of `keyboard-layouts`, in its order (empty: the one keymap of
    /// `--keymap` or the environment, whatever the language).
    private(set) var keymaps: [Keyboard] = []
    let repetition: KeyRepeat
    private(set) var toldDown: Set<UInt32> = []
    private(set) var shortcutKeys: Set<UInt32> = []
    /// The key repeating, what it gives, and when it next repeats (compositor ms).
    private(set) var repeating: (keycode: UInt32, result: KeyResult, next: UInt64)?

    init(keymap: Keyboard?, repetition: KeyRepeat) {
        self.keymap = keymap
        self.repetition = repetition
    }

    /// One keymap a language from now on (`first` in use); empty: `keymap` alone.
    func use(_ keymaps: [Keyboard], fixed keymap: Keyboard?, current: Int) {
        self.keymaps = keymaps
        guard keymaps.isEmpty else { return useLayout(current) }
        if let old = self.keymap, let keymap, old !== keymap { keymap.takeOver(from: old) }
        self.keymap = keymap
        repeating = nil
    }

    /// The keymap of language `index` types from now on (the keys held stay held, the locks
    /// locked).
    func useLayout(_ index: Int) {
        guard keymaps.indices.contains(index), keymaps[index] !== keymap else { return }
        if let old = keymap { keymaps[index].takeOver(from: old) }
        keymap = keymaps[index]
        repeating = nil
    }

    /// A new focus: nothing is down for it, nothing repeats.
    func focusChanged() {
        toldDown.removeAll()
        repeating = nil
    }

    func shortcut(_ keycode: UInt32) { shortcutKeys.insert(keycode) }
    func endShortcut(_ keycode: UInt32) -> Bool { shortcutKeys.remove(keycode) != nil }

    /// A key told to the focused app went down at `now` (it repeats if the keymap says so).
    func toldPressed(_ keycode: UInt32, _ result: KeyResult, at now: UInt64) {
        toldDown.insert(keycode)
        if repetition.rate > 0, keymap?.repeats(keycode) == true { repeating = (keycode, result, now + UInt64(repetition.delay)) }
    }

    /// Whether a key coming up was told going down (and is told now).
    func toldReleased(_ keycode: UInt32) -> Bool {
        if repeating?.keycode == keycode { repeating = nil }
        return toldDown.remove(keycode) != nil
    }

    /// The repeat due at `now`, if one is: one a turn however late the loop is (a stalled
    /// loop never bursts repeats), the next a period after it.
    func dueRepeat(at now: UInt64) -> (keycode: UInt32, result: KeyResult)? {
        guard let r = repeating, now >= r.next else { return nil }
        repeating?.next = max(r.next, now) + UInt64(1000 / max(1, repetition.rate))
        return (r.keycode, r.result)
    }

    /// When the key repeating next repeats (compositor ms).
    var nextDeadline: UInt64? { repeating?.next }
}


extension Compositor {
    /// A key (evdev code) went down or up: a shortcut of the compositor's, or the focused
    /// app's key. The one entry point for libinput's keys and a scenario's; `keyboard`: the
    /// system name of a device with letter keys it came from (its typing swaps the on-screen
    /// keyboard for the shortcut bar).
    public func key(_ keycode: UInt32, pressed: Bool, time: Double? = nil, keyboard: String? = nil) {
        guard let result = keys.keymap?.key(keycode, pressed: pressed) else { return }
        if !pressed, keys.endShortcut(keycode) { return }
        if pressed, let effects = shortcut(result) {
            keys.shortcut(keycode)
            if !effects.isEmpty { apply(effects) }
            updateFocus()
            return
        }
        if pressed, let keyboard { hardwareKeyTyped(result, on: keyboard) }
        guard let app = desk.focus, let c = session(app) else { return }
        let time = time ?? Double(now)
        // A menu or alert of the app's takes the keys while it shows.
        if pressed, desk.presented.shown[app] != nil, presentationKey(result, of: app) { return }
        if pressed {
            keys.toldPressed(keycode, result, at: now)
            send(.key(keycode: keycode, keysym: result.keysym, text: result.text, state: .pressed, modifiers: result.modifiers, time: time), to: c)
        } else if keys.toldReleased(keycode) {
            send(.key(keycode: keycode, keysym: result.keysym, text: "", state: .released, modifiers: result.modifiers, time: time), to: c)
        }
    }

    /// The compositor's own shortcut `result` stands for, and what it does (empty: taken and
    /// nothing to do); nil for a key the focused app has.
    private func shortcut(_ result: KeyResult) -> [ShellEffect]? {
        // Ctrl+Space: the next of the keyboard's languages, as on iPad (the on-screen keyboard's
        // and the hardware keymap together).
        if result.keysym == Keysym.space, result.modifiers.subtracting([.capsLock, .numLock]) == .control, desk.languages.count > 1 {
            switchLanguage(to: nil)
            return []
        }
        if Keysym.switchVT.contains(result.keysym) {
            let vt = Int(result.keysym - Keysym.switchVT.lowerBound) + 1
            logger.info("switching to VT \(vt)")
            hooks.switchVT?(vt)
            return []
        }
        guard result.modifiers.contains(.logo) else { return nil }
        switch result.keysym {
        case Keysym.backslash: return desk.toggleSlideOver(now: now)
        case Keysym.left: return desk.moveDivider(towardsLeading: true, now: now)
        case Keysym.right: return desk.moveDivider(towardsLeading: false, now: now)
        default: return nil
        }
    }

    /// Lets every held key up, as if released (the session went to another VT: a key held
    /// then would repeat for ever).
    public func releaseAllKeys() {
        for code in keys.keymap?.held.sorted() ?? [] { key(code, pressed: false) }
    }

    /// Sends the repeat of the key held, if one is due.
    func repeatKeys() {
        guard let (keycode, r) = keys.dueRepeat(at: now), let app = desk.focus, let c = session(app) else { return }
        send(.key(keycode: keycode, keysym: r.keysym, text: r.text, state: .repeated, modifiers: r.modifiers, time: Double(now)), to: c)
    }

    /// Gives the keyboard to `app` (nil: nobody), telling the app that had it and the app that
    /// gets it.
    func focus(_ app: AppID?) {
        guard let change = desk.setFocus(app) else { return }
        keys.focusChanged()
        if let old = change.lost, let c = session(old) {
            // An app's text input ends with its focus.
            c.clearTextInput()
            send(.keyboardFocus(focused: false), to: c)
        }
        if let new = change.gained, let c = session(new) { send(.keyboardFocus(focused: true), to: c) }
    }

    /// After the shell changed: a Slide Over the user brought in takes the keyboard (one that
    /// came in because an app connected by itself does not), an app that left the screen gives
    /// it to the primary.
    func updateFocus(byUser: Bool = true) {
        focus(desk.focusAfterChange(byUser: byUser))
    }

    /// The evdev code of a key that gives the keysym named `name`, if the keymap has one.
    public func keycode(forKeysymNamed name: String) -> UInt32? { keys.keymap?.keycode(forKeysymNamed: name) }

    /// The keymap's names, as `RULES:MODEL:LAYOUT:VARIANT:OPTIONS`.
    public var keymapNames: String { keys.keymap?.names.description ?? "none" }

    /// The keyboard's language `index` of `keyboard-layouts` (nil: the next), on the
    /// on-screen keyboard and the hardware keymap alike.
    public func switchLanguage(to index: Int?) {
        let before = desk.languageIndex
        desk.switchLanguage(to: index)
        keys.useLayout(desk.languageIndex)
        guard desk.languageIndex != before else { return }
        logger.info("keyboard language \(desk.languages[desk.languageIndex].name)", metadata: ["keymap": "\(keymapNames)"])
        scheduleFrame()
    }

    /// The keyboard's languages from now on (`ctl reload` of `keyboard-layouts`; empty: US
    /// English), the first in use: the on-screen keyboard's, and the hardware keymap's unless
    /// `--keymap` names a layout.
    public func setKeyboardLanguages(_ languages: [KeyboardLanguage]) {
        desk.setLanguages(languages)
        do {
            let made = try Self.keymaps(configuration.keymap, languages: languages, logger)
            keys.use(made.perLanguage, fixed: made.fixed, current: 0)
        } catch {
            // (Each language's layout is in xkb's data, as the generator checked: this is a
            // system whose xkb data went.)
            logger.error("the hardware keymap stays \(keymapNames): \(error)")
        }
        scheduleFrame()
    }

    /// The keymaps of `languages`: one a language, with the rules, model, variant and options of
    /// `names`, when `names` (`--keymap`) gives no layout and languages are listed; else the one
    /// keymap `names` and the environment give (nil where none can be made and none was asked for).
    static func keymaps(_ names: KeymapNames, languages: [KeyboardLanguage], _ logger: Logger) throws -> (perLanguage: [Keyboard], fixed: Keyboard?) {
        guard names.layout == nil, !languages.isEmpty else { return ([], try keymap(names, logger)) }
        let each = try languages.map { l throws(KeymapError) in
            try Keyboard(names: KeymapNames(rules: names.rules, model: names.model, layout: l.name, variant: nil, options: names.options))
        }
        return (each, nil)
    }

    /// The keymap `names` give. One asked for that cannot be made is an error; the default one
    /// missing (a system without xkb data) leaves the compositor without keys, said once.
    static func keymap(_ names: KeymapNames, _ logger: Logger) throws -> Keyboard? {
        do {
            return try Keyboard(names: names)
        } catch {
            guard names == KeymapNames() else { throw error }
            logger.warning("keys are not handled: \(error)")
            return nil
        }
    }

    /// The app that has the keyboard now, if any.
    public var keyboardFocus: AppID? { desk.focus }
}

// SPDX-License-Identifier: MIT
// The on-screen keyboard on the screen: which app raised it, its slide in and out (the
// spring; Reduce Motion: a fade), where its keys are, and the touches on them. Pure: the time
// and the screen are given.

/// The keyboard while it shows or slides away.
public struct KeyboardPresence: Sendable {
    public private(set) var keyboard: OnScreenKeyboard
    /// The app that raised it (its typing goes there).
    public let owner: AppID
    /// When its slide in began, and its slide out (nil while it stays).
    public private(set) var shownAt: UInt64
    public private(set) var hiddenAt: UInt64?
    /// The keys held down now, by the contact pressing each (an index in `keys`; −1: between
    /// keys).
    public private(set) var pressed: [Contact: Int] = [:]

    /// When each delete key held went down, and when it last repeated.
    private var heldSince: [Contact: UInt64] = [:]
    private var repeatedAt: [Contact: UInt64] = [:]
    /// When a key held that has a popup (alternatives, the globe's languages) shows it.
    private var popupDue: [Contact: UInt64] = [:]
    /// The popup a long press opened, and the contact holding it (one at a time).
    public private(set) var popup: KeyboardPopup?
    private var popupContact: Contact?
    /// The keyboard's languages (the globe key's list) and the one in use.
    public private(set) var languages: [KeyboardLanguage] = [.us]
    public private(set) var languageIndex = 0
    /// A held delete key repeats after this long, this often (ms).
    public static let repeatDelay: UInt64 = 500
    public static let repeatInterval: UInt64 = 100

    /// How long a slide takes (the spring's settling), in milliseconds.
    public static let slideMilliseconds: UInt64 = 250

    public init(owner: AppID, state: TextInputState, languages: [KeyboardLanguage] = [.us], current: Int = 0, at now: UInt64) {
        keyboard = OnScreenKeyboard(for: state)
        self.owner = owner
        shownAt = now
        setLanguages(languages, current: current)
    }

    /// Its keys type `languages[current]` from now on, the globe key showing when there are
    /// several (the keys held are let go).
    public mutating func setLanguages(_ languages: [KeyboardLanguage], current: Int) {
        self.languages = languages.isEmpty ? [.us] : languages
        languageIndex = min(max(current, 0), self.languages.count - 1)
        keyboard.language = self.languages[languageIndex]
        keyboard.globe = self.languages.count > 1
        letGo()
    }

    /// Every key held is let go, and a popup closes.
    private mutating func letGo() {
        pressed = [:]
        heldSince = [:]
        repeatedAt = [:]
        popupDue = [:]
        popup = nil
        popupContact = nil
    }

    /// The same keyboard sliding in again from `now` (after it stepped aside).
    public init(resuming k: KeyboardPresence, at now: UInt64) {
        self = k
        shownAt = now
        letGo()
    }

    /// Whether it is on its way out.
    public var isHiding: Bool { hiddenAt != nil }

    /// Slides it away from `now`.
    public mutating func hide(at now: UInt64) {
        guard hiddenAt == nil else { return }
        hiddenAt = now
        letGo()
    }

    /// The field changed: the keyboard follows (see `OnScreenKeyboard.update`).
    public mutating func update(_ state: TextInputState) { keyboard.update(state) }

    /// A hardware keyboard typed: only the shortcut bar shows (`showsBar`), or the keys again.
    public mutating func show(bar showsBar: Bool) {
        if showsBar { keyboard.showShortcutBar() } else { keyboard.showKeys() }
        letGo()
    }

    /// How far in it is at `now`: 0 (below the screen) to 1 (docked).
    public func progress(at now: UInt64) -> Double {
        let e = { (t: UInt64) in now >= t ? now - t : 0 }
        if let h = hiddenAt { return 1 - Spring.progress(elapsed: e(h), duration: Self.slideMilliseconds) }
        return Spring.progress(elapsed: e(shownAt), duration: Self.slideMilliseconds)
    }

    /// Whether it moves at `now` (a slide in or out running).
    public func isMoving(at now: UInt64) -> Bool {
        let start = hiddenAt ?? shownAt
        return now < start + Self.slideMilliseconds
    }

    /// Whether it has gone (slid all the way out).
    public func isGone(at now: UInt64) -> Bool { hiddenAt.map { now >= $0 + Self.slideMilliseconds } ?? false }

    /// Where it rests docked on a screen of `screen` points.
    public func restFrame(screen: Size, orientation: Orientation) -> Rect {
        KeyboardMetrics.frame(screen: screen, orientation: orientation, layout: keyboard.layout)
    }

    /// Where it is drawn at `now` (screen points; below the screen at the slide's start), and
    /// its opacity (255 but under Reduce Motion, where it fades instead of sliding).
    public func frame(screen: Size, orientation: Orientation, at now: UInt64, reduceMotion: Bool) -> (frame: Rect, opacity: UInt8) {
        let rest = restFrame(screen: screen, orientation: orientation), p = progress(at: now)
        if reduceMotion { return (rest, UInt8((p * 255).rounded())) }
        let y = rest.y + Int((Double(rest.height) * (1 - p)).rounded())
        return (Rect(x: rest.x, y: y, width: rest.width, height: rest.height), 255)
    }

    /// Every key, in points from the keyboard's top left: the bar's (‹ and › at its left for a
    /// field with neighbours, as iPad's shortcut bar has them; the dismiss key at its right) and
    /// the layout's below it; the shortcut bar's two (the keys back, and dismiss).
    public func keys(screen: Size, orientation: Orientation) -> [KeyboardKey] {
        let rest = restFrame(screen: screen, orientation: orientation)
        if keyboard.layout == .shortcutBar {
            let h = KeyboardMetrics.shortcutBarHeight - 16
            return [
                KeyboardKey(frame: Rect(x: rest.width - 64 - 8 - 80, y: 8, width: 80, height: h), label: "ABC", action: .showKeys, function: true),
                KeyboardKey(frame: Rect(x: rest.width - 64, y: 8, width: 56, height: h), label: "↓", action: .dismiss, function: true),
            ]
        }
        let bar = KeyboardMetrics.barHeight(orientation)
        let dismiss = KeyboardKey(frame: Rect(x: rest.width - 64, y: 4, width: 56, height: bar - 8), label: "↓", action: .dismiss, function: true)
        let size = Size(width: rest.width, height: rest.height - bar)
        let k = keyboard
        var arrows: [KeyboardKey] = []
        if k.hints.contains(.hasPrevious) {
            arrows.append(KeyboardKey(frame: Rect(x: 8, y: 4, width: 56, height: bar - 8), label: "‹", action: .previousField, function: true))
        }
        if k.hints.contains(.hasNext) {
            arrows.append(KeyboardKey(frame: Rect(x: 72, y: 4, width: 56, height: bar - 8), label: "›", action: .nextField, function: true))
        }
        return [dismiss] + arrows + k.layout.keys(variant: k.variant, returnKey: k.returnKey, capitals: k.capitals, size: size, orientation: orientation, language: k.language, globe: k.globe).map {
            var key = $0
            key.frame.y += bar
            return key
        }
    }

    /// The key at `x`, `y` (screen points) while it is docked, if any.
    public func key(atX x: Double, y: Double, screen: Size, orientation: Orientation) -> Int? {
        key(atX: x, y: y, of: keys(screen: screen, orientation: orientation), screen: screen, orientation: orientation)
    }

    /// The same, of `keys` already laid out.
    private func key(atX x: Double, y: Double, of keys: [KeyboardKey], screen: Size, orientation: Orientation) -> Int? {
        let rest = restFrame(screen: screen, orientation: orientation)
        let lx = x - Double(rest.x), ly = y - Double(rest.y)
        return keys.firstIndex { k in
            Double(k.frame.minX) <= lx && lx < Double(k.frame.maxX) && Double(k.frame.minY) <= ly && ly < Double(k.frame.maxY)
        }
    }

    /// Whether a touch at `x`, `y` (screen points) lands on the keyboard as it is at `now`.
    public func covers(x: Double, y: Double, screen: Size, orientation: Orientation, at now: UInt64) -> Bool {
        guard !isHiding else { return false }
        let f = frame(screen: screen, orientation: orientation, at: now, reduceMotion: false).frame
        return Double(f.minX) <= x && x < Double(f.maxX) && Double(f.minY) <= y && y < Double(f.maxY)
    }

    /// A contact at `x`, `y` (screen points) going `phase` at `now`, if it is the keyboard's
    /// (nil: not): a touch down on it presses the key under it, motion slides the press, and
    /// lifting gives what that key gives (nothing for a cancel).
    public mutating func touch(
        _ contact: Contact, phase: TouchPhase, x: Double, y: Double, screen: Size, orientation: Orientation, at now: UInt64
    ) -> [KeyboardOutput]? {
        switch phase {
        case .down:
            guard covers(x: x, y: y, screen: screen, orientation: orientation, at: now) else { return nil }
            press(contact, x: x, y: y, screen: screen, orientation: orientation, at: now)
            return []
        case .motion:
            guard holds(contact) else { return nil }
            move(contact, x: x, y: y, screen: screen, orientation: orientation, at: now)
            return []
        case .up, .cancel:
            guard holds(contact) else { return nil }
            return release(contact, screen: screen, orientation: orientation, at: now, cancelled: phase == .cancel)
        }
    }

    /// A contact went down on the keyboard: the key under it darkens (and, if it has a popup,
    /// shows it when held `KeyboardPopup.holdMilliseconds`).
    public mutating func press(_ contact: Contact, x: Double, y: Double, screen: Size, orientation: Orientation, at now: UInt64 = 0) {
        repeatedAt[contact] = nil
        let keys = keys(screen: screen, orientation: orientation)
        hold(contact, on: key(atX: x, y: y, of: keys, screen: screen, orientation: orientation) ?? -1, keys: keys, at: now)
    }

    /// `contact` holds key `index` of `keys` from `now`: a delete key repeats after
    /// `repeatDelay`, a key with a popup shows it after `KeyboardPopup.holdMilliseconds` (unless
    /// one shows already). Only these wait for a time (the loop sleeps past any other key held).
    private mutating func hold(_ contact: Contact, on index: Int, keys: [KeyboardKey], at now: UInt64) {
        pressed[contact] = index
        heldSince[contact] = keys.indices.contains(index) && keys[index].action == .delete ? now : nil
        popupDue[contact] = popup == nil && !popupItems(of: index, keys: keys).isEmpty ? now + KeyboardPopup.holdMilliseconds : nil
    }

    /// What a long press on key `index` offers: a character's alternatives in the language in
    /// use, or the globe key's languages (none: no popup).
    private func popupItems(of index: Int, keys: [KeyboardKey]) -> [String] {
        guard keys.indices.contains(index) else { return [] }
        switch keys[index].action {
        case .text(let t): return keyboard.language.alternatives(of: t)
        case .nextLanguage: return languages.count > 1 ? languages.map(\.autonym) : []
        default: return []
        }
    }

    /// Opens the popup of a key held long enough by `now`: whether one opened (a frame shows it).
    public mutating func holdLong(at now: UInt64, screen: Size, orientation: Orientation) -> Bool {
        guard let (contact, _) = popupDue.first(where: { now >= $0.value }) else { return false }
        // (One popup at a time: the other keys held wait for nothing more.)
        popupDue = [:]
        guard popup == nil else { return false }
        guard let index = pressed[contact] else { return false }
        let keys = keys(screen: screen, orientation: orientation)
        let items = popupItems(of: index, keys: keys)
        guard !items.isEmpty else { return false }
        var text = ""
        if case .text(let t) = keys[index].action { text = t }
        let rest = restFrame(screen: screen, orientation: orientation)
        popup = KeyboardPopup(
            kind: text.isEmpty ? .languages : .alternatives, key: index, keyFrame: keys[index].frame, keyText: text, items: items,
            width: rest.width, above: rest.y, selected: text.isEmpty ? languageIndex : nil)
        popupContact = contact
        return true
    }

    /// The deletes a held delete key gives at `now`: one after `repeatDelay`, then one every
    /// `repeatInterval`.
    public mutating func repeats(at now: UInt64, screen: Size, orientation: Orientation) -> [KeyboardOutput] {
        // (Every turn of the loop asks: the keys are laid out only while one is held.)
        guard !pressed.isEmpty else { return [] }
        let keys = keys(screen: screen, orientation: orientation)
        var out: [KeyboardOutput] = []
        for (contact, index) in pressed where keys.indices.contains(index) && keys[index].action == .delete {
            guard let since = heldSince[contact] else { continue }
            let due = repeatedAt[contact].map { $0 + Self.repeatInterval } ?? since + Self.repeatDelay
            guard now >= due else { continue }
            repeatedAt[contact] = now
            out += keyboard.tap(keys[index], at: now)
        }
        return out
    }

    /// When a held delete key repeats next, or a held key's popup shows, if one is due.
    public var nextRepeat: UInt64? {
        let repeats = heldSince.compactMap { contact, since in repeatedAt[contact].map { $0 + Self.repeatInterval } ?? since + Self.repeatDelay }
        return (repeats + popupDue.values).min()
    }

    /// A contact that went down on the keyboard moved: the key under it now is the pressed one
    /// (held anew: its popup waits its own half second); with its popup open, the item under it
    /// is selected.
    public mutating func move(_ contact: Contact, x: Double, y: Double, screen: Size, orientation: Orientation, at now: UInt64 = 0) {
        guard let was = pressed[contact] else { return }
        if popupContact == contact {
            let rest = restFrame(screen: screen, orientation: orientation)
            popup?.slide(toX: x - Double(rest.x), y: y - Double(rest.y))
            return
        }
        let keys = keys(screen: screen, orientation: orientation)
        let index = key(atX: x, y: y, of: keys, screen: screen, orientation: orientation) ?? -1
        guard index != was else { return }
        hold(contact, on: index, keys: keys, at: now)
    }

    /// Whether `contact` went down on the keyboard (and is its until it lifts).
    public func holds(_ contact: Contact) -> Bool { pressed.keys.contains(contact) }

    /// A contact on the keyboard lifted at `now` (`cancelled`: nothing typed): what the key it
    /// was on gives.
    public mutating func release(_ contact: Contact, screen: Size, orientation: Orientation, at now: UInt64, cancelled: Bool) -> [KeyboardOutput] {
        guard let held = pressed.removeValue(forKey: contact) else { return [] }
        heldSince[contact] = nil
        popupDue[contact] = nil
        if popupContact == contact, let p = popup {
            (popup, popupContact) = (nil, nil)
            return cancelled ? [] : chosen(p, at: now)
        }
        // A delete that repeated while held has done its work.
        guard repeatedAt.removeValue(forKey: contact) == nil else { return [] }
        guard !cancelled, held >= 0 else { return [] }
        let index = held
        let keys = keys(screen: screen, orientation: orientation)
        guard keys.indices.contains(index) else { return [] }
        return keyboard.tap(keys[index], at: now)
    }

    /// What lifting on popup `p` gives: the alternative under the finger, else on the key the
    /// key itself; the language under it; nothing elsewhere.
    private mutating func chosen(_ p: KeyboardPopup, at now: UInt64) -> [KeyboardOutput] {
        switch p.kind {
        case .alternatives:
            if let i = p.selected { return keyboard.tap(KeyboardKey(frame: p.keyFrame, label: p.items[i], action: .text(p.items[i]), function: false), at: now) }
            guard p.onKey else { return [] }
            return keyboard.tap(KeyboardKey(frame: p.keyFrame, label: "", action: .text(p.keyText), function: false), at: now)
        case .languages:
            guard let i = p.selected, i != languageIndex else { return [] }
            return [.language(i)]
        }
    }
}

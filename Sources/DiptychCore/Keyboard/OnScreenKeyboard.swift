// SPDX-License-Identifier: MIT
// The on-screen keyboard's state as a person uses it: the layout showing, shift (a tap for
// one capital, a double tap for caps lock, auto-capitalisation as the field's hints and the
// text before the caret say) and what a tap on a key gives the app. Pure: the time is given.

/// What a key tap gives.
public enum KeyboardOutput: Equatable, Sendable {
    /// Text for the app's field (`textCommit`).
    case commit(String)
    /// The return, delete, ‹ or › key, sent as the hardware key (`key` events).
    case key(KeyboardSpecialKey)
    /// The keyboard hides (its dismiss key).
    case dismiss
    /// The shortcut bar's key: the keys show again (the hardware keyboard is set aside).
    case showKeys
    /// The globe key: the keyboard's next language.
    case nextLanguage
    /// The globe key's list: the keyboard's language at this index.
    case language(Int)
}

/// The keys the keyboard sends as `key` events: their evdev code, keysym, the text a hardware
/// key would type and the modifiers held (‹ is Shift+Tab, as iPad's previous-field arrow).
public enum KeyboardSpecialKey: Sendable, Equatable {
    case `return`, backspace, tab, backTab

    public var keycode: UInt32 {
        switch self {
        case .return: 28
        case .backspace: 14
        case .tab, .backTab: 15
        }
    }
    public var keysym: UInt32 {
        switch self {
        case .return: 0xFF0D
        case .backspace: 0xFF08
        case .tab: 0xFF09
        case .backTab: 0xFE20
        }
    }
    public var name: String {
        switch self {
        case .return: "Return"
        case .backspace: "BackSpace"
        case .tab: "Tab"
        case .backTab: "ISO_Left_Tab"
        }
    }
    public var text: String {
        switch self {
        case .return: "\r"
        case .backspace: "\u{8}"
        case .tab: "\t"
        case .backTab: ""
        }
    }
    /// Whether the app may focus a field after it and raise the keyboard (it moves between
    /// fields or submits).
    public var movesFocus: Bool { self != .backspace }
}

/// The keyboard for one field.
public struct OnScreenKeyboard: Equatable, Sendable {
    public private(set) var layout: KeyboardLayout
    public private(set) var variant: KeyboardVariant
    public private(set) var shift: ShiftState = .off
    public private(set) var returnKey: ReturnKey
    public private(set) var hints: TextHints
    /// The language its keys type (`keyboard-layouts`' current one).
    public var language: KeyboardLanguage = .us
    /// The globe key shows (the keyboard has more than one language).
    public var globe = false
    /// The text before the caret as the keyboard knows it: the app's `surrounding`, and what
    /// was typed since the app last said.
    public private(set) var context: String
    /// The text before the caret as the app last said it: the context follows the app only
    /// when that changes (the app's state sent again as it was must not undo what was typed
    /// since).
    private var appSurrounding: String
    /// When shift was last tapped (a second tap within `doubleTapMilliseconds` locks it).
    private var shiftTapped: UInt64?

    public static let doubleTapMilliseconds: UInt64 = 300

    /// The keyboard a field of `state` opens with.
    public init(for state: TextInputState) {
        variant = KeyboardVariant(state.purpose)
        layout = variant.firstLayout
        returnKey = state.returnKey
        hints = state.hints
        context = state.surrounding
        appSurrounding = state.surrounding
        autoCapitalize()
    }

    /// The field changed (purpose, hints, return key, or the text before the caret moved): the
    /// layout follows a new purpose, and auto-capitalisation the new text.
    public mutating func update(_ state: TextInputState) {
        let v = KeyboardVariant(state.purpose)
        if v != variant {
            variant = v
            // (The shortcut bar stays a bar: a hardware keyboard types.)
            if layout != .shortcutBar { layout = v.firstLayout }
        }
        returnKey = state.returnKey
        hints = state.hints
        if state.surrounding != appSurrounding {
            appSurrounding = state.surrounding
            context = state.surrounding
            autoCapitalize()
        }
    }

    /// Whether letters show as capitals.
    public var capitals: Bool { shift != .off }

    /// A tap on `key` at `now` (ms): what the app gets.
    public mutating func tap(_ key: KeyboardKey, at now: UInt64) -> [KeyboardOutput] {
        switch key.action {
        case .text(let t):
            guard !t.isEmpty else { return [] }
            type(t)
            return [.commit(t)]
        case .space:
            type(" ")
            // After a number or a symbol, a space brings the letters back (as iOS does).
            if layout == .numbers || layout == .symbols { layout = .letters; autoCapitalize() }
            return [.commit(" ")]
        case .delete:
            if !context.isEmpty { context.removeLast() }
            if shift != .locked { autoCapitalize() }
            return [.key(.backspace)]
        case .return:
            // What return did is the field's to say: a new line in a text area, nothing in a
            // single-line field (a search, a form that submits). An app that says the text
            // before its caret is followed (its next `surrounding`); for one that does not, the
            // keyboard counts a new line.
            if appSurrounding.isEmpty { type("\n") }
            return [.key(.return)]
        case .shift:
            if shift == .locked {
                shift = .off
            } else if let t = shiftTapped, now >= t, now - t <= Self.doubleTapMilliseconds {
                shift = .locked
            } else {
                shift = shift == .off ? .on : .off
            }
            shiftTapped = now
            return []
        case .layout(let l):
            layout = l
            if l == .letters { autoCapitalize() }
            return []
        case .dismiss:
            return [.dismiss]
        case .previousField:
            return [.key(.backTab)]
        case .nextField:
            return [.key(.tab)]
        case .showKeys:
            showKeys()
            return [.showKeys]
        case .nextLanguage:
            return [.nextLanguage]
        }
    }

    /// Shows the keys again after a hardware keyboard swapped them for the bar.
    public mutating func showKeys() {
        guard layout == .shortcutBar else { return }
        layout = variant.firstLayout
        autoCapitalize()
    }

    /// A hardware keyboard typed: only the bar shows.
    public mutating func showShortcutBar() { layout = .shortcutBar }

    /// `t` was typed: it joins the context; shift (not locked) goes off after a letter, or on
    /// where auto-capitalisation wants it.
    private mutating func type(_ t: String) {
        context += t
        if context.utf8.count > TextInputState.surroundingLimit { context = String(context.suffix(TextInputState.surroundingLimit)) }
        if shift == .on { shift = .off }
        if shift != .locked { autoCapitalize() }
    }

    /// Shift on where the hints want a capital: everything (capitalizeAll), a word's start
    /// (capitalizeWords), a sentence's start (capitalizeSentences: the field's start, or after
    /// `.`, `!` or `?` and a space, or a new line).
    private mutating func autoCapitalize() {
        guard shift != .locked, layout == .letters || layout == .shortcutBar else { return }
        let wants: Bool
        if hints.contains(.capitalizeAll) {
            wants = true
        } else if hints.contains(.capitalizeWords) {
            wants = context.isEmpty || context.last == " " || context.last == "\n"
        } else if hints.contains(.capitalizeSentences) {
            let trimmed = context.reversed().drop { $0 == " " }
            let spaced = trimmed.count < context.count
            wants = context.isEmpty || context.last == "\n" || (spaced && (trimmed.first.map { ".!?".contains($0) } ?? true))
        } else {
            wants = false
        }
        if wants { shift = .on } else if shift == .on { shift = .off }
    }
}

extension OnScreenKeyboard {
    /// The key of `keys` whose long press offers `c` in `language`, and its place in the popup.
    public static func alternativeKey(for c: Character, keys: [KeyboardKey], language: KeyboardLanguage) -> (index: Int, item: Int)? {
        for (i, k) in keys.enumerated() {
            guard case .text(let t) = k.action, let item = language.alternatives(of: t).firstIndex(of: String(c)) else { continue }
            return (i, item)
        }
        return nil
    }

    /// The next key to tap, of `keys` (the keyboard's keys now), toward typing `c` as a person
    /// would: the key itself (`types`), or the key to hold whose popup has it (`item`, its place
    /// there), else shift or the key that switches to the layout holding it, else the globe key
    /// (the next language). Nil for a character on no key of any layout of this language,
    /// without a globe key.
    public func nextTap(for c: Character, keys: [KeyboardKey]) -> (index: Int, types: Bool, item: Int?)? {
        func find(_ action: KeyboardKey.Action) -> Int? { keys.firstIndex { $0.action == action } }
        func tap(_ i: Int?, types: Bool = false) -> (index: Int, types: Bool, item: Int?)? { i.map { ($0, types, nil) } }
        if c == "\n" { return tap(find(.return), types: true) }
        if c == " " { return tap(find(.space), types: true) }
        if let i = find(.text(String(c))) { return (i, true, nil) }
        if let a = Self.alternativeKey(for: c, keys: keys, language: language) { return (a.index, true, a.item) }
        if c.isLetter && language.hasLetter(c) {
            if layout != .letters { return find(.layout(.letters)).map { ($0, false, nil) } }
            // The letter's case is the other one: shift (on, or off again).
            return find(.shift).map { ($0, false, nil) }
        }
        // Shifted, the letters' comma and full stop are ! and ?.
        if layout == .letters, c == "!" || c == "?", !capitals { return find(.shift).map { ($0, false, nil) } }
        guard let target = Self.layout(holding: c, variant: variant, language: language) else {
            // Another of the keyboard's languages may have it: the globe key takes the next.
            return globe ? find(.nextLanguage).map { ($0, false, nil) } : nil
        }
        // On the letters but with the other shift (a full stop while shift is on).
        if target == .letters { return find(layout == .letters ? .shift : .layout(.letters)).map { ($0, false, nil) } }
        // Letters lead to the numbers, the numbers to the symbols and back.
        let step: KeyboardLayout = layout == .numbers && target == .symbols ? .symbols : .numbers
        return find(.layout(step)).map { ($0, false, nil) }
    }

    /// The layout whose keys type `c` (for a field of `variant`, in `language`), if any.
    public static func layout(holding c: Character, variant: KeyboardVariant, language: KeyboardLanguage = .us) -> KeyboardLayout? {
        let size = Size(width: 1024, height: 352)
        for l in [KeyboardLayout.letters, .numbers, .symbols] {
            for capitals in [false, true] where l == .letters || !capitals {
                let keys = l.keys(variant: variant, returnKey: .default, capitals: capitals, size: size, orientation: .landscape, language: language)
                // (On a key, or in a key's popup.)
                if keys.contains(where: { $0.action == .text(String(c)) }) || alternativeKey(for: c, keys: keys, language: language) != nil { return l }
            }
        }
        return nil
    }

    /// Whether `c` can be typed on the keyboard of a field of `variant` (a space and a new line
    /// can).
    public static func types(_ c: Character, variant: KeyboardVariant, language: KeyboardLanguage = .us) -> Bool {
        c == " " || c == "\n" || layout(holding: c, variant: variant, language: language) != nil
    }
}

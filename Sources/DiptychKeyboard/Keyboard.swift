// SPDX-License-Identifier: MIT
// The keyboard as xkbcommon sees it: a keymap compiled from rules, model, layout, variant and
// options (the `--keymap` flag, else the usual XKB_DEFAULT_* variables, else `us`), the state
// of its modifiers and locks, and dead keys and compose sequences from the locale's compose
// table. A key in (an evdev code, down or up) gives what apps are told: its keysym, the text it
// types and the modifiers in effect.

import CXKBCommon
import DiptychCore
import Glibc

/// The five names a keymap is compiled from (xkbcommon's RMLVO); nil or empty: the
/// `XKB_DEFAULT_*` variable, else xkbcommon's default (`evdev`, `pc105`, `us`).
public struct KeymapNames: Equatable, Sendable, CustomStringConvertible {
    public var rules, model, layout, variant, options: String?

    public init(rules: String? = nil, model: String? = nil, layout: String? = nil, variant: String? = nil, options: String? = nil) {
        (self.rules, self.model, self.layout, self.variant, self.options) = (rules, model, layout, variant, options)
    }

    /// `RULES:MODEL:LAYOUT:VARIANT:OPTIONS`, any part empty or left off (`::de` is a German
    /// layout; `de` alone, without a colon, is taken as the layout too).
    public init(parsing text: String) {
        let parts = text.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false).map { $0.isEmpty ? nil : String($0) }
        if parts.count == 1 {
            self.init(layout: parts[0])
            return
        }
        func part(_ i: Int) -> String? { i < parts.count ? parts[i] : nil }
        self.init(rules: part(0), model: part(1), layout: part(2), variant: part(3), options: part(4))
    }

    public var description: String { [rules, model, layout, variant, options].map { $0 ?? "" }.joined(separator: ":") }
}

/// Why a keymap could not be made.
public struct KeymapError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public var description: String { message }
}

/// What a key did, as apps are told.
public struct KeyResult: Equatable, Sendable {
    /// The keysym the key gives with the modifiers in effect (0 for none).
    public var keysym: UInt32
    /// The text it types (empty: none; a dead key types nothing, the key after it the
    /// composed character).
    public var text: String
    /// The modifiers in effect for it.
    public var modifiers: KeyModifiers

    public init(keysym: UInt32, text: String, modifiers: KeyModifiers) {
        (self.keysym, self.text, self.modifiers) = (keysym, text, modifiers)
    }
}

/// A keyboard's keymap and state. Confined to one thread.
public final class Keyboard {
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    private var state: OpaquePointer
    private let compose: OpaquePointer?
    /// The names it was made from.
    public let names: KeymapNames
    /// Keys held down now (evdev codes).
    public private(set) var held: Set<UInt32> = []

    /// A keymap from `names` (unset parts from the environment's `XKB_DEFAULT_*`, then the
    /// defaults). Throws naming what xkbcommon could not find (an unknown layout, say).
    public init(names: KeymapNames = KeymapNames()) throws(KeymapError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw KeymapError(message: "xkbcommon: no context") }
        self.context = context
        self.names = names
        let made: OpaquePointer? = withOptionalCString(names.rules) { r in
            withOptionalCString(names.model) { m in
                withOptionalCString(names.layout) { l in
                    withOptionalCString(names.variant) { v in
                        withOptionalCString(names.options) { o in
                            var rmlvo = xkb_rule_names(rules: r, model: m, layout: l, variant: v, options: o)
                            return xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let keymap = made else {
            xkb_context_unref(context)
            let layout = names.layout ?? Keyboard.environment("XKB_DEFAULT_LAYOUT") ?? "us"
            throw KeymapError(message: "no keymap for layout '\(layout)' (rules:model:layout:variant:options '\(names)'): xkbcommon found no such layout, variant or option in its data (/usr/share/X11/xkb)")
        }
        self.keymap = keymap
        state = xkb_state_new(keymap)
        // Dead keys and compose sequences, if the locale has a compose table.
        let locale = Keyboard.environment("LC_ALL") ?? Keyboard.environment("LC_CTYPE") ?? Keyboard.environment("LANG") ?? "C"
        compose = xkb_compose_table_new_from_locale(context, locale, XKB_COMPOSE_COMPILE_NO_FLAGS)
            ?? xkb_compose_table_new_from_locale(context, "en_US.UTF-8", XKB_COMPOSE_COMPILE_NO_FLAGS)
        if let table = compose {
            composeState = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS)
        }
    }

    private var composeState: OpaquePointer?

    /// Whether dead keys and compose sequences work here: the locale's compose table was read.
    public var composes: Bool { composeState != nil }

    /// Whether a compose table is installed (en_US.UTF-8's, libx11-data).
    public static var hasComposeTable: Bool { (try? Keyboard())?.composes ?? false }

    deinit {
        if let composeState { xkb_compose_state_unref(composeState) }
        if let compose { xkb_compose_table_unref(compose) }
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    private static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        let s = String(cString: v)
        return s.isEmpty ? nil : s
    }

    /// The key with evdev code `keycode` went down (`pressed`) or up: what it gives, read
    /// before the state changes (a Shift key's own press does not say Shift).
    public func key(_ keycode: UInt32, pressed: Bool) -> KeyResult {
        let code = keycode + 8
        let modifiers = self.modifiers
        var keysym = xkb_state_key_get_one_sym(state, code)
        var text = ""
        if pressed {
            text = utf8 { xkb_state_key_get_utf8(state, code, $0, $1) }
            if let cs = composeState, keysym != 0 {
                if xkb_compose_state_feed(cs, keysym) == XKB_COMPOSE_FEED_ACCEPTED {
                    switch xkb_compose_state_get_status(cs) {
                    case XKB_COMPOSE_COMPOSING:
                        text = ""
                    case XKB_COMPOSE_COMPOSED:
                        text = utf8 { xkb_compose_state_get_utf8(cs, $0, $1) }
                        keysym = xkb_compose_state_get_one_sym(cs)
                        xkb_compose_state_reset(cs)
                    case XKB_COMPOSE_CANCELLED:
                        text = ""
                        xkb_compose_state_reset(cs)
                    default:
                        break
                    }
                }
            }
            held.insert(keycode)
        } else {
            held.remove(keycode)
        }
        xkb_state_update_key(state, code, pressed ? XKB_KEY_DOWN : XKB_KEY_UP)
        // Control characters are no text an app should insert.
        if let s = text.unicodeScalars.first, s.value < 0x20 || s.value == 0x7F { text = "" }
        return KeyResult(keysym: keysym, text: text, modifiers: modifiers)
    }

    /// Takes over from `other` (the user switched layouts, maybe with keys down: Ctrl of
    /// Ctrl+Space): its keys held are down here and up there, and its locks (Caps Lock, Num
    /// Lock) are locked here; `other` is left as new, so coming back to it later finds nothing
    /// stale. A dead key or compose sequence under way is dropped on both.
    public func takeOver(from other: Keyboard) {
        reset()
        for code in other.held {
            xkb_state_update_key(state, code + 8, XKB_KEY_DOWN)
            held.insert(code)
        }
        // (The real modifiers keep their indices from keymap to keymap.)
        let locked = xkb_state_serialize_mods(other.state, XKB_STATE_MODS_LOCKED)
        xkb_state_update_mask(
            state, xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED), xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED), locked, 0, 0, 0)
        other.reset()
    }

    /// Every key up, no lock on, no compose sequence under way.
    private func reset() {
        if let fresh = xkb_state_new(keymap) {
            xkb_state_unref(state)
            state = fresh
        }
        held = []
        if let composeState { xkb_compose_state_reset(composeState) }
    }

    /// Whether the keymap says the key repeats while held (letters do, modifiers do not).
    public func repeats(_ keycode: UInt32) -> Bool { xkb_keymap_key_repeats(keymap, keycode + 8) != 0 }

    /// The modifiers in effect now.
    public var modifiers: KeyModifiers {
        var m: KeyModifiers = []
        for (flag, name) in [(KeyModifiers.shift, XKB_MOD_NAME_SHIFT), (.capsLock, XKB_MOD_NAME_CAPS), (.control, XKB_MOD_NAME_CTRL), (.alt, XKB_MOD_NAME_ALT), (.logo, XKB_MOD_NAME_LOGO), (.numLock, XKB_MOD_NAME_NUM), (.altGr, "Mod5")] {
            if xkb_state_mod_name_is_active(state, name, XKB_STATE_MODS_EFFECTIVE) > 0 { m.insert(flag) }
        }
        return m
    }

    /// The evdev code of a key that gives the keysym named `name` (`a`, `Return`, `Left`,
    /// `Shift_L`, `backslash`) at some level of the first layout, the lowest level first; nil
    /// when no key gives it.
    public func keycode(forKeysymNamed name: String) -> UInt32? {
        key(giving: xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS), levels: 4)?.code
    }

    /// The evdev code of a key that gives `keysym` at one of its first two levels of the layout,
    /// and the level (1: Shift), the lowest first.
    public func keycode(forKeysym keysym: UInt32) -> (code: UInt32, level: UInt32)? { key(giving: keysym, levels: 2) }

    /// The evdev code of a key that types `c`, and whether it needs Shift (its second level);
    /// nil when no key of the first layout types it at its first two levels.
    public func keycode(typing c: Character) -> (code: UInt32, shift: Bool)? {
        guard c.unicodeScalars.count == 1, let u = c.unicodeScalars.first else { return nil }
        return key(giving: u == "\n" ? 0xFF0D : xkb_utf32_to_keysym(u.value), levels: 2).map { ($0.code, $0.level == 1) }
    }

    /// A key of the first layout giving `sym` at one of its first `levels` levels, the lowest
    /// level first: its evdev code and the level.
    private func key(giving sym: xkb_keysym_t, levels: UInt32) -> (code: UInt32, level: UInt32)? {
        guard sym != 0 else { return nil }
        let low = xkb_keymap_min_keycode(keymap), high = xkb_keymap_max_keycode(keymap)
        for level: UInt32 in 0..<levels {
            for code in low...high {
                var syms: UnsafePointer<xkb_keysym_t>?
                let n = xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &syms)
                if n > 0, let syms, (0..<Int(n)).contains(where: { syms[$0] == sym }) { return (code - 8, level) }
            }
        }
        return nil
    }

    /// The name of the keysym the key with evdev code `keycode` gives at its first level (`a`
    /// for the A key), nil for a code the keymap has no key for.
    public func keysymName(ofKey keycode: UInt32) -> String? {
        var syms: UnsafePointer<xkb_keysym_t>?
        let n = xkb_keymap_key_get_syms_by_level(keymap, keycode + 8, 0, 0, &syms)
        guard n > 0, let syms else { return nil }
        let name = Keyboard.name(ofKeysym: syms[0])
        return name.isEmpty ? nil : name
    }

    /// A keysym's name (`a`, `Return`), for logs and scenarios.
    public static func name(ofKeysym sym: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = xkb_keysym_get_name(sym, &buffer, buffer.count)
        return n > 0 ? String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// The keysym named `name`, or nil for a name xkbcommon does not know.
    public static func keysym(named name: String) -> UInt32? {
        let s = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        return s == 0 ? nil : s
    }

    private func utf8(_ fill: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBufferPointer { fill($0.baseAddress!, $0.count) }
        guard n > 0 else { return "" }
        return String(decoding: buffer.prefix(min(Int(n), 63)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s, !s.isEmpty else { return body(nil) }
    return s.withCString { body($0) }
}

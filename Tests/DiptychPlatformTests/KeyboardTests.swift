// SPDX-License-Identifier: MIT
// The keymap through real xkbcommon: what keys give (keysym, text, modifiers), layouts by name,
// repeats, compose, and a layout that does not exist refused by name.

import DiptychCore
import DiptychKeyboard
import Glibc
import Testing

struct KeyboardTests {
    /// evdev codes (linux/input-event-codes.h).
    static let keyA: UInt32 = 30, keyQ: UInt32 = 16, leftShift: UInt32 = 42, keyE: UInt32 = 18, apostrophe: UInt32 = 40

    @Test func usKeymapTypesLettersAndShift() throws {
        let k = try Keyboard(names: KeymapNames(layout: "us"))
        #expect(k.key(Self.keyA, pressed: true) == KeyResult(keysym: 0x61, text: "a", modifiers: []))
        _ = k.key(Self.keyA, pressed: false)
        _ = k.key(Self.leftShift, pressed: true)
        #expect(k.key(Self.keyA, pressed: true) == KeyResult(keysym: 0x41, text: "A", modifiers: [.shift]))
        _ = k.key(Self.keyA, pressed: false)
        _ = k.key(Self.leftShift, pressed: false)
        #expect(k.modifiers == [])
        #expect(k.repeats(Self.keyA) && !k.repeats(Self.leftShift))
        #expect(k.keycode(forKeysymNamed: "a") == Self.keyA)
        #expect(k.keycode(forKeysymNamed: "Return") == 28)
        #expect(k.keysymName(ofKey: Self.keyA) == "a")
    }

    @Test func aFrenchLayoutPutsAWhereQIs() throws {
        let k = try Keyboard(names: KeymapNames(parsing: "fr"))
        #expect(k.key(Self.keyQ, pressed: true).text == "a")
    }

    /// Switching keymaps with keys down (Ctrl of Ctrl+Space) and Caps Lock on: the new keymap
    /// has them, the one left has nothing held or locked when it is taken again.
    @Test func aKeymapTakingOverKeepsHeldKeysAndLocksAndLeavesNothingBehind() throws {
        let us = try Keyboard(names: KeymapNames(layout: "us")), de = try Keyboard(names: KeymapNames(layout: "de"))
        let control: UInt32 = 29, caps: UInt32 = 58, keyY: UInt32 = 21
        _ = us.key(caps, pressed: true)
        _ = us.key(caps, pressed: false)
        _ = us.key(control, pressed: true)
        de.takeOver(from: us)
        #expect(de.held == [control] && de.modifiers == [.control, .capsLock])
        // German: the key where US has Y is Z (Ctrl and Caps Lock on).
        #expect(de.key(keyY, pressed: true).keysym == 0x5A)
        _ = de.key(keyY, pressed: false)
        _ = de.key(control, pressed: false)
        #expect(de.modifiers == [.capsLock])
        us.takeOver(from: de)
        #expect(us.held.isEmpty && us.modifiers == [.capsLock] && de.modifiers == [])
    }

    @Test func keymapNamesParse() {
        #expect(KeymapNames(parsing: "de") == KeymapNames(layout: "de"))
        #expect(KeymapNames(parsing: "evdev:pc105:us:intl:compose:ralt") == KeymapNames(rules: "evdev", model: "pc105", layout: "us", variant: "intl", options: "compose:ralt"))
        #expect(KeymapNames(parsing: "::fr:azerty") == KeymapNames(layout: "fr", variant: "azerty"))
    }

    @Test func anUnknownLayoutIsRefusedByName() {
        #expect {
            _ = try Keyboard(names: KeymapNames(layout: "no-such-layout"))
        } throws: { error in
            "\(error)".contains("no-such-layout")
        }
    }

    /// US international: the apostrophe is a dead acute; then e types é. Needs the locale's
    /// compose table (libx11-data), which xkbcommon reads.
    @Test(.enabled(if: Keyboard.hasComposeTable, "no compose table under /usr/share/X11/locale"))
    func deadKeysCompose() throws {
        let k = try Keyboard(names: KeymapNames(layout: "us", variant: "intl"))
        let dead = k.key(Self.apostrophe, pressed: true)
        #expect(dead.text == "")
        _ = k.key(Self.apostrophe, pressed: false)
        let e = k.key(Self.keyE, pressed: true)
        #expect(e.text == "é")
        #expect(e.keysym == 0xE9)
    }
}

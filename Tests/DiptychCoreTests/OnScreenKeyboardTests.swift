// SPDX-License-Identifier: MIT
// The on-screen keyboard's layouts, shift and auto-capitalisation, and typing a sentence
// through its keys as a person would.

import DiptychCore
import Testing

struct OnScreenKeyboardModelTests {
    let size = Size(width: 1024, height: 352)

    /// Every row fills the width between the margins, keys never overlap, and each layout has
    /// four rows of keys of one height.
    @Test(arguments: [KeyboardLayout.letters, .numbers, .symbols], [KeyboardVariant.default, .email, .url])
    func rowsFillTheWidth(_ layout: KeyboardLayout, _ variant: KeyboardVariant) {
        for orientation in [Orientation.landscape, .portrait] {
            let s = orientation == .landscape ? size : Size(width: 768, height: 264)
            let keys = layout.keys(variant: variant, returnKey: .default, capitals: false, size: s, orientation: orientation)
            let rows = Dictionary(grouping: keys) { $0.frame.y }
            #expect(rows.count == 4)
            for (_, row) in rows {
                let sorted = row.sorted { $0.frame.x < $1.frame.x }
                #expect(abs(sorted.last!.frame.maxX - (s.width - (orientation == .landscape ? 12 : 9))) <= 2, "\(layout) \(variant) \(orientation)")
                for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(a.frame.maxX < b.frame.minX) }
            }
            #expect(Set(keys.map(\.frame.height)).count == 1)
        }
    }

    @Test func shiftIsOneCapitalADoubleTapLocksIt() {
        var k = OnScreenKeyboard(for: TextInputState(enabled: true))
        let keys = { k.layout.keys(variant: k.variant, returnKey: .default, capitals: k.capitals, size: size, orientation: .landscape) }
        let shift = keys().first { $0.action == .shift }!
        _ = k.tap(shift, at: 0)
        #expect(k.shift == .on)
        #expect(k.tap(keys().first { $0.label == "A" }!, at: 100) == [.commit("A")])
        #expect(k.shift == .off)
        _ = k.tap(shift, at: 1000)
        _ = k.tap(shift, at: 1200)
        #expect(k.shift == .locked)
        _ = k.tap(keys().first { $0.label == "B" }!, at: 1300)
        #expect(k.shift == .locked)
        _ = k.tap(shift, at: 2000)
        #expect(k.shift == .off)
    }

    /// A held delete key repeats after half a second, ten times a second; let go after
    /// repeating it deletes nothing more; a tap deletes once, on release.
    @Test func aHeldDeleteRepeats() throws {
        let screen = Size(width: 1024, height: 768)
        var k = KeyboardPresence(owner: AppID(1), state: TextInputState(enabled: true, surrounding: "abcdef"), at: 0)
        let keys = k.keys(screen: screen, orientation: .landscape), rest = k.restFrame(screen: screen, orientation: .landscape)
        let del = try #require(keys.first { $0.action == .delete }).frame
        let (x, y) = (Double(rest.x + del.x + 5), Double(rest.y + del.y + 5))
        k.press(.finger(1), x: x, y: y, screen: screen, orientation: .landscape, at: 1000)
        #expect(k.repeats(at: 1400, screen: screen, orientation: .landscape).isEmpty)
        #expect(k.nextRepeat == 1500)
        #expect(k.repeats(at: 1500, screen: screen, orientation: .landscape) == [.key(.backspace)])
        #expect(k.repeats(at: 1550, screen: screen, orientation: .landscape).isEmpty)
        #expect(k.repeats(at: 1600, screen: screen, orientation: .landscape) == [.key(.backspace)])
        #expect(k.release(.finger(1), screen: screen, orientation: .landscape, at: 1620, cancelled: false).isEmpty)
        #expect(k.nextRepeat == nil)
        k.press(.finger(2), x: x, y: y, screen: screen, orientation: .landscape, at: 2000)
        #expect(k.release(.finger(2), screen: screen, orientation: .landscape, at: 2080, cancelled: false) == [.key(.backspace)])
    }

    /// The app's state sent again unchanged does not undo what was typed since: after "Hi. "
    /// the next letter is a capital until the app says otherwise.
    @Test func theAppsStateSentAgainKeepsWhatWasTyped() {
        let state = TextInputState(enabled: true, hints: .capitalizeSentences, surrounding: "Hi")
        var k = OnScreenKeyboard(for: state)
        let keys = { k.layout.keys(variant: k.variant, returnKey: .default, capitals: k.capitals, size: size, orientation: .landscape) }
        _ = k.tap(keys().first { $0.label == "." }!, at: 0)
        _ = k.tap(keys().first { $0.action == .space }!, at: 100)
        #expect(k.shift == .on)
        k.update(state)
        #expect(k.shift == .on && k.context == "Hi. ")
        k.update(TextInputState(enabled: true, hints: .capitalizeSentences, surrounding: "Hi. x"))
        #expect(k.shift == .off && k.context == "Hi. x")
    }

    /// Return in a single-line field (its text unchanged: a search, pdf.js's find field) does
    /// not shift the next letter; in a text area the app's new line does (auto-capitalisation
    /// follows `surrounding`). An app that never says its text gets the new line counted.
    @Test func afterReturnAutoCapitalisationFollowsTheField() {
        let find = TextInputState(enabled: true, purpose: .search, hints: .capitalizeSentences, surrounding: "menu")
        var k = OnScreenKeyboard(for: find)
        let keys = { k.layout.keys(variant: k.variant, returnKey: .search, capitals: k.capitals, size: size, orientation: .landscape) }
        #expect(k.shift == .off)
        #expect(k.tap(keys().first { $0.action == .return }!, at: 0) == [.key(.return)])
        #expect(k.shift == .off, "a single-line field's text did not change")
        k.update(find)
        #expect(k.shift == .off)
        k.update(TextInputState(enabled: true, hints: .capitalizeSentences, surrounding: "Dear Ada,\n"))
        #expect(k.shift == .on, "a text area's new line")
        var silent = OnScreenKeyboard(for: TextInputState(enabled: true, hints: .capitalizeSentences))
        let silentKeys = { silent.layout.keys(variant: silent.variant, returnKey: .default, capitals: silent.capitals, size: size, orientation: .landscape) }
        _ = silent.tap(silentKeys().first { $0.label == "A" }!, at: 0)
        #expect(silent.shift == .off)
        _ = silent.tap(silentKeys().first { $0.action == .return }!, at: 100)
        #expect(silent.shift == .on, "an app that says nothing: the new line counted")
    }

    @Test func autoCapitalisationFollowsTheHintsAndTheTextBeforeTheCaret() {
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, hints: .capitalizeSentences)).shift == .on)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, hints: .capitalizeSentences, surrounding: "Hello")).shift == .off)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, hints: .capitalizeSentences, surrounding: "Hello. ")).shift == .on)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, hints: .capitalizeWords, surrounding: "Hello ")).shift == .on)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, surrounding: "")).shift == .off)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, purpose: .number)).layout == .numbers)
        #expect(OnScreenKeyboard(for: TextInputState(enabled: true, purpose: .email)).variant == .email)
    }

    /// A sentence typed key by key as `nextTap` says: layouts and shift switched as a person
    /// would, and exactly the sentence committed.
    @Test(arguments: [TextPurpose.text, .email], [TextHints(), .capitalizeSentences])
    func aSentenceIsTypedThroughTheKeys(_ purpose: TextPurpose, _ hints: TextHints) throws {
        var k = OnScreenKeyboard(for: TextInputState(enabled: true, purpose: purpose, hints: hints))
        var typed = "", now: UInt64 = 0, taps = 0
        for c in "Hello, World 42! a@x.com\n" {
            var done = false
            while !done {
                let keys = k.layout.keys(variant: k.variant, returnKey: .default, capitals: k.capitals, size: size, orientation: .landscape)
                let next = try #require(k.nextTap(for: c, keys: keys), "no way to type \(c)")
                now += 500
                taps += 1
                for o in k.tap(keys[next.index], at: now) {
                    if case .commit(let t) = o { typed += t }
                    if case .key(.return) = o { typed += "\n" }
                }
                done = next.types
                #expect(taps < 200)
            }
        }
        #expect(typed == "Hello, World 42! a@x.com\n")
        // (é is in the popup of e, € in that of $; ş on no key of US English's.)
        #expect(OnScreenKeyboard.types("é", variant: .default) && OnScreenKeyboard.types("€", variant: .default) && !OnScreenKeyboard.types("ş", variant: .default))
    }
}

// SPDX-License-Identifier: MIT
// The text-input gate: focus, the rate of switches, the caret clamped, focus loss.

import DiptychCore
import Testing

struct TextInputGateTests {
    let pane = Size(width: 320, height: 768)

    @Test func onlyTheFocusedAppTurnsTextInputOnAndTurningItOffIsNeverRefused() {
        var g = TextInputGate()
        #expect(g.offer(TextInputState(enabled: true), focused: false, pane: pane, now: 0) == .refused(reason: "focus", message: "textInput: only the app with the keyboard focus may turn text input on"))
        #expect(!g.state.enabled)
        #expect(g.offer(TextInputState(enabled: true, purpose: .email), focused: true, pane: pane, now: 0) == .taken(switched: true))
        #expect(g.state.enabled && g.state.purpose == .email)
        #expect(g.offer(.disabled, focused: false, pane: pane, now: 1) == .taken(switched: true))
        #expect(!g.state.enabled)
    }

    /// Switches past 30 a second are refused; caret moves never are, however many.
    @Test func switchesPastThirtyASecondAreRefusedCaretMovesNever() {
        var g = TextInputGate()
        var switched = 0, refused = 0
        for i in 0..<100 {
            let t = TextInputState(enabled: true, purpose: i % 2 == 0 ? .text : .number)
            switch g.offer(t, focused: true, pane: pane, now: UInt64(i)) {
            case .taken(true): switched += 1
            case .taken(false): break
            case .refused(let reason, _):
                #expect(reason == "rate")
                refused += 1
            }
        }
        #expect(switched == 30 && refused > 0, "\(switched) switches taken, \(refused) refused")
        // A second later it is taken again.
        #expect(g.offer(TextInputState(enabled: true, purpose: .url), focused: true, pane: pane, now: 1200) == .taken(switched: true))
        for i in 0..<1000 {
            #expect(g.offer(TextInputState(enabled: true, purpose: .url, caret: (Double(i % 300), 5, 2, 20)), focused: true, pane: pane, now: 1201) == .taken(switched: false))
        }
        // Turning it off is never refused, even past the rate.
        for i in 0..<40 {
            let outcome = g.offer(i % 2 == 0 ? .disabled : TextInputState(enabled: true), focused: true, pane: pane, now: 1300)
            if i % 2 == 0 {
                if case .refused = outcome { Issue.record("turning text input off was refused") }
            }
        }
    }

    @Test func aCaretOutsideThePaneIsClamped() {
        var g = TextInputGate()
        _ = g.offer(TextInputState(enabled: true, caret: (-40, 900, 10, 30)), focused: true, pane: pane, now: 0)
        #expect(g.state.caret == (0, 768, 10, 0))
        _ = g.offer(TextInputState(enabled: true, caret: (315, 20, 10, 30)), focused: true, pane: pane, now: 0)
        #expect(g.state.caret == (315, 20, 5, 30))
    }

    @Test func losingFocusEndsIt() {
        var g = TextInputGate()
        _ = g.offer(TextInputState(enabled: true, surrounding: "Hi. "), focused: true, pane: pane, now: 0)
        g.clear()
        #expect(g.state == .disabled)
    }

    /// Protocol 9: an enable raises the keyboard when it names the last tap the app was sent
    /// or a key of the keyboard's since (‹ › return), each once; a stale tap, an input the app
    /// was never sent, or anything sent before the user dismissed it raises nothing. A caret
    /// update naming none keeps the serial the enable named.
    @Test func anEnableRaisesTheKeyboardByTheSerialItNames() {
        var g = TextInputGate()
        func enable(_ serial: UInt32, caret: Double = 1) { _ = g.offer(TextInputState(enabled: true, caret: (caret, 1, 1, 1), serial: serial), focused: true, pane: pane, now: 0) }
        enable(0)
        #expect(!g.enableRaisesKeyboard, "a field focused by the app itself")
        g.tapped(serial: 4)
        enable(4)
        #expect(g.enableRaisesKeyboard)
        enable(0, caret: 5)
        #expect(g.enableRaisesKeyboard && g.enableSerial == 4, "a caret update keeps the tap")
        g.raisedKeyboard()
        #expect(!g.enableRaisesKeyboard, "a tap raises it once")
        g.keyboardKeySent(serial: 9)
        _ = g.offer(.disabled, focused: true, pane: pane, now: 1)
        enable(9)
        #expect(g.enableRaisesKeyboard, "› moved to the next field")
        g.tapped(serial: 12)
        enable(9)
        #expect(!g.enableRaisesKeyboard, "a key before the last tap is stale")
        enable(4)
        #expect(!g.enableRaisesKeyboard, "so is an earlier tap")
        enable(13)
        #expect(!g.enableRaisesKeyboard, "an input that was not a tap")
        enable(12)
        #expect(g.enableRaisesKeyboard)
        g.keyboardDismissed(last: 15)
        #expect(!g.enableRaisesKeyboard, "dismissed: the field needs a new tap")
        g.tapped(serial: 16)
        enable(16)
        #expect(g.enableRaisesKeyboard)
        g.clear()
        #expect(!g.enableRaisesKeyboard && g.enableSerial == 0)
    }
}

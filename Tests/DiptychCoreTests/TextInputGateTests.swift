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
}

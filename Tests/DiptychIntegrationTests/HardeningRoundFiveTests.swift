// SPDX-License-Identifier: MIT
// Hardening, round five: an alert never takes the other app's typing, what one app makes the
// compositor tell another is bounded, an app's text is laid out once, and the control socket
// and the loop hold against what an app or a file controls. Each next to a good app that keeps
// its frames; the bounds are asserted, never the time.

import CLinuxShims
import DiptychCore
import DiptychLinux
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

struct HardeningRoundFiveTests {
    func tap(_ f: Fixture, _ x: Double, _ y: Double, id: Int32 = 3) {
        f.compositor.touch(id: id, phase: .down, x: x, y: y)
        f.compositor.touch(id: id, phase: .up, x: x, y: y)
    }

    /// The primary with an email field, tapped: its keyboard up. The secondary (split 2/3,
    /// from x 683 pt) is the misbehaving client in `mode`, drawn.
    func typingBeside(_ mode: String) throws -> Fixture {
        let f = try Fixture(arrangement: .split23)
        try f.misbehave("text-input", app: "pattern:#00AA00", log: "typing.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave(mode, app: "pattern:#2040A0", log: "other.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        tap(f, 300, 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.keyboardShown != nil && !f.compositor.keyboardMoving })
        return f
    }

    /// The attack: the other app answers each keyboard move with a system-looking "Sign In"
    /// alert and its dismissal in one write. The focus never moves, no alert takes a key, and
    /// what the user types on the keyboard and on a hardware keyboard reaches the app they
    /// tapped.
    @Test func anAlertFromTheOtherAppNeverTakesTheTyping() throws {
        let f = try typingBeside("alert-flash")
        let typing = try #require(f.compositor.session(.primary)?.app)
        // The flasher heard the keyboard rise and flashed again.
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.count("keyboardFrame", in: "other.jsonl") >= 1 })
        _ = try f.compositor.roundTrip()
        #expect(f.compositor.keyboardFocus == typing)
        for c in "pw" {
            while let next = f.compositor.keyboardNextTap(for: c) {
                tap(f, next.x, next.y, id: 7)
                _ = try f.compositor.roundTrip()
                if next.types { break }
            }
        }
        // A hardware key too.
        let code = try #require(f.compositor.keycode(typing: "x"))
        f.compositor.key(code.code, pressed: true)
        f.compositor.key(code.code, pressed: false)
        _ = try f.compositor.roundTrip()
        #expect(f.compositor.keyboardFocus == typing)
        let typed = try f.events("typing.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }
        #expect(typed == ["p", "w"], "\(typed)")
        #expect(try f.events("typing.jsonl").contains { $0["event"]?.stringValue == "key" && $0["text"]?.stringValue == "x" })
        let other = try f.events("other.jsonl")
        #expect(!other.contains { $0["event"]?.stringValue == "keyboardFocus" && $0["focused"]?.boolValue == true })
        #expect(!other.contains { ["key", "textCommit"].contains($0["event"]?.stringValue) })
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// An alert of the app without the focus shows in its pane without keys; the user's touch
    /// on it gives its app the keyboard, and its field the typing.
    @Test func anAlertOfTheUnfocusedAppGetsKeysOnlyWhenTouched() throws {
        let f = try typingBeside("alert")
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.presented(.secondary) != nil })
        let typing = try #require(f.compositor.session(.primary)?.app)
        #expect(f.compositor.keyboardFocus == typing)
        #expect(f.compositor.keyboardShown?.owner == f.compositor.session(.primary)?.label)
        // Return goes to the typing app, not to the alert.
        let enter = try #require(f.compositor.keycode(forKeysymNamed: "Return"))
        f.compositor.key(enter, pressed: true)
        f.compositor.key(enter, pressed: false)
        #expect(f.compositor.presented(.secondary) != nil)
        let alert = try #require(f.compositor.presented(.secondary))
        tap(f, alert.frame.x + alert.frame.width / 2, alert.frame.y + 12)
        let other = try #require(f.compositor.session(.secondary)?.app)
        #expect(f.compositor.keyboardFocus == other)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.keyboardShown?.owner == f.compositor.session(.secondary)?.label })
        let a = try #require(f.compositor.keycode(typing: "a"))
        f.compositor.key(a.code, pressed: true)
        f.compositor.key(a.code, pressed: false)
        #expect(f.compositor.presented(.secondary)?.text == "a")
    }

    /// The focused app presents and dismisses an alert with a field 4,000 times in a burst:
    /// past its budget each is refused (`rate`), and the good app beside it hears a handful of
    /// keyboard moves, is never disconnected, and keeps its frames.
    @Test func aPresentationFloodIsRefusedAndTheOtherAppHearsAHandful() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        try f.misbehave("presentation-flood", app: "pattern:#2040A0", log: "flood.jsonl", environment: ["DIPTYCH_FLOOD_COUNT": "2000"])
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        tap(f, 900, 300)
        let before = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 60_000) {
            f.compositor.repaint()
            return f.count("refused", in: "flood.jsonl") >= 1950
        }, "\(f.count("refused", in: "flood.jsonl")) refused, \(f.count("keyboardFocus", in: "flood.jsonl")) focus events")
        let refused = try f.events("flood.jsonl").filter { $0["event"]?.stringValue == "refused" }
        #expect(refused.allSatisfy { $0["reason"]?.stringValue == "rate" })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= before + 20
        })
        let heard = f.count("keyboardFrame", in: "good.jsonl")
        #expect(heard <= 2 * (PresentationRequests.burst + 60 * PresentationRequests.perSecond), "\(heard) keyboard frames")
        #expect(f.compositor.isConnected(.primary) && f.compositor.isConnected(.secondary))
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// A 4,096-character message with no space is wrapped once, not every frame.
    @Test func aLongAlertIsLaidOutOnce() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        try f.misbehave("long-alert", app: "pattern:#2040A0", log: "long.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.presented(.secondary) != nil })
        let laidOut = f.compositor.presentationRequests.layoutsMade
        let before = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= before + 30
        })
        #expect(f.compositor.presentationRequests.layoutsMade - laidOut <= 1)
        let shown = try #require(f.compositor.presented(.secondary))
        #expect(shown.frame.height < 400)
    }
}

struct PresentationWrapTests {
    /// A word of 4,096 characters costs the lines shown, not the text.
    @Test func aLongWordIsMeasuredForTheLinesShownOnly() {
        var measured = 0
        let lines = Presentation.wrap(String(repeating: "W", count: 4096), width: 238, size: 13) { text, size in
            measured += 1
            return Double(text.count) * size * 0.9
        }
        #expect(lines.count == PresentationMetrics.messageLines + 1)
        #expect(measured < 400, "\(measured) measurements")
        #expect(lines[0].count == 20)
    }

    @Test func wordsWrapAsBefore() {
        let lines = Presentation.wrap("one two three four five six", width: 50, size: 10) { text, _ in Double(text.count) * 5 }
        #expect(lines == ["one two", "three four", "five six"])
    }
}

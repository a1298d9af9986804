// SPDX-License-Identifier: MIT
// Menus and alerts the compositor shows for an app (`presentMenu`, `presentAlert`), through a
// real compositor and app processes: a 10,000-item menu draws a popover below its anchor,
// scrolls with a finger, answers a tap with the item and goes at a tap outside; an alert dims
// the pane, raises the keyboard for its field, takes what is typed and answers its button; a
// second request while one shows is refused; a malformed piece disconnects that app alone.

import DiptychCore
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Testing

struct PresentationTests {
    /// A compositor with a good primary and the misbehaving client in `mode` as the secondary
    /// (split 2/3: its pane from x 704 pt), once its menu or alert shows.
    func presenting(_ mode: String) throws -> Fixture {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave(mode, app: "pattern:#2040A0", log: "app.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.presented(.secondary) != nil })
        return f
    }

    func tap(_ f: Fixture, _ x: Double, _ y: Double, id: Int32 = 4) {
        f.compositor.touch(id: id, phase: .down, x: x, y: y)
        f.compositor.touch(id: id, phase: .up, x: x, y: y)
    }

    func answers(_ f: Fixture, _ name: String) throws -> [JSONValue] { try f.events("app.jsonl").filter { $0["event"]?.stringValue == name } }

    @Test func aMenuShowsBelowItsAnchorScrollsAndAnswersATap() throws {
        // Alone full screen: a regular pane, so the menu is a popover.
        let f = try Fixture(arrangement: .full)
        try f.misbehave("menu", app: "pattern:#2040A0", log: "app.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.presented(.primary) != nil })
        let pane = try #require(f.compositor.layout.panes.first { $0.role == .primary })
        #expect(pane.horizontalSizeClass == .regular)
        let menu = try #require(f.compositor.presented(.primary))
        #expect(menu.kind == "menu" && menu.id == 1)
        // Below the anchor (pane y 100 + 40, then an 8 pt gap; the pane starts at the screen's
        // top), centred on it (20 + 100 - 160 pt: kept 16 pt inside the pane), 320 pt wide.
        #expect(menu.frame.y == 148 && menu.frame.x == Double(pane.frame.x) + 16 && menu.frame.width == 320, "\(menu.frame) in \(pane.frame)")
        #expect(menu.frame.y + menu.frame.height <= 768 - 16)
        // Opened at its selected item (the third, two rows above it): a dozen rows drawn, not 10,000.
        #expect(menu.targets.first?.index == 0 && menu.targets.count < 20, "\(menu.targets.map(\.index))")
        f.compositor.repaint()
        // The popover is white over the app's blue; its title grey text sits above the rows.
        let s = Double(2)
        #expect(f.compositor.output.pixel(x: Int((menu.frame.x + 4) * s), y: Int((menu.frame.y + 60) * s)) & 0xFFFFFF == 0xFFFFFF)
        #expect(f.compositor.output.pixel(x: Int((menu.frame.x - 10) * s), y: Int((menu.frame.y + 60) * s)) & 0xFFFFFF != 0xFFFFFF)
        // A drag scrolls it (no item chosen): later rows come into sight.
        let row = try #require(menu.targets.first { $0.index == 4 })
        let y0 = row.frame.y + 22
        f.compositor.touch(id: 1, phase: .down, x: row.frame.x + 50, y: y0)
        for step in 1...10 { f.compositor.touch(id: 1, phase: .motion, x: row.frame.x + 50, y: y0 - Double(step) * 20) }
        f.compositor.touch(id: 1, phase: .up, x: row.frame.x + 50, y: y0 - 200)
        let scrolled = try #require(f.compositor.presented(.primary))
        #expect(scrolled.targets.first!.index >= 4, "\(scrolled.targets.map(\.index))")
        #expect(try answers(f, "menuChosen").isEmpty)
        // A tap on a row chooses it: the app hears its index, the menu goes.
        let pick = try #require(scrolled.targets.dropFirst(2).first)
        tap(f, pick.frame.x + 100, pick.frame.y + 22)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try answers(f, "menuChosen").count == 1 })
        let chosen = try answers(f, "menuChosen")[0]
        #expect(chosen["id"]?.intValue == 1 && chosen["index"]?.intValue == pick.index, "\(chosen)")
        // It asks again (id 2); a tap outside the popover in its pane dismisses it.
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.presented(.primary)?.id == 2 })
        tap(f, 8, 740)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try answers(f, "dismissed").first?["id"]?.intValue == 2 })
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.presented(.primary)?.id == 3 })
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    @Test func aCompactPaneShowsTheMenuAsASheetFromTheBottom() throws {
        let f = try presenting("menu")
        let pane = try #require(f.compositor.layout.panes.first { $0.role == .secondary })
        #expect(pane.horizontalSizeClass == .compact)
        let sheet = try #require(f.compositor.presented(.secondary))
        // Across the pane (8 pt in), 8 pt above its bottom, at most 60% of it below the bar.
        #expect(sheet.frame.x == Double(pane.frame.x) + 8 && sheet.frame.width == Double(pane.frame.width) - 16, "\(sheet.frame)")
        #expect(sheet.frame.y + sheet.frame.height == Double(pane.frame.y + pane.frame.height) - 8)
        #expect(sheet.frame.height < Double(pane.frame.height) * 0.6 + 1)
        // The pane above it is dimmed.
        f.compositor.repaint()
        let above = f.compositor.output.pixel(x: Int(sheet.frame.x + 40) * 2, y: Int(sheet.frame.y - 40) * 2) & 0xFFFFFF
        #expect(above != 0x2040A0 && above & 0xFF < 0xA0, "\(String(above, radix: 16))")
        // A disabled item chooses nothing; a tap above the sheet dismisses it.
        tap(f, sheet.frame.x + 40, sheet.frame.y - 40)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try answers(f, "dismissed").first?["id"]?.intValue == 1 })
        #expect(try answers(f, "menuChosen").isEmpty)
    }

    @Test func aTapInTheOtherAppLeavesAMenuAndReachesThatApp() throws {
        let f = try presenting("menu")
        tap(f, 300, 400)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            try f.events("good.jsonl").contains { $0["event"]?.stringValue == "touch" && $0["phase"]?.stringValue == "up" }
        })
        #expect(f.compositor.presented(.secondary)?.id == 1)
        #expect(try answers(f, "dismissed").isEmpty)
    }

    @Test func anAlertTakesTypingFromTheKeyboardAndAnswersItsButton() throws {
        let f = try presenting("alert")
        let alert = try #require(f.compositor.presented(.secondary))
        #expect(alert.kind == "alert" && alert.targets.count == 2)
        // Its app came by itself and has no keyboard focus: the alert shows without keys (the
        // primary keeps them) until the user touches it; then its field takes the typing with
        // no tap in the field itself.
        let primary = try #require(f.compositor.session(.primary)?.app)
        #expect(f.compositor.keyboardFocus == primary)
        #expect(f.compositor.keyboardShown == nil)
        tap(f, alert.frame.x + alert.frame.width / 2, alert.frame.y + 12)
        #expect(f.compositor.keyboardFocus == f.compositor.session(.secondary)?.app)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.keyboardShown != nil && !f.compositor.keyboardMoving })
        // Centred in the pane above the keyboard, 270 pt wide.
        let pane = try #require(f.compositor.layout.panes.first { $0.role == .secondary }).frame
        let keyboardTop = Double(try #require(f.compositor.keyboardShown).frame.y)
        let moved = try #require(f.compositor.presented(.secondary))
        #expect(moved.frame.width == 270 && abs(moved.frame.x + 135 - Double(pane.x) - Double(pane.width) / 2) < 1)
        #expect(moved.frame.y + moved.frame.height < keyboardTop, "\(moved.frame) over the keyboard at \(keyboardTop)")
        // The pane is dimmed around the card.
        f.compositor.repaint()
        let s = 2.0
        let dimmed = f.compositor.output.pixel(x: Int((moved.frame.x - 20) * s), y: Int((moved.frame.y + 10) * s)) & 0xFFFFFF
        #expect(dimmed != 0x2040A0 && dimmed & 0xFF < 0xA0, "\(String(dimmed, radix: 16))")
        for c in "Ann" {
            while let next = f.compositor.keyboardNextTap(for: c) {
                tap(f, next.x, next.y, id: 7)
                if next.types { break }
            }
        }
        #expect(f.compositor.presented(.secondary)?.text == "Ann")
        // Typing reached no app: the alert's field took it.
        #expect(try answers(f, "textCommit").isEmpty)
        let ok = try #require(f.compositor.presented(.secondary)?.targets.last)
        tap(f, ok.frame.x + ok.frame.width / 2, ok.frame.y + 22)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try answers(f, "alertAnswered").count == 1 })
        let answer = try answers(f, "alertAnswered")[0]
        #expect(answer["button"]?.intValue == 1 && answer["text"]?.stringValue == "Ann", "\(answer)")
        // It asks again; Escape on a hardware keyboard answers Cancel.
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.presented(.secondary)?.id == 2 })
        f.compositor.key(1, pressed: true)
        f.compositor.key(1, pressed: false)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try answers(f, "alertAnswered").count == 2 })
        #expect(try answers(f, "alertAnswered")[1]["button"]?.intValue == 0)
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    @Test func aMalformedMenuPieceDisconnectsThatAppAlone() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave("menu-bad-piece", log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { bad.poll() != nil })
        #expect(f.compositor.protocolErrors.contains { $0.error.code == .malformedMessage && $0.error.message.contains("presentMenu") })
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 100, y: 300) & 0xFFFFFF == 0x00AA00)
    }
}

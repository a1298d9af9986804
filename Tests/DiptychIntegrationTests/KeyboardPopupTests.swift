// SPDX-License-Identifier: MIT
// The keyboard's languages live, through a real compositor and app process: a key held shows
// its popup, which repaints only its own rectangle; sliding onto é and lifting types it; the globe key's long press lists the languages and taking one switches the
// hardware keymap too; Ctrl+Space switches back without the app seeing it; the German keymap
// types ß and a dead key's é; `status` names the layout.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import Testing

struct KeyboardPopupTests {
    /// evdev codes: Ctrl, space, the key right of 0 (ß on German keymaps), the one after it
    /// (German's dead acute), E.
    static let (control, space, minus, equal, keyE): (UInt32, UInt32, UInt32, UInt32, UInt32) = (29, 57, 12, 13, 18)

    @Test func aHeldKeysPopupTypesItsAlternativeAndTheGlobeSwitchesBothKeyboards() throws {
        let f = try OnScreenKeyboardTests().raised()
        let c = f.compositor
        c.setKeyboardLanguages([try #require(KeyboardLanguage.named("fr")), try #require(KeyboardLanguage.named("de"))])
        #expect(try c.run(timeoutMilliseconds: 20_000) { !c.isInMotion && c.keyboardShown != nil })
        c.repaint()
        #expect(c.controlStatus(uptimeSeconds: 0)["keyboard"]?["layout"]?.stringValue == "fr")
        #expect(c.keymapNames.contains(":fr:"), "\(c.keymapNames)")

        // e held: after half a second its popup shows the French alternatives, nothing chosen.
        let e = try #require(c.keyboardKeys.first { $0.label == "e" }?.frame)
        let (ex, ey) = (Double(e.x) + Double(e.width) / 2, Double(e.y) + Double(e.height) / 2)
        c.touch(id: 7, phase: .down, x: ex, y: ey)
        c.repaint()
        #expect(try c.run(timeoutMilliseconds: 5000) { c.keyboardPopup != nil })
        let popup = try #require(c.keyboardPopup)
        #expect(popup.items == ["é", "è", "ê", "ë", "ē"] && popup.selected == nil)
        c.repaint()
        // Only the popup (with its shadow) was repainted: nothing of the keys below it.
        let rest = try #require(c.keyboardShown?.frame)
        let panel = Rect(x: (rest.x + popup.frame.x) * 2, y: (rest.y + popup.frame.y) * 2, width: popup.frame.width * 2, height: popup.frame.height * 2)
        let reach = 16
        let shadow = Rect(x: panel.x - reach, y: panel.y - reach, width: panel.width + 2 * reach, height: panel.height + 2 * reach + reach / 4)
        let opened = try #require(c.lastFrameDamage).rects
        #expect(!opened.isEmpty && opened.allSatisfy { shadow.contains($0) }, "\(opened) beyond \(shadow)")
        // Sliding onto é chooses it: that cell turns blue, and only the popup repaints.
        let at = try #require(c.keyboardPopupItemCenter(0))
        c.touch(id: 7, phase: .motion, x: at.x, y: at.y)
        c.repaint()
        #expect(c.keyboardPopup?.selected == 0)
        #expect(c.output.pixel(x: Int(at.x) * 2 - 30, y: Int(at.y) * 2 - 30) & 0xFFFFFF == 0x0A84FF)
        #expect(try #require(c.lastFrameDamage).rects.allSatisfy { panel.contains($0) })
        c.touch(id: 7, phase: .up, x: at.x, y: at.y)
        // A plain tap on e still types e (and repaints one key).
        c.touch(id: 8, phase: .down, x: ex, y: ey)
        c.touch(id: 8, phase: .up, x: ex, y: ey)
        #expect(try c.run(timeoutMilliseconds: 20_000) { try self.commits(f).hasSuffix("ée") })

        // The globe held: the languages by their own names, the one in use chosen; sliding to
        // Deutsch and lifting takes it, for the on-screen keyboard and the hardware keymap.
        let globe = try #require(c.keyboardKeyCenter(.nextLanguage))
        c.touch(id: 9, phase: .down, x: globe.x, y: globe.y)
        #expect(try c.run(timeoutMilliseconds: 5000) { c.keyboardPopup != nil })
        #expect(c.keyboardPopup?.items == ["Français", "Deutsch"] && c.keyboardPopup?.selected == 0)
        let deutsch = try #require(c.keyboardPopupItemCenter(1))
        c.touch(id: 9, phase: .motion, x: deutsch.x, y: deutsch.y)
        c.touch(id: 9, phase: .up, x: deutsch.x, y: deutsch.y)
        #expect(c.controlStatus(uptimeSeconds: 0)["keyboard"]?["layout"]?.stringValue == "de")
        #expect(c.keymapNames.contains(":de:") && c.keyboardKeys.contains { $0.label == "ü" })

        // The German keymap: ß on its own key, é from the dead acute and e, as key events.
        for (code, down) in [(Self.minus, true), (Self.minus, false), (Self.equal, true), (Self.equal, false), (Self.keyE, true), (Self.keyE, false)] {
            c.key(code, pressed: down)
        }
        #expect(try c.run(timeoutMilliseconds: 20_000) { try self.keyTexts(f).hasSuffix("ßé") })
        // Ctrl+Space: the next language (French again); the app sees Ctrl, not the space.
        let spacesBefore = try keyEvents(f).filter { $0["keycode"]?.intValue == Int(Self.space) }.count
        c.key(Self.control, pressed: true)
        c.key(Self.space, pressed: true)
        c.key(Self.space, pressed: false)
        c.key(Self.control, pressed: false)
        #expect(c.controlStatus(uptimeSeconds: 0)["keyboard"]?["layout"]?.stringValue == "fr" && c.keymapNames.contains(":fr:"))
        try c.roundTrip(timeoutMilliseconds: 20_000)
        #expect(try keyEvents(f).filter { $0["keycode"]?.intValue == Int(Self.space) }.count == spacesBefore)
        #expect(c.protocolErrors.isEmpty)
    }

    func commits(_ f: Fixture) throws -> String {
        try f.events("text.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }.joined()
    }

    func keyEvents(_ f: Fixture) throws -> [JSONValue] { try f.events("text.jsonl").filter { $0["event"]?.stringValue == "key" } }

    func keyTexts(_ f: Fixture) throws -> String {
        try keyEvents(f).filter { $0["state"]?.stringValue == "pressed" }.compactMap { $0["text"]?.stringValue }.joined()
    }
}

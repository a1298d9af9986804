// SPDX-License-Identifier: MIT
// The long-press popup as a person meets it, on the pure keyboard (time given): it waits half a
// second, offers the key's alternatives in the keyboard's language (capitals while shift is on,
// the currencies on $), at most eight, kept on the keyboard; a slide chooses, lifting types the
// choice, lifting where it started types the key, lifting far off or a cancel types nothing; the
// globe key's popup lists the languages and a tap on it still takes the next.

@testable import DiptychCore
import Testing

struct KeyboardPopupModelTests {
    let screen = Size(width: 1024, height: 768)
    let field = TextInputState(enabled: true)

    func keyboard(_ names: [String] = ["fr", "de"]) -> KeyboardPresence {
        KeyboardPresence(owner: AppID(1), state: field, languages: names.compactMap(KeyboardLanguage.named), current: 0, at: 0)
    }

    /// The centre of the key doing `action`, in screen points.
    func centre(_ k: KeyboardPresence, _ action: KeyboardKey.Action) throws -> (x: Double, y: Double) {
        let rest = k.restFrame(screen: screen, orientation: .landscape)
        let f = try #require(k.keys(screen: screen, orientation: .landscape).first { $0.action == action }?.frame)
        return (Double(rest.x + f.x + f.width / 2), Double(rest.y + f.y + f.height / 2))
    }

    func itemCentre(_ k: KeyboardPresence, _ i: Int) throws -> (x: Double, y: Double) {
        let rest = k.restFrame(screen: screen, orientation: .landscape), f = try #require(k.popup).itemFrames[i]
        return (Double(rest.x + f.x + f.width / 2), Double(rest.y + f.y + f.height / 2))
    }

    func touch(_ k: inout KeyboardPresence, _ phase: TouchPhase, _ at: (x: Double, y: Double), _ now: UInt64) -> [KeyboardOutput] {
        k.touch(.finger(1), phase: phase, x: at.x, y: at.y, screen: screen, orientation: .landscape, at: now) ?? []
    }

    @Test func aKeyHeldHalfASecondOffersItsAlternativesAndASlideChoosesOne() throws {
        var k = keyboard()
        let e = try centre(k, .text("e"))
        _ = touch(&k, .down, e, 1000)
        #expect(k.nextRepeat == 1500)
        let early = k.holdLong(at: 1499, screen: screen, orientation: .landscape)
        #expect(!early && k.popup == nil)
        let opened = k.holdLong(at: 1500, screen: screen, orientation: .landscape)
        #expect(opened && k.nextRepeat == nil)
        let p = try #require(k.popup)
        #expect(p.items == ["é", "è", "ê", "ë", "ē"] && p.selected == nil && p.kind == .alternatives)
        // A row of key-sized cells just above the key, from its left edge.
        #expect(p.frame.maxY <= p.keyFrame.minY && p.itemFrames[0].x == p.keyFrame.x && p.itemFrames[0].width == p.keyFrame.width)
        // Slid onto è and lifted: è.
        let è = try itemCentre(k, 1)
        _ = touch(&k, .motion, è, 1600)
        #expect(k.popup?.selected == 1)
        #expect(touch(&k, .up, è, 1700) == [.commit("è")] && k.popup == nil)
        // Lifted where it started: the key itself.
        _ = touch(&k, .down, e, 2000)
        _ = k.holdLong(at: 2500, screen: screen, orientation: .landscape)
        _ = touch(&k, .motion, try itemCentre(k, 2), 2550)
        _ = touch(&k, .motion, e, 2600)
        #expect(k.popup?.selected == nil && touch(&k, .up, e, 2700) == [.commit("e")])
        // Lifted far off (on the space bar), or cancelled: nothing.
        _ = touch(&k, .down, e, 3000)
        _ = k.holdLong(at: 3500, screen: screen, orientation: .landscape)
        let space = try centre(k, .space)
        _ = touch(&k, .motion, space, 3600)
        #expect(touch(&k, .up, space, 3700).isEmpty)
        _ = touch(&k, .down, e, 4000)
        _ = k.holdLong(at: 4500, screen: screen, orientation: .landscape)
        #expect(touch(&k, .cancel, e, 4600).isEmpty && k.popup == nil)
        // Held on a key without a popup (the shift key), nothing is waited for; on e, its
        // popup; once it shows, nothing more (the loop sleeps until the finger moves).
        _ = touch(&k, .down, try centre(k, .shift), 4700)
        #expect(k.nextRepeat == nil)
        _ = touch(&k, .cancel, try centre(k, .shift), 4750)
        // A quick tap types e, with no popup.
        _ = touch(&k, .down, e, 5000)
        #expect(touch(&k, .up, e, 5080) == [.commit("e")])
    }

    @Test func capitalsCurrenciesAndTheRightEdge() throws {
        var k = keyboard(["de"])
        // Shift on: the alternatives are capitals (ß, having none, stays).
        let shift = try centre(k, .shift)
        _ = touch(&k, .down, shift, 1000)
        _ = touch(&k, .up, shift, 1040)
        #expect(k.keyboard.language.alternatives(of: "A").first == "Á" && k.keyboard.language.alternatives(of: "S") == ["ß", "Ş"])
        _ = touch(&k, .down, try centre(k, .text("U")), 1100)
        _ = k.holdLong(at: 1600, screen: screen, orientation: .landscape)
        #expect(k.popup?.items.first == "Ú")
        _ = touch(&k, .cancel, try centre(k, .text("U")), 1700)
        // The dollar key offers the other currencies.
        #expect(KeyboardLanguage.us.alternatives(of: "$").starts(with: ["€", "£", "¥"]))
        // ü, the rightmost letter of the top row, opens its popup leftwards onto the keyboard.
        var n = keyboard(["de"])
        let ü = try centre(n, .text("ü"))
        _ = touch(&n, .down, ü, 1000)
        _ = n.holdLong(at: 1500, screen: screen, orientation: .landscape)
        if let p = n.popup { #expect(p.frame.minX >= 0 && p.frame.maxX <= 1024) }
        // No key of any language offers more than eight.
        for l in KeyboardLanguage.all {
            for t in Array(l.accents.keys) + ["$", "\"", "?"] { #expect(l.alternatives(of: t).count <= KeyboardPopup.maxItems, "\(l.name) \(t)") }
        }
    }

    @Test func theGlobeKeyTakesTheNextLanguageOrListsThem() throws {
        var k = keyboard(["fr", "de", "es"])
        let globe = try centre(k, .nextLanguage)
        _ = touch(&k, .down, globe, 500)
        #expect(touch(&k, .up, globe, 580) == [.nextLanguage])
        _ = touch(&k, .down, globe, 1000)
        let opened = k.holdLong(at: 1500, screen: screen, orientation: .landscape)
        #expect(opened)
        #expect(k.popup?.kind == .languages && k.popup?.items == ["Français", "Deutsch", "Español"] && k.popup?.selected == 0)
        let español = try itemCentre(k, 2)
        _ = touch(&k, .motion, español, 1600)
        #expect(touch(&k, .up, español, 1700) == [.language(2)])
        // Lifted on the language in use: nothing changes.
        _ = touch(&k, .down, globe, 2000)
        _ = k.holdLong(at: 2500, screen: screen, orientation: .landscape)
        let français = try itemCentre(k, 0)
        _ = touch(&k, .motion, français, 2600)
        #expect(touch(&k, .up, français, 2700).isEmpty)
        // With one language there is no globe key.
        #expect(keyboard(["de"]).keys(screen: screen, orientation: .landscape).allSatisfy { $0.action != .nextLanguage })
    }

    @Test func typingAnAccentedLetterHoldsItsKey() throws {
        let k = keyboard(["fr"])
        let keys = k.keys(screen: screen, orientation: .landscape)
        let next = try #require(k.keyboard.nextTap(for: "è", keys: keys))
        #expect(keys[next.index].action == .text("e") && next.item == 1 && next.types)
        // ¿ is in the popup of ?, which is shift and the full stop on the letters.
        let es = keyboard(["es"])
        #expect(es.keyboard.nextTap(for: "¿", keys: es.keys(screen: screen, orientation: .landscape)).map { es.keys(screen: screen, orientation: .landscape)[$0.index].action } == .shift)
    }
}

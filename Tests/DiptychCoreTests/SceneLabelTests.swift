// SPDX-License-Identifier: MIT
// Text carried by scene nodes: kept as it is when short, cut with an ellipsis when too long.

import Testing

@testable import DiptychCore

@Suite struct SceneLabelTests {
    @Test func shortTextComesBackAsItWent() {
        for text in ["", "9:41", "notes", "pattern:#336699", "Überweisung 💶", String(repeating: "x", count: 31)] {
            #expect(SceneLabel.cut(text) == text)
        }
    }

    @Test func longTextIsCutAtACharacterWithAnEllipsis() {
        let long = SceneLabel.cut(String(repeating: "abcdefghij", count: 10))
        #expect(long == "abcdefghijabcdefghijabcdefgh…")
        #expect(long.utf8.count <= SceneLabel.capacity)
        // Multi-byte characters are never split.
        let emoji = SceneLabel.cut(String(repeating: "💶", count: 20))
        #expect(emoji == String(repeating: "💶", count: 7) + "…")
        #expect(emoji.utf8.count <= SceneLabel.capacity)
        // What an app's content keeps of its name.
        #expect(AppContent(live: nil, name: String(repeating: "n", count: 500)).name.utf8.count <= SceneLabel.capacity)
    }

    @Test func aPlaceholderShowsTheAppsMonogramWhenItHasNoIcon() {
        let content = AppContent(live: nil, name: "überweisung")
        #expect(content.monogram == "Ü")
        let node = SceneBuilder.icon(content, tile: RGB(red: 0x8E, green: 0x8E, blue: 0x93), in: Rect(x: 0, y: 0, width: 2000, height: 400), scale: 2, key: .icon(AppID(1)))
        #expect(node?.content == .chrome(.monogram("Ü", RGB(red: 0x8E, green: 0x8E, blue: 0x93), corner: ChromeStyle.iconCornerRadius * 2)))
        // 60 pt square, centred.
        #expect(node?.imageRect == Rect(x: 940, y: 140, width: 120, height: 120))
        // A band too small for the icon and its margins shows none.
        #expect(SceneBuilder.icon(content, tile: RGB(red: 0, green: 0, blue: 0), in: Rect(x: 0, y: 0, width: 130, height: 400), scale: 2, key: .icon(AppID(1))) == nil)
        // An app's own icon (its corners rounded in its pixels).
        let icon = ImageRef(id: 9, width: 120, height: 120)
        let own = SceneBuilder.icon(AppContent(live: nil, name: "x", icon: icon), tile: RGB(red: 0, green: 0, blue: 0), in: Rect(x: 0, y: 0, width: 400, height: 400), scale: 2, key: .icon(AppID(1)))
        #expect(own?.image == icon && own?.imageRect == Rect(x: 140, y: 140, width: 120, height: 120))
    }
}

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

    @Test func aPlaceholderLabelShowsTheCutName() {
        let name = SceneLabel.cut("A very long application name that goes on and on")
        let node = SceneBuilder.label(name, on: RGB(red: 0x8E, green: 0x8E, blue: 0x93), in: Rect(x: 0, y: 0, width: 2000, height: 400), scale: 1, text: BitmapMetrics(), key: .label(AppID(1)))
        guard case .chrome(.text(let line, _, let px))? = node?.content else {
            Issue.record("no label")
            return
        }
        #expect(line.hasSuffix("…"))
        // The node is as wide as the cut text, not the whole name.
        #expect(node?.imageRect.width == BitmapMetrics().size(of: line, pixelSize: px).width)
    }
}

// SPDX-License-Identifier: MIT
// Text carried by scene nodes: held inline, cut with an ellipsis when too long.

import Testing

@testable import DiptychCore

@Suite struct TextLineTests {
    @Test func shortTextComesBackAsItWent() {
        for text in ["", "9:41", "notes", "pattern:#336699", "Überweisung 💶", String(repeating: "x", count: 31)] {
            let line = TextLine(text)
            #expect(line.string == text)
            #expect(line.count == text.utf8.count)
            #expect(line == TextLine(text))
            #expect(line.hashValue == TextLine(text).hashValue)
        }
        #expect(TextLine("notes") != TextLine("notez"))
        #expect(TextLine("a") != TextLine("a\u{0}"))
    }

    @Test func longTextIsCutAtACharacterWithAnEllipsis() {
        let long = TextLine(String(repeating: "abcdefghij", count: 10))
        #expect(long.string == "abcdefghijabcdefghijabcdefgh…")
        #expect(long.count <= TextLine.capacity)
        // Multi-byte characters are never split.
        let emoji = TextLine(String(repeating: "💶", count: 20))
        #expect(emoji.string == String(repeating: "💶", count: 7) + "…")
        #expect(emoji.string.utf8.count <= TextLine.capacity)
    }

    @Test func aPlaceholderLabelShowsTheCutName() {
        let name = "A very long application name that goes on and on"
        let node = SceneBuilder.label(TextLine(name), on: RGB(red: 0x8E, green: 0x8E, blue: 0x93), in: Rect(x: 0, y: 0, width: 2000, height: 400), scale: 1, text: BitmapMetrics(), key: .label(AppID(1)))
        guard case .chrome(.text(let line, _, let px))? = node?.content else {
            Issue.record("no label")
            return
        }
        #expect(line.string.hasSuffix("…"))
        // The node is as wide as the cut text, not the whole name.
        #expect(node?.imageRect.width == BitmapMetrics().size(of: line, pixelSize: px).width)
    }
}

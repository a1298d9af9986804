// SPDX-License-Identifier: MIT
// The status bar end to end: real apps ask for its style over the socket; the
// primary's is drawn, a secondary's is kept (not an error: the app lives on).

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Testing

struct StatusBarTests {
    /// Writes a scenario where both apps ask for light text, and plays it.
    func playStyles(statusBar: String = "on") throws -> Played {
        let dir = Harness.temporaryDirectory("status-bar")
        let scenario = """
            {"device":"ipad-pro","primary":"pattern:#336699 --status-bar-style light",
             "secondary":"pattern:#993366 --status-bar-style light",
             "steps":[{"at":200,"capture":"light.png"}]}
            """
        let file = "\(dir)/scenario.json"
        try Files.writeAtomically(file, bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--scenario", file, "--out", dir, "--status-bar", statusBar])
        #expect(r.status == 0, "\(r.stderr)")
        return try Played(dir: dir)
    }

    /// Near-white pixels in the clock's box (centred, in the top 20 pt) of an ipad-pro capture.
    func whitePixelsInClock(_ image: PixelImage) -> Int {
        var n = 0
        for y in 4..<36 {
            for x in (image.width / 2 - 60)..<(image.width / 2 + 60) {
                let p = image.pixel(x: x, y: y)
                if (p >> 16) & 0xFF > 0xE0 && (p >> 8) & 0xFF > 0xE0 && p & 0xFF > 0xE0 { n += 1 }
            }
        }
        return n
    }

    @Test func thePrimarysStyleIsDrawnAndTheSecondaryLivesOn() throws {
        let p = try playStyles()
        // A secondary asking for a style is no error (iOS ignores it): both apps stay, in the split.
        #expect(p.events("secondary", including: ["protocolError"]).isEmpty)
        #expect(p.events("primary", including: ["protocolError"]).isEmpty)
        #expect(p.events("primary", including: ["frameDone"]).count >= 1)
        #expect(p.events("secondary", including: ["frameDone"]).count >= 1)
        #expect(widths(p.configures("primary")).last == 981)
        // Light text over the primary's blue, at 09:41.
        let image = try p.image("light.png")
        #expect(whitePixelsInClock(image) > 40)
        // Under the bar the app's pixels are unchanged: the bar is text over it, not a band.
        #expect(image.pixel(x: 300, y: 20) & 0xFFFFFF == 0x336699)
    }

    @Test func statusBarOffDrawsNone() throws {
        let p = try playStyles(statusBar: "off")
        #expect(whitePixelsInClock(try p.image("light.png")) == 0)
    }
}

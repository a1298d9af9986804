// SPDX-License-Identifier: MIT
// A legible status bar: with the demo apps (each asking for the style that suits it), the clock
// and the battery keep a contrast of at least 3:1 (WCAG) with what is behind them, in every
// arrangement and with either app as the primary.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

struct StatusBarContrastTests {
    /// WCAG's relative luminance of an 0xRRGGBB pixel.
    static func luminance(_ p: UInt32) -> Double {
        func channel(_ v: UInt32) -> Double {
            let c = Double(v & 0xFF) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(p >> 16) + 0.7152 * channel(p >> 8) + 0.0722 * channel(p)
    }

    /// The contrast of the text in `box`: its most different pixel against the box's median.
    static func contrast(_ image: PixelImage, _ box: Rect) -> Double {
        var ls: [Double] = []
        for y in box.y..<box.maxY { for x in box.x..<box.maxX { ls.append(luminance(image.pixel(x: x, y: y))) } }
        ls.sort()
        let median = ls[ls.count / 2]
        let ink = abs(ls.first! - median) > abs(ls.last! - median) ? ls.first! : ls.last!
        return (max(ink, median) + 0.05) / (min(ink, median) + 0.05)
    }

    @Test(arguments: ["full", "slide-over", "split-2/3", "split-1/2"])
    func theClockAndTheBatteryAreLegibleOverEitherApp(arrangement: String) throws {
        let dir = Harness.temporaryDirectory("bar-contrast")
        for (primary, secondary) in [("notes", "markets"), ("markets", "notes")] {
            let out = "\(dir)/\(primary)-\(arrangement.filter { $0 != "/" }).png"
            let r = try Harness.run([
                Harness.diptych, "render", "--device", "ipad-pro", "--arrangement", arrangement, "--primary", primary, "--secondary", secondary,
                "--battery", "76", "--out", out,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let image = try PixelImage.readPNG(from: out)
            // The clock (centred) and the battery (at the right), in the bar's top 20 pt (× 2).
            let clock = Rect(x: image.width / 2 - 50, y: 4, width: 100, height: 32)
            let battery = Rect(x: image.width - 150, y: 4, width: 140, height: 32)
            for (name, box) in [("clock", clock), ("battery", battery)] {
                let c = Self.contrast(image, box)
                #expect(c >= 3, "\(primary) primary, \(arrangement): the \(name) has a contrast of \(c)")
            }
        }
    }
}

// SPDX-License-Identifier: MIT
// The look of a divider drag: each app blurred with its icon, and the icon request's rules (an
// icon that is no icon is a protocol error; more than one a second is refused, the app lives).

import DiptychCore
import DiptychImage
import DiptychRender
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Testing

struct DragLookTests {
    @Test(arguments: [("icon-wrong-size", ProtocolError.Code.badDimensions), ("icon-xrgb", .badFormat)])
    func anIconThatIsNoIconIsAProtocolError(mode: String, code: ProtocolError.Code) throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave(mode, log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.protocolErrors.isEmpty && bad.poll() != nil })
        #expect(f.compositor.protocolErrors.map(\.error.code) == [code])
        #expect(f.compositor.protocolErrors.first?.error.message.contains("setIcon") == true)
        #expect(f.compositor.isConnected(.primary))
    }

    @Test func iconsPastOneASecondAreRefusedAndTheAppLivesOn() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave("icon-flood", log: "bad.jsonl")
        func refusals() throws -> [JSONValue] { try f.events("bad.jsonl").filter { $0["event"]?.stringValue == "refused" } }
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try refusals().count == 4 })
        #expect(try refusals().allSatisfy { $0["request"]?.stringValue == "setIcon" && $0["reason"]?.stringValue == "rate" })
        #expect(f.compositor.protocolErrors.isEmpty)
        // The first icon (magenta) is the one taken, at the size the screen shows it.
        let icon = try #require(f.compositor.session(.secondary)?.icon)
        #expect(icon.pixels.width == ChromeStyle.iconPoints * 2 && icon.pixels.pixel(x: 60, y: 60) == 0xFFFF_00FF)
        _ = try f.compositor.run(timeoutMilliseconds: 300) { false }
        #expect(bad.poll() == nil && f.compositor.isConnected(.secondary))
    }

    @Test func theBlurKeepsLargeShapesAndLosesDetail() {
        // Four quadrants of colour, each with a fine checkerboard over it.
        let (w, h) = (512, 384)
        let sharp = PixelImage(width: w, height: h)
        let colours = [RGB(red: 0xD0, green: 0x30, blue: 0x30), RGB(red: 0x30, green: 0xA0, blue: 0x50), RGB(red: 0x20, green: 0x40, blue: 0xC0), RGB(red: 0xE0, green: 0xC0, blue: 0x20)]
        for (q, c) in colours.enumerated() {
            let x0 = q % 2 * w / 2, y0 = q / 2 * h / 2
            sharp.fill(Rect(x: x0, y: y0, width: w / 2, height: h / 2), color: c)
            let light = RGB(red: c.red &+ 0x30, green: c.green &+ 0x30, blue: c.blue &+ 0x30)
            for y in stride(from: y0, to: y0 + h / 2, by: 2) {
                for x in stride(from: x0 + y % 4 / 2 * 2, to: x0 + w / 2, by: 4) { sharp.fill(Rect(x: x, y: y, width: 2, height: 2), color: light) }
            }
        }
        let blurred = sharp.blurred(factor: 8)
        #expect(blurred.width == 64 && blurred.height == 48)
        // Shown as a drag shows it: scaled back up over the sharp picture's place.
        let area = Rect(x: 0, y: 0, width: w, height: h)
        let shown = PixelImage(width: w, height: h)
        PixmanRenderer().render(Scene(size: area.size, surfaces: [SceneSurface(image: blurred, origin: (0, 0), clip: area, displaySize: area.size)]), into: shown)
        let means = BlurMeasure.blockMeans(shown, area, block: 32), sharpMeans = BlurMeasure.blockMeans(sharp, area, block: 32)
        let off = zip(means, sharpMeans).map { abs($0 - $1 * BlurMeasure.dim) }
        // Away from the quadrants' edges the means match; at the edges the blur spreads them.
        #expect(off.sorted()[off.count / 2] < 4, "median block off by \(off.sorted()[off.count / 2])")
        #expect(BlurMeasure.detail(shown, area) < BlurMeasure.detail(sharp, area) / 8, "\(BlurMeasure.detail(shown, area)) against \(BlurMeasure.detail(sharp, area))")
    }
}

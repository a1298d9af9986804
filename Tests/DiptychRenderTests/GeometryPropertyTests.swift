// SPDX-License-Identifier: MIT
// Geometry never traps: random legal Picture in Picture windows (any buffer size a client may
// register, any frame a growth from a 1×1 source rectangle passes through, anywhere on or off
// the screen), rounded, faded and padded, under every rotation and the emulation's scale, drawn
// by the renderer. Each must draw its colour where it is and nothing elsewhere.

import DiptychCore
import DiptychImage
@testable import DiptychRender
import Testing

struct GeometryPropertyTests {
    /// A small deterministic generator (the same windows every run).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }
    }

    /// The attack of round four: a 2048×512 buffer growing out of a 1×1 source rectangle at
    /// (500, 400), whose first frame maps the window's screen position times 2048 into pixman's
    /// transform (a trap in the conversion to 16.16 fixed point before).
    @Test func aWindowGrowingOutOfOnePixelDrawsWithoutTrapping() {
        let picture = PixelImage(width: 2048, height: 512)
        picture.fill(Rect(x: 0, y: 0, width: 2048, height: 512), color: RGB(red: 0, green: 200, blue: 0))
        for (x, y, w, h) in [(500, 400, 1, 1), (300, 300, 16, 9), (1000, 700, 2, 1)] {
            let screen = Size(width: 1366, height: 1024)
            let window = SceneSurface(image: picture, origin: (x, y), clip: Rect(x: x, y: y, width: w, height: h), displaySize: Size(width: w, height: h))
            let out = PixelImage(width: screen.width, height: screen.height)
            PixmanRenderer().render(Scene(size: screen, surfaces: [window]), into: out)
            #expect(out.pixel(x: x, y: y) == 0xFF00_C800, "window \(w)x\(h) at (\(x), \(y))")
            #expect(out.pixel(x: x + w, y: y + h) == 0xFF00_0000)
        }
    }

    @Test func randomWindowsUnderEveryTransformDrawWhereTheyAre() throws {
        var g = Generator(state: 42)
        let logical = Size(width: 480, height: 360)
        let pictures: [PixelImage] = [(2048, 512), (16384, 1), (1, 16384), (64, 64), (1, 1), (333, 97)].map { w, h in
            let p = PixelImage(width: w, height: h)
            p.fill(Rect(x: 0, y: 0, width: w, height: h), color: RGB(red: 0, green: 200, blue: 0))
            return p
        }
        for trial in 0..<400 {
            let rotation = g.pick(OutputRotation.allCases)
            // The panel: the logical screen, or smaller (the emulation's downscale), turned.
            let shrink = g.pick([1.0, 0.75, 0.5, 0.6])
            var panel = Size(width: Int(Double(logical.width) * shrink), height: Int(Double(logical.height) * shrink))
            if rotation == .quarter || rotation == .threeQuarters { panel = Size(width: panel.height, height: panel.width) }
            let geometry = OutputGeometry(logical: logical, panel: panel, rotation: rotation)
            let picture = g.pick(pictures)
            let size = Size(width: g.pick([1, 2, 3, g.int(1...600), g.int(1...20_000)]), height: g.pick([1, 2, g.int(1...400), g.int(1...20_000)]))
            let origin = (x: g.pick([g.int(-40...480), g.int(-1_000_000...1_000_000), -2_000_000_000, 2_000_000_000 - size.width]),
                          y: g.pick([g.int(-40...360), g.int(-1_000_000...1_000_000), -2_000_000_000]))
            var window = SceneSurface(
                image: picture, origin: origin, clip: Rect(x: origin.x, y: origin.y, width: size.width, height: size.height),
                cornerRadius: g.pick([0, 0, 4, 12, 40]), displaySize: size, opacity: g.pick([255, 255, 128, 1]))
            window.padded = g.int(0...1) == 1
            let out = PixelImage(width: panel.width, height: panel.height)
            PixmanRenderer().render(Scene(size: logical, surfaces: [window], transform: geometry.transform, outputSize: panel), into: out)
            // Well inside the window's part of the screen (away from edges, corners and the
            // emulation's blended borders), opaque windows show their green; outside, black.
            let screen = Rect(x: 0, y: 0, width: logical.width, height: logical.height)
            guard window.opacity == 255, let shown = window.clip.intersection(screen) else { continue }
            let inner = shown.insetBy(window.cornerRadius + 3)
            guard inner.width > 0, inner.height > 0 else { continue }
            let centre = geometry.transform.apply(x: Double(inner.x) + Double(inner.width) / 2, y: Double(inner.y) + Double(inner.height) / 2)
            let pixel = out.pixel(x: min(panel.width - 1, Int(centre.x)), y: min(panel.height - 1, Int(centre.y)))
            #expect(pixel == 0xFF00_C800, "trial \(trial): \(picture.width)x\(picture.height) as \(size) at \(origin), rotation \(rotation)")
        }
    }
}

private extension Rect {
    func insetBy(_ d: Int) -> Rect { Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }
}

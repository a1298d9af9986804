// SPDX-License-Identifier: MIT
// A rotation's pictures: turned about the frame's centre, scaled to stay on it, black around.

import DiptychCore
import DiptychImage
import DiptychRender
import Testing

struct TurningTests {
    /// A white picture as wide as the frame and half as tall, turned by `degrees`.
    func turned(_ degrees: Double) -> PixelImage {
        let picture = PixelImage(width: 100, height: 100)
        picture.fill(Rect(x: 0, y: 25, width: 100, height: 50), color: RGB(red: 255, green: 255, blue: 255))
        let frame = PixelImage(width: 100, height: 100)
        Turning.draw([Turning.Layer(image: picture, angle: degrees * .pi / 180, opacity: 255)], into: frame)
        return frame
    }

    func white(_ p: UInt32) -> Bool { p & 0xFFFFFF == 0xFFFFFF }
    func black(_ p: UInt32) -> Bool { p & 0xFFFFFF == 0 }

    @Test func unturnedItIsWhereItWas() {
        let f = turned(0)
        #expect(white(f.pixel(x: 50, y: 50)) && white(f.pixel(x: 2, y: 30)) && black(f.pixel(x: 50, y: 10)))
    }

    @Test func aQuarterTurnStandsTheBandUp() {
        let f = turned(90)
        #expect(white(f.pixel(x: 50, y: 2)) && white(f.pixel(x: 30, y: 97)) && black(f.pixel(x: 10, y: 50)) && black(f.pixel(x: 90, y: 50)))
    }

    @Test func halfWayItIsTurnedAndScaledToStayOnTheFrame() {
        // The square picture turned 45° is scaled by 1/√2: its corners touch the frame's edges'
        // middles, and the frame's corners stay black.
        let f = turned(45)
        #expect(black(f.pixel(x: 1, y: 1)) && black(f.pixel(x: 98, y: 98)) && black(f.pixel(x: 98, y: 1)))
        #expect(white(f.pixel(x: 50, y: 50)))
        // The band runs from top-left to bottom-right (turned clockwise).
        #expect(white(f.pixel(x: 30, y: 30)) && black(f.pixel(x: 70, y: 30)))
    }
}

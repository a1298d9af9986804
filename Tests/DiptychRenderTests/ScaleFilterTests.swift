// SPDX-License-Identifier: MIT
// The resolution emulation's filters: which one a transform gets, and the area-average kernel
// against an exact double-precision area average (and against pixman's bilinear).

import DiptychCore
import DiptychImage
import DiptychRender
import DiptychTestSupport
import Testing

/// A deterministic picture with what scaling must keep: flat areas, 1 px lines, a checkerboard
/// of single pixels, a gradient and noise.
func busyPicture(_ w: Int, _ h: Int, seed: UInt64 = 7) -> PixelImage {
    var g = seed
    func next() -> UInt32 {
        g = g &* 6364136223846793005 &+ 1442695040888963407
        return UInt32(truncatingIfNeeded: g >> 33)
    }
    let image = PixelImage(width: w, height: h)
    image.fill(Rect(x: 0, y: 0, width: w, height: h), color: RGB(red: 0x33, green: 0x66, blue: 0x99))
    for x in stride(from: 0, to: w, by: 7) { image.fill(Rect(x: x, y: 0, width: 1, height: h / 3), color: RGB(red: 255, green: 255, blue: 255)) }
    for y in (h / 3)..<(h / 2) {
        for x in 0..<(w / 2) where (x + y) % 2 == 0 { image.fill(Rect(x: x, y: y, width: 1, height: 1), color: RGB(red: 0, green: 0, blue: 0)) }
        for x in (w / 2)..<w { image.fill(Rect(x: x, y: y, width: 1, height: 1), color: RGB(red: UInt8(x * 255 / w), green: UInt8(y % 256), blue: 0x80)) }
    }
    for y in (h / 2)..<h {
        for x in 0..<w {
            let v = next()
            image.fill(Rect(x: x, y: y, width: 1, height: 1), color: RGB(red: UInt8(v & 0xFF), green: UInt8((v >> 8) & 0xFF), blue: UInt8((v >> 16) & 0xFF)))
        }
    }
    return image
}

struct ScaleFilterTests {
    /// The same picture through the renderer (one surface filling the screen) and exactly.
    func scaled(_ picture: PixelImage, onto panel: Size) -> (box: PixelImage, bilinear: PixelImage, exact: PixelImage, ops: [RenderOperation]) {
        let logical = Size(width: picture.width, height: picture.height)
        let geometry = OutputGeometry(logical: logical, panel: panel, rotation: .none)
        let scene = Scene(
            size: logical, surfaces: [SceneSurface(image: picture, origin: (0, 0), clip: Rect(x: 0, y: 0, width: logical.width, height: logical.height))],
            transform: geometry.transform, outputSize: panel)
        let (ops, _) = PixmanRenderer().plan(scene)
        let box = PixelImage(width: panel.width, height: panel.height), bilinear = PixelImage(width: panel.width, height: panel.height)
        PixmanRenderer.replay(ops, into: box)
        PixmanRenderer.replay(ops, into: bilinear, pixmanOnly: true)
        return (box, bilinear, picture.areaAverage(to: panel, through: geometry.transform), ops)
    }

    /// ipad-pro's 2732x2048 on a 2048x1536 panel, at a tenth of the size: the same ratio and
    /// the same quarter-pixel black bars.
    @Test func theBoxKernelIsAnExactAreaAverageAndBeatsBilinear() throws {
        let picture = busyPicture(683, 512)
        let (box, bilinear, exact, ops) = scaled(picture, onto: Size(width: 512, height: 384))
        guard case .composite(_, _, _, let filter, _, _, _)? = ops.last else { Issue.record("no composite"); return }
        #expect(filter == .box)
        // Inside the picture (the bars' partial rows aside, where the surface is padded and
        // the reference sees black), every channel within 2 of the exact average.
        let inside = Rect(x: 0, y: 1, width: 512, height: 382)
        var worst = 0
        for y in inside.minY..<inside.maxY {
            for x in inside.minX..<inside.maxX {
                let p = box.pixel(x: x, y: y), q = exact.pixel(x: x, y: y)
                for s: UInt32 in [0, 8, 16] { worst = max(worst, abs(Int((p >> s) & 0xFF) - Int((q >> s) & 0xFF))) }
            }
        }
        #expect(worst <= 2, "the box kernel is off by \(worst)")
        let psnrBox = box.psnr(against: exact, within: [inside]), psnrBilinear = bilinear.psnr(against: exact, within: [inside])
        #expect(psnrBox > psnrBilinear + 10, "box \(psnrBox) dB, bilinear \(psnrBilinear) dB")
        #expect(psnrBox > 45)
    }

    /// Rectangles drawn apart (damage) give the same pixels as the whole frame.
    @Test func damageRectanglesAreSeamless() {
        let picture = busyPicture(300, 200, seed: 3)
        let panel = Size(width: 240, height: 150)
        let geometry = OutputGeometry(logical: Size(width: 300, height: 200), panel: panel, rotation: .none)
        let surface = SceneSurface(image: picture, origin: (0, 0), clip: Rect(x: 0, y: 0, width: 300, height: 200))
        let whole = PixelImage(width: 240, height: 150)
        PixmanRenderer().render(Scene(size: Size(width: 300, height: 200), surfaces: [surface], transform: geometry.transform, outputSize: panel), into: whole)
        let pieces = PixelImage(width: 240, height: 150)
        var damage = Region()
        for r in [Rect(x: 0, y: 0, width: 37, height: 150), Rect(x: 37, y: 0, width: 203, height: 61), Rect(x: 37, y: 61, width: 203, height: 89)] {
            damage.formUnion(r)
            PixmanRenderer().render(
                Scene(size: Size(width: 300, height: 200), surfaces: [surface], transform: geometry.transform, outputSize: panel, damage: Region(r)),
                into: pieces)
        }
        #expect(pieces.compare(to: whole, tolerance: 0).matches)
    }

    @Test func filterChoice() {
        let down = AffineTransform(a: 1.334, b: 0, c: 0, d: 1.334, tx: 0, ty: -0.5)
        let emulate = AffineTransform(a: 0.75, b: 0, c: 0, d: 0.75, tx: 0, ty: 0)
        #expect(PixmanRenderer.filterFor(down, opaque: true, emulate) == .box)
        #expect(PixmanRenderer.filterFor(down, opaque: false, emulate) == .bilinear)  // blending goes through pixman
        // Rotated and scaled: the general path.
        let turned = AffineTransform(a: 0, b: 1.334, c: -1.334, d: 0, tx: 100, ty: 0)
        #expect(PixmanRenderer.filterFor(turned, opaque: true, emulate) == .bilinear)
        // Upscaled (a smaller logical screen on a bigger panel): bilinear.
        let up = AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 0, ty: 0)
        #expect(PixmanRenderer.filterFor(up, opaque: true, emulate) == .bilinear)
        // Whole-pixel moves: nearest.
        #expect(PixmanRenderer.filterFor(nil, opaque: true, .identity) == .nearest)
    }
}

struct ChromeCacheTests {
    /// Apps name their placeholders: however many names come by, and however large, the cache
    /// holds at most `byteLimit` bytes of pictures.
    @Test func theCacheIsBoundedInBytes() {
        let cache = ChromeCache()
        for i in 0..<400 {
            _ = cache.picture(.text("app \(i)", RGB(red: 0, green: 0, blue: 0), pixelSize: 14), size: Size(width: 600, height: 140))
            #expect(cache.bytes <= ChromeCache.byteLimit)
        }
        // A corner mask is opaque inside its arc and clear outside it.
        let corner = cache.corner(radius: 20, corner: 0)
        #expect(corner.pixel(x: 0, y: 0) >> 24 == 0 && corner.pixel(x: 19, y: 19) >> 24 == 255)
    }

    /// A picture no frame draws any more (the keyboard's labels once it is gone) goes at the
    /// sweep after the next; one the screen shows stays, though no frame looked it up; once only
    /// those are left, no sweep is due until a frame draws again.
    @Test func picturesTheScreenNoLongerShowsGo() {
        let cache = ChromeCache()
        let black = RGB(red: 0, green: 0, blue: 0)
        let shown = (chrome: Chrome.text("shown", black, pixelSize: 14), size: Size(width: 200, height: 40))
        let gone = (chrome: Chrome.text("gone", black, pixelSize: 14), size: Size(width: 200, height: 40))
        _ = cache.picture(shown.chrome, size: shown.size)
        _ = cache.picture(gone.chrome, size: gone.size)
        #expect(cache.nextSweep == nil)
        cache.frameDrawn(now: 1000)
        #expect(cache.nextSweep == 1000 + ChromeCache.keepMilliseconds)
        // Both were drawn in the period that ends: both stay, and another sweep is due.
        cache.sweep(now: 3000, shown: [shown])
        #expect(cache.count == 2)
        #expect(cache.nextSweep == 3000 + ChromeCache.keepMilliseconds)
        // Nothing drawn since: the picture off screen goes, the one shown stays.
        cache.sweep(now: 5000, shown: [shown])
        #expect(cache.count == 1)
        #expect(cache.bytes == 200 * 40 * 4)
        #expect(cache.nextSweep == nil)
    }
}

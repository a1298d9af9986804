// SPDX-License-Identifier: MIT
// A scene built for a damage region leaves out the nodes wholly outside it (their pixels not
// even looked up): the frame it draws must be the one drawn with every node, pixel for pixel.

import DiptychCore
import DiptychDemoKit
import DiptychImage
import DiptychRender
import DiptychTestSupport
import Testing

struct DamageCullingTests {
    let profile = try! DeviceProfile.named("ipad")

    /// A split during a drag (the left snapshot narrower than its pane: placeholder and name),
    /// a Slide Over with rounded corners, shadow and grabber over it, and the status bar.
    func graph() -> SceneGraph {
        let left = PresentedPane(app: AppID(1), role: .primary, frame: Rect(x: 0, y: 0, width: 595, height: 768), anchor: .leading, prefersSnapshots: true)
        let right = PresentedPane(app: AppID(2), role: .secondary, frame: Rect(x: 605, y: 0, width: 419, height: 768), anchor: .trailing, prefersSnapshots: true)
        let over = PresentedPane(app: AppID(3), role: .secondary, frame: Rect(x: 700, y: 0, width: 320, height: 768), anchor: .leading, prefersSnapshots: false, floating: 1)
        return SceneBuilder.build(panes: [left, right, over], profile: profile, orientation: .landscape, statusBar: StatusBar(style: .dark, time: "09:41")) { app in
            let size = images[app.rawValue]!
            return AppContent(live: ImageRef(id: app.rawValue, width: size.width, height: size.height), name: "app \(app.rawValue)", tint: RGB(red: 200, green: 180, blue: 40))
        }
    }

    let images: [UInt64: PixelImage] = {
        var out: [UInt64: PixelImage] = [:]
        for (id, w, colour) in [(UInt64(1), 900, "#336699"), (2, 838, "#993366"), (3, 640, "#669933")] {
            let image = PixelImage(width: w, height: 1536)
            PatternPainter.paint(image, color: RGB(hex: colour)!)
            out[id] = image
        }
        return out
    }()

    func pixels(_ n: SceneNode) -> PixelImage? { n.app.flatMap { images[$0.rawValue] } }

    /// Draws `graph` with `damage` over the same earlier frame, once with the scene built for
    /// the damage and once with every node.
    func both(_ damage: Region, transform: AffineTransform, output: Size) -> (culled: PixelImage, whole: PixelImage, culledCount: Int, wholeCount: Int, stats: (RenderStats, RenderStats)) {
        let g = graph()
        let renderer = PixmanRenderer()
        let culled = Scene(g, images: pixels, chrome: renderer.chrome, transform: transform, outputSize: output, damage: damage)
        var whole = Scene(g, images: pixels, chrome: renderer.chrome, transform: transform, outputSize: output)
        whole.damage = damage
        let a = PixelImage(width: output.width, height: output.height), b = PixelImage(width: output.width, height: output.height)
        for image in [a, b] { PatternPainter.paint(image, color: RGB(red: 10, green: 200, blue: 90)) }
        let sa = renderer.render(culled, into: a), sb = renderer.render(whole, into: b)
        return (a, b, culled.surfaces.count, whole.surfaces.count, (sa, sb))
    }

    @Test(arguments: [1.0, 0.75])
    func aSceneBuiltForItsDamageDrawsTheSameFrame(scale: Double) {
        let logical = profile.pixelSize(.landscape)
        let output = Size(width: Int(Double(logical.width) * scale), height: Int(Double(logical.height) * scale))
        let transform = scale == 1 ? AffineTransform.identity : .scale(scale)
        // Thin strips as a settle repaints them, the divider, the Slide Over's corner and
        // shadow, the clock, and one rectangle over everything.
        let damages: [[Rect]] = [
            [Rect(x: 1180, y: 0, width: 8, height: output.height), Rect(x: 1210, y: 0, width: 8, height: output.height)],
            [Rect(x: 1360, y: 0, width: 60, height: 60)],
            [Rect(x: 920, y: 2, width: 160, height: 30)],
            [Rect(x: 100, y: 300, width: 1500, height: 900)],
        ].map { $0.map { r in scale == 1 ? r : transform.apply(r) } }
        for rects in damages {
            var damage = Region()
            for r in rects { damage.formUnion(r) }
            let r = both(damage, transform: transform, output: output)
            #expect(r.culled.compare(to: r.whole, tolerance: 0).matches, "damage \(rects)")
            // The same pixels drawn, in as many rectangles or fewer (nodes outside the damage no
            // longer cut the ones under them into pieces).
            let (c, w) = r.stats
            #expect(c.compositedPixels == w.compositedPixels && c.filledPixels == w.filledPixels && c.blendedPixels == w.blendedPixels)
            #expect(c.compositedRects <= w.compositedRects)
        }
        // A strip leaves most nodes out.
        let strip = both(Region(damages[0][0]), transform: transform, output: output)
        #expect(strip.culledCount < strip.wholeCount / 2)
    }
}

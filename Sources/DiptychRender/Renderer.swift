// SPDX-License-Identifier: MIT
// The pixman renderer: draws a scene of client surfaces, clipped per pane, over black.

import CPixman
import DiptychCore

/// One surface placed on the output.
public struct SceneSurface {
    /// The pixels to show.
    public var image: PixelImage
    /// Where the image's top-left pixel lands, in output pixels.
    public var origin: (x: Int, y: Int)
    /// The pane the surface is clipped to, in output pixels. What the image does not cover
    /// inside an opaque pane is black.
    public var clip: Rect

    public init(image: PixelImage, origin: (x: Int, y: Int), clip: Rect) {
        self.image = image
        self.origin = origin
        self.clip = clip
    }

    var imageRect: Rect { Rect(x: origin.x, y: origin.y, width: image.width, height: image.height) }
}

/// What to draw: surfaces bottom to top over a black output.
public struct Scene {
    public var size: Size
    public var surfaces: [SceneSurface]
    public init(size: Size, surfaces: [SceneSurface]) {
        self.size = size
        self.surfaces = surfaces
    }
}

/// Counts of the work a frame did, for tests and profiling.
public struct RenderStats: Equatable, Sendable {
    /// Rectangles composited from surfaces.
    public var compositedRects = 0
    /// Pixels composited from surfaces.
    public var compositedPixels = 0
    /// Pixels filled black.
    public var filledPixels = 0
}

/// Draws scenes with pixman. Stateless; the target is passed in.
public struct PixmanRenderer {
    public init() {}

    /// Draws `scene` into `target`, touching each output pixel at most once for opaque surfaces:
    /// every surface is drawn only where no opaque pane above it covers, with `PIXMAN_OP_SRC`
    /// when opaque (`OVER` when it has alpha), and everything no opaque pane covers is filled
    /// black in one call.
    @discardableResult
    public func render(_ scene: Scene, into target: PixelImage) -> RenderStats {
        precondition(target.width == scene.size.width && target.height == scene.size.height)
        let screen = Rect(x: 0, y: 0, width: scene.size.width, height: scene.size.height)
        var stats = RenderStats()
        var opaqueAbove = Region()
        var visible: [Region] = Array(repeating: Region(), count: scene.surfaces.count)

        for (i, s) in scene.surfaces.enumerated().reversed() {
            guard let pane = s.clip.intersection(screen) else { continue }
            var v = Region(pane).intersection(s.imageRect)
            v.subtract(opaqueAbove)
            visible[i] = v
            if s.image.format.isOpaque { opaqueAbove.formUnion(pane) }
        }
        let black = blackRegion(screen: screen, scene: scene)
        target.fill(black.rects, color: RGB(red: 0, green: 0, blue: 0))
        stats.filledPixels = black.area

        for (i, s) in scene.surfaces.enumerated() {
            let op = s.image.format.isOpaque ? PIXMAN_OP_SRC : PIXMAN_OP_OVER
            for r in visible[i].rects {
                pixman_image_composite32(
                    op, s.image.image, nil, target.image,
                    Int32(r.x - s.origin.x), Int32(r.y - s.origin.y), 0, 0,
                    Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
                stats.compositedRects += 1
                stats.compositedPixels += r.width * r.height
            }
        }
        return stats
    }

    /// The pixels no opaque surface's image covers where it is visible: the screen minus, from
    /// the top down, each opaque surface's image inside its pane and not under an opaque pane
    /// above.
    func blackRegion(screen: Rect, scene: Scene) -> Region {
        var black = Region(screen)
        var opaqueAbove = Region()
        for s in scene.surfaces.reversed() {
            guard s.image.format.isOpaque, let pane = s.clip.intersection(screen) else { continue }
            var drawn = Region(pane).intersection(s.imageRect)
            drawn.subtract(opaqueAbove)
            black.subtract(drawn)
            opaqueAbove.formUnion(pane)
        }
        return black
    }
}

extension Scene {
    /// The scene for a layout: each shown pane's surface anchored at the pane's top-left and
    /// clipped to it, primary below secondary (Slide Over floats on top). Panes without a
    /// surface stay black.
    public init(layout: Layout, surfaces: [Role: PixelImage]) {
        let scale = layout.profile.scale
        let px = layout.profile.pixelSize(layout.orientation)
        var placed: [SceneSurface] = []
        for pane in layout.panes {
            guard let image = surfaces[pane.role] else { continue }
            let clip = pane.frame.scaled(by: scale)
            placed.append(SceneSurface(image: image, origin: (clip.x, clip.y), clip: clip))
        }
        self.init(size: px, surfaces: placed)
    }
}

// SPDX-License-Identifier: MIT
// The pixman renderer: draws a scene of client surfaces, clipped per pane, over black.

import CPixman
import CRenderKernels
import DiptychCore
import DiptychImage

/// One surface placed on the output: an image, or a flat colour filling its clip.
public struct SceneSurface {
    /// The pixels to show, or nil for a flat colour.
    public var image: PixelImage?
    public var color: RGB
    /// Where the image's top-left pixel lands, in output pixels.
    public var origin: (x: Int, y: Int)
    /// The pane the surface is clipped to, in output pixels. What the image does not cover
    /// inside an opaque pane is black.
    public var clip: Rect
    /// The clip's corners are rounded by this radius: outside the arcs, what is under shows.
    public var cornerRadius: Int

    public init(image: PixelImage, origin: (x: Int, y: Int), clip: Rect, cornerRadius: Int = 0) {
        self.image = image
        color = RGB(red: 0, green: 0, blue: 0)
        self.origin = origin
        self.clip = clip
        self.cornerRadius = cornerRadius
    }

    /// A flat colour over `clip`.
    public init(color: RGB, clip: Rect) {
        image = nil
        self.color = color
        origin = (clip.x, clip.y)
        self.clip = clip
        cornerRadius = 0
    }

    var imageRect: Rect { image.map { Rect(x: origin.x, y: origin.y, width: $0.width, height: $0.height) } ?? clip }
    var isOpaque: Bool { image?.format.isOpaque ?? true }

    /// The corner squares the rounded corners cut, with which corner each is (0 top-left,
    /// 1 top-right, 2 bottom-left, 3 bottom-right).
    var corners: [(Rect, Int)] {
        let r = min(cornerRadius, clip.width / 2, clip.height / 2)
        guard r > 0, image != nil else { return [] }
        return [
            (Rect(x: clip.minX, y: clip.minY, width: r, height: r), 0), (Rect(x: clip.maxX - r, y: clip.minY, width: r, height: r), 1),
            (Rect(x: clip.minX, y: clip.maxY - r, width: r, height: r), 2), (Rect(x: clip.maxX - r, y: clip.maxY - r, width: r, height: r), 3),
        ]
    }
}

/// What to draw: surfaces bottom to top over black, in logical pixels, shown on the output
/// through one transform.
public struct Scene {
    /// The logical screen in pixels (surfaces, origins and clips are in these units).
    public var size: Size
    public var surfaces: [SceneSurface]
    /// Logical pixels to output pixels (rotation and emulation scale); identity by default.
    public var transform: AffineTransform
    /// The output's size in pixels.
    public var outputSize: Size
    /// The output pixels to redraw; nil redraws everything. Pixels outside keep what the
    /// output already shows.
    public var damage: Region?

    public init(size: Size, surfaces: [SceneSurface], transform: AffineTransform = .identity, outputSize: Size? = nil, damage: Region? = nil) {
        self.size = size
        self.surfaces = surfaces
        self.transform = transform
        self.outputSize = outputSize ?? size
        self.damage = damage
    }
}

/// Counts of the work a frame did, for tests and profiling.
public struct RenderStats: Equatable, Sendable {
    /// Rectangles composited from surfaces.
    public var compositedRects = 0
    /// Output pixels composited from surfaces.
    public var compositedPixels = 0
    /// Output pixels filled with a flat colour (black where nothing is, placeholders, the
    /// divider).
    public var filledPixels = 0
    /// Of the composited pixels, those blended over what was drawn under them (translucent
    /// chrome, rounded corners): every output pixel is written once, and these once more.
    public var blendedPixels = 0
}

/// How a transformed surface is sampled.
public enum ScaleFilter: Sendable {
    /// Whole-pixel moves (and quarter turns): exact.
    case nearest
    /// pixman's bilinear filter with edge padding: any transform.
    case bilinear
    /// An exact area average (box filter) for a pure downscale by 1/2 to 1 of an opaque
    /// surface: sharper than bilinear and faster (the resolution emulation's path).
    case box
}

/// A mask a composite is drawn through: an image's alpha (placed like a source), or one
/// alpha everywhere (a cross-fade).
public struct RenderMask {
    public enum Source {
        case image(PixelImage)
        case constant(UInt8)
    }

    public var source: Source
    /// Output pixel to mask pixel, when the scene is transformed; else `offset` is added to
    /// output coordinates.
    public var transform: AffineTransform?
    public var offset: (x: Int, y: Int)

    public init(source: Source, transform: AffineTransform? = nil, offset: (x: Int, y: Int) = (0, 0)) {
        self.source = source
        self.transform = transform
        self.offset = offset
    }
}

/// One drawing call the renderer made, recorded so that a profiler can replay exactly the same
/// work, or the same work with pixman alone.
public enum RenderOperation {
    case fill([Rect], RGB)
    case composite(image: PixelImage, opaque: Bool, transform: AffineTransform?, filter: ScaleFilter, rects: [Rect], sourceOffset: (x: Int, y: Int), mask: RenderMask?)

    /// A composite without a mask.
    public static func composite(image: PixelImage, opaque: Bool, transform: AffineTransform?, filter: ScaleFilter, rects: [Rect], sourceOffset: (x: Int, y: Int)) -> RenderOperation {
        .composite(image: image, opaque: opaque, transform: transform, filter: filter, rects: rects, sourceOffset: sourceOffset, mask: nil)
    }

    /// Whether it reads what is under it (a translucent source, or a mask).
    var blends: Bool {
        if case .composite(_, let opaque, _, _, _, _, let mask) = self { return !opaque || mask != nil }
        return false
    }

    var rects: [Rect] {
        switch self {
        case .fill(let r, _): r
        case .composite(_, _, _, _, let r, _, _): r
        }
    }
}

extension RenderOperation {
    /// The operation drawing only inside `region`.
    func clipped(to region: Region) -> RenderOperation { restricted { region.intersection($0).rects } }

    /// The operation drawing only outside `region`.
    func clipped(outside region: Region) -> RenderOperation {
        restricted { r in
            var rest = Region(r)
            rest.subtract(region)
            return rest.rects
        }
    }

    private func restricted(_ cut: (Rect) -> [Rect]) -> RenderOperation {
        switch self {
        case .fill(let rects, let color): .fill(rects.flatMap(cut), color)
        case .composite(let image, let opaque, let transform, let filter, let rects, let offset, let mask):
            .composite(image: image, opaque: opaque, transform: transform, filter: filter, rects: rects.flatMap(cut), sourceOffset: offset, mask: mask)
        }
    }
}

/// Draws scenes with pixman. Stateless; the target is passed in.
public struct PixmanRenderer {
    /// Where rounded corners' masks come from (and the chrome's pictures).
    public let chrome: ChromeCache

    public init(chrome: ChromeCache = ChromeCache()) { self.chrome = chrome }

    /// Replays recorded operations into `target`: unscaled opaque copies row by row with
    /// `memcpy`, box-filtered downscales with the area-average kernel, everything else with
    /// pixman. With `pixmanOnly`, every operation is a bare pixman call as the renderer made
    /// them before (box filtering as bilinear: the profiler's baseline), and `source` may
    /// stand in other images for the operations' own (freshly drawn sources).
    public static func replay(
        _ operations: [RenderOperation], into target: PixelImage, pixmanOnly: Bool = false, source: ((PixelImage) -> PixelImage)? = nil
    ) {
        for op in operations {
            switch op {
            case .fill(let rects, let color):
                target.fill(rects, color: color)
            case .composite(let original, let opaque, let transform, let filter, let rects, let offset, let mask):
                let image = source?(original) ?? original
                if let mask {
                    compositeMasked(image, transform: transform, filter: filter, rects: rects, offset: offset, mask: mask, into: target)
                    continue
                }
                if opaque, transform == nil, !pixmanOnly {
                    for r in rects { target.blit(r, from: image, sourceOffset: offset) }
                    continue
                }
                if let m = transform, filter == .box, !pixmanOnly, boxDownscale(image, m, rects, into: target) { continue }
                if let m = transform {
                    var pt = pixmanTransform(m)
                    pixman_image_set_transform(image.image, &pt)
                    pixman_image_set_filter(image.image, filter == .nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
                    pixman_image_set_repeat(image.image, PIXMAN_REPEAT_PAD)
                }
                for r in rects {
                    pixman_image_composite32(
                        opaque ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, image.image, nil, target.image,
                        Int32(r.x + offset.x), Int32(r.y + offset.y), 0, 0, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
                }
                if transform != nil {
                    pixman_image_set_transform(image.image, nil)
                    pixman_image_set_repeat(image.image, PIXMAN_REPEAT_NONE)
                }
            }
        }
    }

    /// Draws `rects` of the output from `image` through `mask`'s alpha, over what is there.
    static func compositeMasked(
        _ image: PixelImage, transform: AffineTransform?, filter: ScaleFilter, rects: [Rect], offset: (x: Int, y: Int), mask: RenderMask, into target: PixelImage
    ) {
        let maskImage: OpaquePointer
        switch mask.source {
        case .image(let m): maskImage = m.image
        case .constant(let alpha):
            var c = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(alpha) * 257)
            maskImage = pixman_image_create_solid_fill(&c)
        }
        defer { if case .constant = mask.source { pixman_image_unref(maskImage) } }
        if let m = transform {
            var pt = pixmanTransform(m)
            pixman_image_set_transform(image.image, &pt)
            pixman_image_set_filter(image.image, filter == .nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_PAD)
        }
        if case .image = mask.source, let mt = mask.transform {
            var pt = pixmanTransform(mt)
            pixman_image_set_transform(maskImage, &pt)
            pixman_image_set_filter(maskImage, PIXMAN_FILTER_BILINEAR, nil, 0)
        }
        for r in rects {
            pixman_image_composite32(
                PIXMAN_OP_OVER, image.image, maskImage, target.image, Int32(r.x + offset.x), Int32(r.y + offset.y),
                Int32(r.x + mask.offset.x), Int32(r.y + mask.offset.y), Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        }
        if transform != nil {
            pixman_image_set_transform(image.image, nil)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_NONE)
        }
        if case .image = mask.source, mask.transform != nil { pixman_image_set_transform(maskImage, nil) }
    }

    /// Draws `rects` of the output from `image` through `m` (output pixel to image pixel, a
    /// pure scale and translation) with the area-average kernel; false, having drawn nothing,
    /// when the kernel does not take these parameters.
    static func boxDownscale(_ image: PixelImage, _ m: AffineTransform, _ rects: [Rect], into target: PixelImage) -> Bool {
        guard m.b == 0, m.c == 0, image.format.isOpaque, target.format == .xrgb8888 else { return false }
        let bounds = Rect(x: 0, y: 0, width: target.width, height: target.height)
        guard rects.allSatisfy({ $0.intersection(bounds) == $0 }) else { return false }
        let src = image.bytes.assumingMemoryBound(to: UInt32.self)
        let dst = target.bytes.assumingMemoryBound(to: UInt32.self)
        for (i, r) in rects.enumerated() {
            let status = dp_box_downscale(
                src, Int32(image.width), Int32(image.height), Int32(image.stride), dst, Int32(target.stride),
                Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height), m.a, m.tx, m.d, m.ty)
            // Parameters are the same for every rectangle: the first refusal refuses them all.
            if status != 0 {
                precondition(i == 0, "the box kernel refused a rectangle after taking one")
                return false
            }
        }
        return true
    }

    /// Replays a frame's operations into an output buffer. Where the target may be read, or
    /// nothing blends, straight into it. Otherwise (scanout memory, slow to read) the regions
    /// that blend are composed in the target's shadow, every operation clipped to them, and
    /// copied in; the rest is drawn straight into the target, so each of its pixels is written
    /// once and none is read.
    public static func replay(_ operations: [RenderOperation], into target: FrameTarget) {
        var blended = Region()
        for op in operations where op.blends { for r in op.rects { blended.formUnion(r) } }
        guard let shadow = target.shadow, !blended.isEmpty else {
            replay(operations, into: target.image)
            return
        }
        replay(operations.map { $0.clipped(outside: blended) }, into: target.image)
        replay(operations.map { $0.clipped(to: blended) }, into: shadow)
        for r in blended.rects { target.image.blit(r, from: shadow, sourceOffset: (0, 0)) }
    }

    /// Draws `scene` into `target` (the output, `scene.outputSize`). Each surface is drawn only
    /// where no opaque pane above it covers and only inside the damage, with `PIXMAN_OP_SRC`
    /// when opaque (`OVER` with alpha), through the scene's transform: nearest sampling for
    /// whole-pixel moves, bilinear where it scales. What no opaque surface covers inside the
    /// damage is filled black in one call, so each output pixel is written once per frame.
    @discardableResult
    public func render(_ scene: Scene, into target: PixelImage) -> RenderStats {
        let (ops, stats) = plan(scene)
        precondition(target.width == scene.outputSize.width && target.height == scene.outputSize.height)
        Self.replay(ops, into: target)
        return stats
    }

    /// The pixman operations that draw `scene`, without drawing: visibility, damage and
    /// transforms resolved. `render` is `plan` then `replay`, so a profiler can time pixman
    /// alone on exactly the same operations.
    public func plan(_ scene: Scene) -> (operations: [RenderOperation], stats: RenderStats) {
        let screen = Rect(x: 0, y: 0, width: scene.size.width, height: scene.size.height)
        let output = Rect(x: 0, y: 0, width: scene.outputSize.width, height: scene.outputSize.height)
        let damage = scene.damage.map { $0.intersection(output) } ?? Region(output)
        let t = scene.transform
        let identity = t == .identity
        var stats = RenderStats()
        var ops: [RenderOperation] = []

        // Visibility in logical pixels, from the top down. A surface with rounded corners
        // hides nothing in its corner squares, and draws them through a corner mask.
        var opaqueAbove = Region()
        var visible: [Region] = Array(repeating: Region(), count: scene.surfaces.count)
        var cornerVisible: [[(Region, Int, Rect)]] = Array(repeating: [], count: scene.surfaces.count)
        for (i, s) in scene.surfaces.enumerated().reversed() {
            guard let pane = s.clip.intersection(screen) else { continue }
            var v = Region(pane).intersection(s.imageRect)
            v.subtract(opaqueAbove)
            // What hides the surfaces below: the image, not the whole pane (a placeholder
            // under it shows where it does not reach).
            var body = Region(pane).intersection(s.imageRect)
            for (square, corner) in s.corners {
                let c = v.intersection(square)
                if !c.isEmpty { cornerVisible[i].append((c, corner, square)) }
                v.subtract(square)
                body.subtract(square)
            }
            visible[i] = v
            if s.isOpaque { for r in body.rects { opaqueAbove.formUnion(r) } }
        }
        // The output pieces each surface draws, inside the damage.
        func pieces(of region: Region) -> [Rect] {
            var mine: [Rect] = []
            for r in region.rects { mine += damage.intersection(identity ? r : t.apply(r)).rects }
            return mine
        }
        var drawn: [[Rect]] = []
        var covered = Region()
        for (i, s) in scene.surfaces.enumerated() {
            let mine = pieces(of: visible[i])
            drawn.append(mine)
            if s.isOpaque { for r in mine { covered.formUnion(r) } }
        }
        var black = damage
        black.subtract(covered)
        if !black.isEmpty { ops.append(.fill(black.rects, RGB(red: 0, green: 0, blue: 0))) }
        stats.filledPixels = black.area

        let inverse = identity ? t : t.inverted
        for (i, s) in scene.surfaces.enumerated() {
            let mine = drawn[i]
            guard let image = s.image else {
                if !mine.isEmpty {
                    ops.append(.fill(mine, s.color))
                    stats.filledPixels += mine.reduce(0) { $0 + $1.width * $1.height }
                }
                continue
            }
            // Output pixel -> logical pixel -> this surface's pixel.
            let m: AffineTransform? = identity ? nil : AffineTransform.translation(Double(-s.origin.x), Double(-s.origin.y)).concatenating(inverse)
            let offset = identity ? (-s.origin.x, -s.origin.y) : (0, 0)
            let opaque = image.format.isOpaque
            if !mine.isEmpty {
                ops.append(.composite(image: image, opaque: opaque, transform: m, filter: Self.filterFor(m, opaque: opaque, t), rects: mine, sourceOffset: offset))
                let area = mine.reduce(0) { $0 + $1.width * $1.height }
                stats.compositedRects += mine.count
                stats.compositedPixels += area
                if !opaque { stats.blendedPixels += area }
            }
            for (region, corner, square) in cornerVisible[i] {
                let cut = pieces(of: region)
                guard !cut.isEmpty else { continue }
                let maskImage = chrome.corner(radius: square.width, corner: corner)
                let mt: AffineTransform? = identity ? nil : AffineTransform.translation(Double(-square.x), Double(-square.y)).concatenating(inverse)
                let mask = RenderMask(source: .image(maskImage), transform: mt, offset: identity ? (-square.x, -square.y) : (0, 0))
                ops.append(.composite(
                    image: image, opaque: false, transform: m, filter: m == nil ? .nearest : .bilinear, rects: cut, sourceOffset: offset, mask: mask))
                let area = cut.reduce(0) { $0 + $1.width * $1.height }
                stats.compositedRects += cut.count
                stats.compositedPixels += area
                stats.blendedPixels += area
            }
        }
        return (ops, stats)
    }
}

extension PixmanRenderer {
    /// How to sample a surface drawn through `m` (output pixel to surface pixel) for a scene
    /// shown through `t`: nearest for whole-pixel moves, the box filter for an opaque surface
    /// downscaled by 1/2 to 1 without rotation, bilinear otherwise.
    public static func filterFor(_ m: AffineTransform?, opaque: Bool, _ t: AffineTransform) -> ScaleFilter {
        guard let m, t.needsFiltering else { return .nearest }
        if opaque, m.b == 0, m.c == 0, m.a > 1, m.a <= 2, m.d > 1, m.d <= 2 { return .box }
        return .bilinear
    }
}

func pixmanTransform(_ m: AffineTransform) -> pixman_transform_t {
    var pt = pixman_transform_t()
    func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }
    pt.matrix.0 = (fixed(m.a), fixed(m.c), fixed(m.tx))
    pt.matrix.1 = (fixed(m.b), fixed(m.d), fixed(m.ty))
    pt.matrix.2 = (0, 0, fixed(1))
    return pt
}

extension Scene {
    /// The scene `graph` describes, with each node's pixels from `images` (nodes whose image
    /// is not there are left out) and the chrome's pictures from `chrome`, shown on the output
    /// through `transform`.
    public init(
        _ graph: SceneGraph, images: (ImageRef) -> PixelImage?, chrome: ChromeCache = ChromeCache(), transform: AffineTransform = .identity,
        outputSize: Size? = nil, damage: Region? = nil
    ) {
        let surfaces = graph.nodes.compactMap { n -> SceneSurface? in
            switch n.content {
            case .image(let ref, _):
                images(ref).map { SceneSurface(image: $0, origin: (n.imageRect.x, n.imageRect.y), clip: n.clip, cornerRadius: n.cornerRadius) }
            case .solid(let color):
                SceneSurface(color: color, clip: n.clip)
            case .chrome(let c):
                SceneSurface(image: chrome.picture(c, size: n.imageRect.size), origin: (n.imageRect.x, n.imageRect.y), clip: n.clip)
            }
        }
        self.init(size: graph.size, surfaces: surfaces, transform: transform, outputSize: outputSize, damage: damage)
    }

    /// The scene of a configured layout with one image per role, built by `SceneBuilder` as
    /// `run` builds it (each surface at its pane's top-left, clipped to it, Slide Over on top).
    /// Panes without an image stay black.
    public init(layout: Layout, surfaces: [Role: PixelImage]) {
        // Each role is an app whose one image has the app's id.
        let role: [AppID: Role] = [AppID(1): .primary, AppID(2): .secondary]
        func image(_ app: AppID) -> PixelImage? { role[app].flatMap { surfaces[$0] } }
        let graph = SceneBuilder.build(
            panes: PresentedPane.panes(of: layout) { $0 == .primary ? AppID(1) : AppID(2) },
            profile: layout.profile, orientation: layout.orientation
        ) { app in
            image(app).map { AppContent(live: ImageRef(id: app.rawValue, width: $0.width, height: $0.height)) }
        }
        self.init(graph, images: { image(AppID($0.id)) })
    }
}

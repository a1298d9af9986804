// SPDX-License-Identifier: MIT
// The pixman renderer: plans a scene of client surfaces and chrome, clipped per pane, over black
// (the operations and their replay are in `RenderOperation.swift`).

import CPixman
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
    /// The size the image is drawn at, in logical pixels, when it is scaled (a Picture in
    /// Picture window); nil draws it pixel for pixel.
    public var displaySize: Size?
    /// How opaque the image is drawn (255: as its pixels say).
    public var opacity: UInt8 = 255
    /// The image's edge pixels extend over the whole clip (it is drawn scaled).
    public var padded = false

    public init(image: PixelImage, origin: (x: Int, y: Int), clip: Rect, cornerRadius: Int = 0, displaySize: Size? = nil, opacity: UInt8 = 255) {
        self.image = image
        self.opacity = opacity
        color = RGB(red: 0, green: 0, blue: 0)
        self.origin = origin
        self.clip = clip
        self.cornerRadius = cornerRadius
        self.displaySize = displaySize.flatMap { $0 == Size(width: image.width, height: image.height) ? nil : $0 }
    }

    /// A flat colour over `clip`.
    public init(color: RGB, clip: Rect) {
        image = nil
        self.color = color
        origin = (clip.x, clip.y)
        self.clip = clip
        cornerRadius = 0
    }

    var imageRect: Rect {
        guard let image, !padded || imageScale == nil else { return clip }
        let size = displaySize ?? Size(width: image.width, height: image.height)
        return Rect(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// Logical pixel (relative to the origin) to image pixel, when the image is scaled.
    var imageScale: AffineTransform? {
        guard let image, let d = displaySize, d.width > 0, d.height > 0 else { return nil }
        return AffineTransform(a: Double(image.width) / Double(d.width), b: 0, c: 0, d: Double(image.height) / Double(d.height), tx: 0, ty: 0)
    }
    var isOpaque: Bool { opacity == 255 && (image?.format.isOpaque ?? true) }
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

    public init() {}
}

/// Draws scenes with pixman. Stateless; the target is passed in.
public struct PixmanRenderer {
    /// Where rounded corners' masks come from (and the chrome's pictures).
    public let chrome: ChromeCache

    public init(chrome: ChromeCache = ChromeCache()) { self.chrome = chrome }

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
    ///
    /// Visibility is worked out inside the damage, in output pixels, from the top down (as
    /// Weston clips each view by the opaque views above it): what is left to repaint starts
    /// as the damage, each surface takes its part of it, and an opaque one removes what it
    /// covers. A frame that repaints thin strips handles only those strips. (Rectangles whose
    /// logical edges coincide land on the same rounded output edges, so working in output
    /// pixels draws the same pixels as working in logical ones.)
    public func plan(_ scene: Scene) -> (operations: [RenderOperation], stats: RenderStats) {
        let screen = Rect(x: 0, y: 0, width: scene.size.width, height: scene.size.height)
        let output = Rect(x: 0, y: 0, width: scene.outputSize.width, height: scene.outputSize.height)
        var left = scene.damage.map { d in d.rects.allSatisfy { output.contains($0) } ? d : d.intersection(output) } ?? Region(output)
        let t = scene.transform
        let identity = t == .identity
        var stats = RenderStats()
        let count = scene.surfaces.count
        // What each surface draws (output rectangles), from the top one down, and its rounded
        // corners' pieces, by surface.
        var drawnFromTop: [[Rect]] = []
        drawnFromTop.reserveCapacity(count)
        var cornerPieces: [[(rects: [Rect], corner: Int, square: Rect)]] = Array(repeating: [], count: count)

        for (i, s) in scene.surfaces.enumerated().reversed() {
            guard !left.isEmpty, let shown = s.clip.intersection(screen)?.intersection(s.imageRect) else {
                drawnFromTop.append([])
                continue
            }
            let shownOut = identity ? shown : t.apply(shown)
            let rounded = s.image != nil && s.cornerRadius > 0
            // An opaque surface without rounded corners takes its part of what is left and
            // hides it from those under, in one pass.
            if !rounded && s.isOpaque {
                drawnFromTop.append(left.remove(shownOut).rects)
                continue
            }
            guard left.overlaps(shownOut) else {
                drawnFromTop.append([])
                continue
            }
            var mine = left.intersection(shownOut)
            // A surface with rounded corners hides nothing in its corner squares, and draws them
            // through a corner mask over what is under.
            if rounded {
                for (corner, square) in s.clip.cornerSquares(radius: s.cornerRadius).enumerated() {
                    let squareOut = identity ? square : t.apply(square)
                    let cut = mine.intersection(squareOut)
                    guard !cut.isEmpty else { continue }
                    cornerPieces[i].append((cut.rects, corner, square))
                    mine.subtract(squareOut)
                }
            }
            drawnFromTop.append(mine.rects)
            if s.isOpaque { left.subtract(mine) }
        }

        var ops: [RenderOperation] = []
        ops.reserveCapacity(count + 1)
        // What no opaque surface covers is black.
        if !left.isEmpty { ops.append(.fill(left.rects, RGB(red: 0, green: 0, blue: 0))) }
        stats.filledPixels = left.area

        let inverse = identity ? t : t.inverted
        for i in 0..<count {
            let mine = drawnFromTop[count - 1 - i]
            // Most surfaces of a frame that repaints strips draw nothing: not even looked at.
            if mine.isEmpty && cornerPieces[i].isEmpty { continue }
            let s = scene.surfaces[i]
            guard let image = s.image else {
                if !mine.isEmpty {
                    ops.append(.fill(mine, s.color))
                    stats.filledPixels += mine.reduce(0) { $0 + $1.width * $1.height }
                }
                continue
            }
            let corners = cornerPieces[i]
            // Output pixel -> logical pixel -> this surface's pixel (through its scale).
            let scaling = s.imageScale
            let direct = identity && scaling == nil
            var m: AffineTransform? = direct ? nil : AffineTransform.translation(Double(-s.origin.x), Double(-s.origin.y)).concatenating(inverse)
            if let scaling, let moved = m { m = scaling.concatenating(moved) }
            let offset = direct ? (-s.origin.x, -s.origin.y) : (0, 0)
            let opaque = s.isOpaque
            if !mine.isEmpty {
                let fade = s.opacity < 255 ? RenderMask(source: .constant(s.opacity), transform: nil, offset: (0, 0)) : nil
                ops.append(.composite(
                    image: image, opaque: opaque, transform: m, filter: Self.filterFor(m, opaque: opaque, t), rects: mine, sourceOffset: offset, mask: fade))
                let area = mine.reduce(0) { $0 + $1.width * $1.height }
                stats.compositedRects += mine.count
                stats.compositedPixels += area
                if !opaque { stats.blendedPixels += area }
            }
            for (cut, corner, square) in corners {
                let maskImage = chrome.corner(radius: square.width, corner: corner)
                let mt: AffineTransform? = identity ? nil : AffineTransform.translation(Double(-square.x), Double(-square.y)).concatenating(inverse)
                let mask = RenderMask(source: .image(maskImage), transform: mt, offset: identity ? (-square.x, -square.y) : (0, 0))
                ops.append(.composite(
                    image: image, opaque: false, transform: m, filter: m.map { $0.needsFiltering ? .bilinear : .nearest } ?? .nearest, rects: cut,
                    sourceOffset: offset, mask: mask))
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
        guard let m, t.needsFiltering || m.needsFiltering else { return .nearest }
        if opaque, m.b == 0, m.c == 0, m.a > 1, m.a <= 2, m.d > 1, m.d <= 2 { return .box }
        return .bilinear
    }
}

extension Scene {
    /// The scene `graph` describes, with each node's pixels from `images` (nodes whose image
    /// is not there are left out) and the chrome's pictures from `chrome`, shown on the output
    /// through `transform`.
    public init(
        _ graph: SceneGraph, images: (SceneNode) -> PixelImage?, chrome: ChromeCache = ChromeCache(), transform: AffineTransform = .identity,
        outputSize: Size? = nil, damage: Region? = nil
    ) {
        // A node that lies wholly outside the damage draws nothing and hides nothing there: it
        // is left out, its pixels not even looked up (a settle frame repaints thin strips).
        let identity = transform == .identity
        var surfaces: [SceneSurface] = []
        surfaces.reserveCapacity(graph.layers.reduce(0) { $0 + $1.nodes.count })
        for layer in graph.layers {
            for i in layer.nodes.indices {
                // Only the clip is read of a node the damage misses.
                let clip = layer.nodes[i].clip
                if let damage, !damage.overlaps(identity ? clip : transform.apply(clip)) { continue }
                let n = layer.nodes[i]
                let surface: SceneSurface? = switch n.content {
                case .image:
                    images(n).map {
                        var s = SceneSurface(
                            image: $0, origin: (n.imageRect.x, n.imageRect.y), clip: n.clip, cornerRadius: n.cornerRadius, displaySize: n.imageRect.size,
                            opacity: n.opacity)
                        s.padded = n.padded
                        return s
                    }
                case .solid(let color):
                    SceneSurface(color: color, clip: n.clip)
                case .chrome(let c):
                    SceneSurface(image: chrome.picture(c, size: n.imageRect.size), origin: (n.imageRect.x, n.imageRect.y), clip: n.clip, opacity: n.opacity)
                }
                if let surface { surfaces.append(surface) }
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
        self.init(graph, images: { $0.image.flatMap { image(AppID($0.id)) } })
    }
}

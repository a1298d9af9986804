// SPDX-License-Identifier: MIT
// The renderer's operations and their replay: what `PixmanRenderer.plan` records, and how a
// frame (or the profiler's pixman-only baseline) carries them out: `memcpy` for unscaled
// opaque copies, the area-average kernel for the emulation's downscale, pixman for the rest.

import CPixman
import CRenderKernels
import DiptychCore
import DiptychImage

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

extension PixmanRenderer {
    /// Replays recorded operations into `target`: unscaled opaque copies row by row with
    /// `memcpy`, box-filtered downscales with the area-average kernel, everything else with
    /// pixman. With `pixmanOnly`, every operation is a bare pixman call as the renderer made
    /// them before (box filtering as bilinear: the profiler's baseline), and `source` may
    /// stand in other images for the operations' own (freshly drawn sources). `kernel` is the
    /// area-average kernel's code path (`BoxKernel.current` unless given).
    public static func replay(
        _ operations: [RenderOperation], into target: PixelImage, pixmanOnly: Bool = false, kernel: BoxKernel? = nil,
        source: ((PixelImage) -> PixelImage)? = nil
    ) {
        for op in operations {
            switch op {
            case .fill(let rects, let color):
                target.fill(rects, color: color)
            case .composite(let original, let opaque, let transform, let filter, let rects, let offset, let mask):
                let image = source?(original) ?? original
                if opaque, transform == nil, mask == nil, !pixmanOnly {
                    for r in rects { target.blit(r, from: image, sourceOffset: offset) }
                    continue
                }
                if let m = transform, filter == .box, mask == nil, !pixmanOnly, boxDownscale(image, m, rects, into: target, kernel: kernel ?? .current) { continue }
                composite(image, opaque: opaque, transform: transform, filter: filter, rects: rects, offset: offset, mask: mask, into: target)
            }
        }
    }

    /// Draws `rects` of the output from `image` with pixman: `SRC` for an opaque source drawn
    /// whole, `OVER` for one with alpha or through `mask`, through `transform` (output pixel to
    /// image pixel) with edge padding when there is one.
    static func composite(
        _ image: PixelImage, opaque: Bool, transform: AffineTransform?, filter: ScaleFilter, rects: [Rect], offset: (x: Int, y: Int),
        mask: RenderMask?, into target: PixelImage
    ) {
        var maskImage: OpaquePointer?
        var ownsMask = false
        switch mask?.source {
        case .image(let m)?:
            maskImage = m.image
            if mask?.transform != nil { pixman_image_set_filter(m.image, PIXMAN_FILTER_BILINEAR, nil, 0) }
        case .constant(let alpha)?:
            var c = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(alpha) * 257)
            maskImage = pixman_image_create_solid_fill(&c)
            ownsMask = true
        case nil:
            break
        }
        if transform != nil {
            pixman_image_set_filter(image.image, filter == .nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_PAD)
        }
        let op = opaque && mask == nil ? PIXMAN_OP_SRC : PIXMAN_OP_OVER
        let mx = mask?.offset.x ?? 0, my = mask?.offset.y ?? 0
        for r in rects {
            // A transformed source is sampled through a transform from the rectangle's own
            // top-left (as wlroots builds it from the buffer's size, not the screen's): its
            // translation is a point of the image, never a screen position multiplied by the
            // scale, so it stays well inside pixman's 16.16 fixed point (`pixmanTransform`
            // clamps whatever a client could still make of it).
            var (sx, sy) = (r.x + offset.x, r.y + offset.y)
            if let m = transform {
                var pt = pixmanTransform(m, from: (r.x, r.y))
                pixman_image_set_transform(image.image, &pt)
                (sx, sy) = (0, 0)
            }
            var (kx, ky) = (r.x + mx, r.y + my)
            if case .image(let m)? = mask?.source, let mt = mask?.transform {
                var pt = pixmanTransform(mt, from: (r.x, r.y))
                pixman_image_set_transform(m.image, &pt)
                (kx, ky) = (0, 0)
            }
            pixman_image_composite32(
                op, image.image, maskImage, target.image, Int32(clamping: sx), Int32(clamping: sy), Int32(clamping: kx), Int32(clamping: ky), Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        }
        if transform != nil {
            pixman_image_set_transform(image.image, nil)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_NONE)
        }
        if ownsMask, let maskImage { pixman_image_unref(maskImage) }
        if case .image(let m)? = mask?.source, mask?.transform != nil { pixman_image_set_transform(m.image, nil) }
    }

    /// Draws `rects` of the output from `image` through `m` (output pixel to image pixel, a
    /// pure scale and translation) with the area-average kernel; false, having drawn nothing,
    /// when the kernel does not take these parameters.
    static func boxDownscale(_ image: PixelImage, _ m: AffineTransform, _ rects: [Rect], into target: PixelImage, kernel: BoxKernel) -> Bool {
        guard m.b == 0, m.c == 0, image.format.isOpaque, target.format == .xrgb8888 else { return false }
        let bounds = Rect(x: 0, y: 0, width: target.width, height: target.height)
        guard rects.allSatisfy({ $0.intersection(bounds) == $0 }) else { return false }
        let src = image.bytes.assumingMemoryBound(to: UInt32.self)
        let dst = target.bytes.assumingMemoryBound(to: UInt32.self)
        for (i, r) in rects.enumerated() {
            let status = dp_box_downscale_isa(
                kernel.isa, src, Int32(image.width), Int32(image.height), Int32(image.stride), dst, Int32(target.stride),
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
        guard let shadow = target.shadow else {
            replay(operations, into: target.image)
            return
        }
        var blended = Region()
        for op in operations where op.blends { for r in op.rects { blended.formUnion(r) } }
        guard !blended.isEmpty else {
            replay(operations, into: target.image)
            return
        }
        replay(operations.map { $0.clipped(outside: blended) }, into: target.image)
        replay(operations.map { $0.clipped(to: blended) }, into: shadow)
        for r in blended.rects { target.image.blit(r, from: shadow, sourceOffset: (0, 0)) }
    }
}

/// `m` in pixman's 16.16 fixed point, for coordinates counted from output pixel `origin`: the
/// translation becomes m's at that pixel, worked out in 64-bit fixed point from the rounded
/// entries (exactly the sampling of the whole-output transform, whose translation alone could
/// overflow 16.16 when a client's tiny window scales a buffer far from the origin). Every entry
/// is then clamped into its range (a value that is not a number becomes 0): a client's numbers
/// can make a strange picture, never a trap.
func pixmanTransform(_ m: AffineTransform, from origin: (x: Int, y: Int) = (0, 0)) -> pixman_transform_t {
    let a = fixed64(m.a), b = fixed64(m.b), c = fixed64(m.c), d = fixed64(m.d)
    let (ox, oy) = (Int64(clamping: origin.x), Int64(clamping: origin.y))
    let tx = fixed64(m.tx).addingReportingOverflow(a.multipliedReportingOverflow(by: ox).partialValue).partialValue
        .addingReportingOverflow(c.multipliedReportingOverflow(by: oy).partialValue).partialValue
    let ty = fixed64(m.ty).addingReportingOverflow(b.multipliedReportingOverflow(by: ox).partialValue).partialValue
        .addingReportingOverflow(d.multipliedReportingOverflow(by: oy).partialValue).partialValue
    var pt = pixman_transform_t()
    pt.matrix.0 = (pixman_fixed_t(clamping: a), pixman_fixed_t(clamping: c), pixman_fixed_t(clamping: tx))
    pt.matrix.1 = (pixman_fixed_t(clamping: b), pixman_fixed_t(clamping: d), pixman_fixed_t(clamping: ty))
    pt.matrix.2 = (0, 0, 1 << 16)
    return pt
}

/// `v` in 16.16 fixed point (64 bits wide, saturated; not a number: 0).
func fixed64(_ v: Double) -> Int64 {
    guard v.isFinite else { return 0 }
    let scaled = (v * 65536).rounded()
    // (Double(Int64.max) rounds up past Int64.max: stay within ±2^62.)
    return Int64(min(max(scaled, -0x1p62), 0x1p62))
}

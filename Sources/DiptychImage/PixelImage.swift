// SPDX-License-Identifier: MIT
// Pixel images: pixman images over memory we own or over a client's shared mapping.

import CPixman
import DiptychCore
import Glibc

/// The pixel formats the renderer handles: 32-bit words, blue in the low byte.
public enum PixelFormat: Sendable, Hashable {
    /// XRGB8888 (pixman `x8r8g8b8`): the top byte is ignored; always opaque.
    case xrgb8888
    /// ARGB8888 (pixman `a8r8g8b8`), premultiplied alpha.
    case argb8888

    var pixman: pixman_format_code_t { self == .xrgb8888 ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8 }
    public var isOpaque: Bool { self == .xrgb8888 }
}

/// A pixman image and the owner of its memory.
///
/// A `final class`: the image is reference counted by pixman and unref'd in `deinit`; `owner`
/// keeps foreign memory (a client's mapping) alive at least as long as the image. Use on one
/// thread at a time.
public final class PixelImage {
    package let image: OpaquePointer
    /// Width and height in pixels.
    public let width: Int
    public let height: Int
    /// Bytes per row.
    public let stride: Int
    public let format: PixelFormat
    private let owner: AnyObject?
    /// Memory this image allocated, and how: frame-sized buffers are mappings of their own, so
    /// that letting one go returns its pages to the system at once (glibc keeps freed
    /// `calloc` blocks once its mmap threshold has risen).
    private let ownedBits: UnsafeMutableRawPointer?
    private let mappedLength: Int
    /// Images at least this large (bytes) are mapped rather than allocated: everything the
    /// size of a pane, a snapshot or a frame; not glyphs, corners or icons.
    static let mappedThreshold = 64 << 10
    let bits: UnsafeMutableRawPointer
    /// The first pixel's address, for kernels outside pixman (rows `stride` bytes apart).
    package var bytes: UnsafeMutableRawPointer { bits }

    /// A new zeroed image in memory this object owns.
    public init(width: Int, height: Int, format: PixelFormat = .xrgb8888) {
        precondition(width > 0 && height > 0 && width <= 16384 && height <= 16384)
        self.width = width
        self.height = height
        stride = width * 4
        self.format = format
        let length = height * stride
        let bytes: UnsafeMutableRawPointer
        if length >= Self.mappedThreshold, let m = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), m != MAP_FAILED {
            // Anonymous pages read as zeros, like calloc's.
            bytes = m
            mappedLength = length
        } else {
            bytes = calloc(height, stride)!
            mappedLength = 0
        }
        ownedBits = bytes
        bits = bytes
        owner = nil
        image = pixman_image_create_bits(format.pixman, Int32(width), Int32(height), bytes.assumingMemoryBound(to: UInt32.self), Int32(stride))!
    }

    /// An image over memory at `base` that `owner` keeps alive (scanout buffers).
    public convenience init(unsafeBase base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: PixelFormat = .xrgb8888, owner: AnyObject) {
        self.init(foreign: base, offset: 0, width: width, height: height, stride: stride, format: format, owner: owner)
    }

    /// An image over `length` bytes at `base + offset` that `owner` keeps alive. The caller has
    /// validated that offset + stride × height fits. The image is only read from when the
    /// memory is read-only.
    init(foreign base: UnsafeMutableRawPointer, offset: Int, width: Int, height: Int, stride: Int, format: PixelFormat, owner: AnyObject) {
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.owner = owner
        ownedBits = nil
        mappedLength = 0
        bits = base + offset
        image = pixman_image_create_bits(format.pixman, Int32(width), Int32(height), bits.assumingMemoryBound(to: UInt32.self), Int32(stride))!
    }

    /// The same memory seen as a `width` × `height` image (rows packed), when it holds as many
    /// pixels: an output that turns keeps its buffer (its pages are already there). Nil for
    /// another size.
    public func reshaped(width: Int, height: Int) -> PixelImage? {
        guard width > 0, height > 0, width * height * 4 <= stride * self.height, width * 4 <= stride * self.height else { return nil }
        // The memory's owner is this image's, or this image when it owns its memory (never a
        // chain of views).
        return PixelImage(foreign: bits, offset: 0, width: width, height: height, stride: width * 4, format: format, owner: owner ?? self)
    }

    deinit {
        pixman_image_unref(image)
        if let ownedBits {
            if mappedLength > 0 { munmap(ownedBits, mappedLength) } else { free(ownedBits) }
        }
    }

    /// The 32-bit pixel at (x, y): 0xAARRGGBB (alpha meaningless for XRGB).
    public func pixel(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && y >= 0 && x < width && y < height)
        return bits.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }

    /// Fills `rect` (pixels, clipped to the image) with an opaque colour.
    public func fill(_ rect: Rect, color: RGB) { fill([rect], color: color) }

    /// Fills several rectangles (clipped to the image) with one colour in one call.
    public func fill(_ rects: [Rect], color: RGB) {
        // pixman_image_fill_boxes does not clip: a box outside the image writes out of bounds.
        let bounds = Rect(x: 0, y: 0, width: width, height: height)
        let inside = rects.compactMap { $0.intersection(bounds) }
        guard !inside.isEmpty else { return }
        var c = pixmanColor(color)
        var boxes = inside.map { pixman_box32_t(x1: Int32($0.minX), y1: Int32($0.minY), x2: Int32($0.maxX), y2: Int32($0.maxY)) }
        pixman_image_fill_boxes(PIXMAN_OP_SRC, image, &c, Int32(boxes.count), &boxes)
    }

    /// Blends a translucent magenta over `rects` (damage debugging).
    public func tint(_ rects: [Rect]) {
        let bounds = Rect(x: 0, y: 0, width: width, height: height)
        var c = pixman_color_t(red: 0x6000, green: 0, blue: 0x6000, alpha: 0x6000)
        let solid = pixman_image_create_solid_fill(&c)!
        defer { pixman_image_unref(solid) }
        for r in rects.compactMap({ $0.intersection(bounds) }) {
            pixman_image_composite32(PIXMAN_OP_OVER, solid, nil, image, 0, 0, 0, 0, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        }
    }

    /// Copies `rect` of `source`, offset by `sourceOffset` (source pixel = target pixel +
    /// offset), into this image row by row with `memcpy`: an unscaled opaque copy. The caller
    /// keeps both rectangles inside their images.
    public func blit(_ rect: Rect, from source: PixelImage, sourceOffset: (x: Int, y: Int)) {
        let sx = rect.x + sourceOffset.x, sy = rect.y + sourceOffset.y
        precondition(rect.x >= 0 && rect.y >= 0 && rect.maxX <= width && rect.maxY <= height)
        precondition(sx >= 0 && sy >= 0 && sx + rect.width <= source.width && sy + rect.height <= source.height)
        let bytes = rect.width * 4
        var d = bits + rect.y * stride + rect.x * 4
        var s = UnsafeRawPointer(source.bits) + sy * source.stride + sx * 4
        for _ in 0..<rect.height {
            memcpy(d, s, bytes)
            d += stride
            s += source.stride
        }
    }

    /// Sets every byte to 0 (transparent black in ARGB).
    public func clear() { memset(bits, 0, stride * height) }

    /// A disc `diameter` pixels across in `color` at `alpha`, its edge smoothed (16 samples a
    /// pixel), premultiplied ARGB on transparent: a cursor's picture.
    public static func disc(diameter: Int, color: RGB, alpha: UInt8) -> PixelImage {
        let image = PixelImage(width: diameter, height: diameter, format: .argb8888)
        let r = Double(diameter) / 2
        for y in 0..<diameter {
            for x in 0..<diameter {
                var inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let dx = Double(x) + (Double(sx) + 0.5) / 4 - r, dy = Double(y) + (Double(sy) + 0.5) / 4 - r
                        if dx * dx + dy * dy <= r * r { inside += 1 }
                    }
                }
                let a = Double(alpha) * Double(inside) / 16 / 255
                func c(_ v: UInt8) -> UInt32 { UInt32((Double(v) * a).rounded()) }
                let pixel = UInt32((a * 255).rounded()) << 24 | c(color.red) << 16 | c(color.green) << 8 | c(color.blue)
                image.bits.storeBytes(of: pixel, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
            }
        }
        return image
    }

    /// Copies all of `other`'s bytes over this image's (same size and stride): the memcpy
    /// baseline of one output frame.
    public func copyBytes(from other: PixelImage) {
        precondition(other.stride == stride && other.height == height)
        memcpy(bits, other.bits, stride * height)
    }

    /// A copy of `rect` of this image.
    public func cropped(_ rect: Rect) -> PixelImage {
        let r = rect.intersection(Rect(x: 0, y: 0, width: width, height: height)) ?? Rect(x: 0, y: 0, width: 1, height: 1)
        let out = PixelImage(width: r.width, height: r.height, format: format)
        pixman_image_composite32(PIXMAN_OP_SRC, image, nil, out.image, Int32(r.x), Int32(r.y), 0, 0, 0, 0, Int32(r.width), Int32(r.height))
        return out
    }

    /// A copy of this image in memory of its own.
    public func copy() -> PixelImage {
        let out = PixelImage(width: width, height: height, format: format)
        pixman_image_composite32(PIXMAN_OP_SRC, image, nil, out.image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
        return out
    }
}

func pixmanColor(_ c: RGB) -> pixman_color_t {
    pixman_color_t(red: UInt16(c.red) * 257, green: UInt16(c.green) * 257, blue: UInt16(c.blue) * 257, alpha: 0xFFFF)
}

extension PixelImage {
    /// The colour most of an 8×8 grid of samples has (the first sampled among equals): an
    /// image's dominant colour, for a placeholder in its app's colour. Nil for an empty image.
    public func dominantColor() -> RGB? {
        guard width > 0, height > 0 else { return nil }
        // The distinct colours sampled, in the order first seen, with their counts (at most
        // 64: searched in place, without a table; every commit asks once).
        return withUnsafeTemporaryAllocation(of: (color: UInt32, count: Int).self, capacity: 64) { seen in
            var distinct = 0
            for j in 0..<8 {
                for i in 0..<8 {
                    let v = pixel(x: (2 * i + 1) * width / 16, y: (2 * j + 1) * height / 16) & 0xFF_FFFF
                    var k = 0
                    while k < distinct && seen[k].color != v { k += 1 }
                    if k < distinct {
                        seen[k].count += 1
                    } else {
                        seen.baseAddress!.advanced(by: k).initialize(to: (v, 1))
                        distinct += 1
                    }
                }
            }
            var best = 0
            for k in 1..<distinct where seen[k].count > seen[best].count { best = k }
            let c = seen[best].color
            return RGB(red: UInt8(c >> 16), green: UInt8((c >> 8) & 0xFF), blue: UInt8(c & 0xFF))
        }
    }
}

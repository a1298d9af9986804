// SPDX-License-Identifier: MIT
// Real type for the chrome: glyphs rasterised with FreeType from a packaged font,
// anti-aliased, kept in pixman's glyph cache and drawn with `pixman_composite_glyphs`. The
// status bar's clock and the placeholders' names go through here.

import CFreeType
import CPixman
import DiptychCore
import DiptychImage

/// Where the chrome's font comes from: `DIPTYCH_FONT`, else the first of these that exists
/// (Inter, close to the iPad's face, then DejaVu Sans).
public enum FontFiles {
    public static let candidates = [
        "/usr/share/fonts/opentype/inter/Inter-SemiBold.otf",
        "/usr/share/fonts/opentype/inter/Inter-Medium.otf",
        "/usr/share/fonts/opentype/inter/Inter-Regular.otf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    ]
}

/// Text laid out and drawn with one font face. Confined to the thread that draws (FreeType's
/// library and pixman's glyph cache are not shared).
public final class Typesetter: TextMetrics {
    private let library: FT_Library
    private let face: FT_Face
    private let cache: OpaquePointer
    /// The font file in use.
    public let path: String
    /// Glyphs held in pixman's cache, by (pixel size, glyph index); bounded by `glyphLimit`.
    private var glyphs: [GlyphKey: Glyph] = [:]
    public static let glyphLimit = 512
    /// The most characters of a string laid out (a kiosk shows short strings).
    static let runLimit = 256

    /// Measured runs by (text, pixel size): the status bar measures its strings every frame.
    private var measured: [MeasureKey: Size] = [:]

    private struct MeasureKey: Hashable {
        var text: String
        var size: Int
    }

    private struct GlyphKey: Hashable {
        var size: Int
        var index: UInt32
    }

    private struct Glyph {
        /// Where pen positions move after it, in pixels.
        var advance: Int
        /// pixman's cache entry (nil for a glyph with no pixels, a space).
        var entry: UnsafeRawPointer?
    }

    /// Opens the font at `path`; nil when FreeType cannot read it.
    public init?(path: String) {
        var lib: FT_Library?
        guard FT_Init_FreeType(&lib) == 0, let lib else { return nil }
        var f: FT_Face?
        guard FT_New_Face(lib, path, 0, &f) == 0, let f else {
            FT_Done_FreeType(lib)
            return nil
        }
        library = lib
        face = f
        cache = pixman_glyph_cache_create()
        self.path = path
    }

    /// The first font of `FontFiles` that opens, or `override` (`DIPTYCH_FONT`) when set: an
    /// error if that does not open.
    public static func standard(override: String?) throws(TextError) -> Typesetter {
        if let path = override, !path.isEmpty {
            guard let t = Typesetter(path: path) else { throw TextError("DIPTYCH_FONT: cannot read the font file \(path)") }
            return t
        }
        for path in FontFiles.candidates {
            if let t = Typesetter(path: path) { return t }
        }
        throw TextError("no font found (install fonts-inter or fonts-dejavu-core, or set DIPTYCH_FONT): tried \(FontFiles.candidates.joined(separator: ", "))")
    }

    deinit {
        pixman_glyph_cache_destroy(cache)
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Glyphs kept now (for the bound's test).
    public var glyphCount: Int { glyphs.count }

    /// The box `text` takes at `pixelSize` (the em size): its advance width, and the line
    /// height (ascender to descender).
    public func size(of text: String, pixelSize: Int) -> Size {
        let key = MeasureKey(text: text, size: pixelSize)
        if let s = measured[key] { return s }
        let run = layout(text, pixelSize: pixelSize)
        let s = Size(width: run.width, height: run.ascent + run.descent)
        // Bounded like the glyphs (apps' names come by): start over past the limit.
        if measured.count >= Self.glyphLimit { measured.removeAll() }
        measured[key] = s
        return s
    }

    /// `text` in `color`, anti-aliased, on a transparent premultiplied ARGB picture of `size`
    /// (centred in it; what does not fit is cut off).
    public func draw(_ text: String, color: RGB, pixelSize: Int, size: Size) -> PixelImage {
        let image = PixelImage(width: max(1, size.width), height: max(1, size.height), format: .argb8888)
        let run = layout(text, pixelSize: pixelSize)
        guard !run.glyphs.isEmpty else { return image }
        let x0 = (size.width - run.width) / 2
        let baseline = (size.height - (run.ascent + run.descent)) / 2 + run.ascent
        var placed = run.glyphs.map { pixman_glyph_t(x: Int32(x0 + $0.x), y: Int32(baseline), glyph: $0.entry) }
        var c = pixman_color_t(red: UInt16(color.red) * 257, green: UInt16(color.green) * 257, blue: UInt16(color.blue) * 257, alpha: 0xFFFF)
        let source = pixman_image_create_solid_fill(&c)
        pixman_composite_glyphs_no_mask(PIXMAN_OP_OVER, source, image.image, 0, 0, 0, 0, cache, Int32(placed.count), &placed)
        pixman_image_unref(source)
        return image
    }

    /// Draws `text` in `color` straight onto `image` (over what is there), its pen starting at
    /// `x` on the line `baseline`; what falls outside the image is cut off. For apps that set
    /// their own text (the demo apps).
    public func draw(_ text: String, color: RGB, pixelSize: Int, into image: PixelImage, x: Int, baseline: Int) {
        let run = layout(text, pixelSize: pixelSize)
        guard !run.glyphs.isEmpty else { return }
        var placed = run.glyphs.map { pixman_glyph_t(x: Int32(x + $0.x), y: Int32(baseline), glyph: $0.entry) }
        var c = pixman_color_t(red: UInt16(color.red) * 257, green: UInt16(color.green) * 257, blue: UInt16(color.blue) * 257, alpha: 0xFFFF)
        let source = pixman_image_create_solid_fill(&c)
        pixman_composite_glyphs_no_mask(PIXMAN_OP_OVER, source, image.image, 0, 0, 0, 0, cache, Int32(placed.count), &placed)
        pixman_image_unref(source)
    }

    /// How tall the font's capital letters are, as a share of the em (from the font's OS/2
    /// table; 0.73 when it has none, Inter's and DejaVu's).
    public var capHeightShare: Double {
        guard let os2 = FT_Get_Sfnt_Table(face, FT_SFNT_OS2)?.assumingMemoryBound(to: TT_OS2.self), os2.pointee.version >= 2,
              os2.pointee.sCapHeight > 0, face.pointee.units_per_EM > 0 else { return 0.73 }
        return Double(os2.pointee.sCapHeight) / Double(face.pointee.units_per_EM)
    }

    private struct Run {
        var glyphs: [(x: Int, entry: UnsafeRawPointer)]
        var width: Int
        var ascent: Int
        var descent: Int
    }

    /// Pen positions of `text`'s glyphs (with kerning) and the run's extent, rasterising and
    /// caching glyphs not seen before.
    private func layout(_ text: String, pixelSize: Int) -> Run {
        let px = max(1, min(pixelSize, 512))
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(px))
        let metrics = face.pointee.size.pointee.metrics
        let ascent = Int(metrics.ascender + 63) >> 6, descent = Int(-metrics.descender + 63) >> 6
        var out: [(x: Int, entry: UnsafeRawPointer)] = []
        var pen = 0
        var previous: FT_UInt = 0
        let kerning = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_KERNING) != 0
        pixman_glyph_cache_freeze(cache)
        defer { pixman_glyph_cache_thaw(cache) }
        // Bounded: the cache starts over before a run that might not fit, never in the middle
        // of one (a run holds its glyphs' cache entries until it is drawn).
        let scalars = text.unicodeScalars.prefix(Self.runLimit)
        if glyphs.count + scalars.count > Self.glyphLimit {
            for k in glyphs.keys { pixman_glyph_cache_remove(cache, Self.fontKey(k.size), Self.glyphKey(k.index)) }
            glyphs.removeAll()
        }
        for scalar in scalars {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if kerning, previous != 0, index != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 { pen += Int(delta.x) >> 6 }
            }
            previous = index
            let g = glyph(index, size: px)
            if let e = g.entry { out.append((pen, e)) }
            pen += g.advance
        }
        return Run(glyphs: out, width: pen, ascent: ascent, descent: descent)
    }

    /// A glyph at the current size: from the cache, or rasterised (8-bit coverage) and
    /// inserted. The cache is frozen, and has room, by the caller's doing.
    private func glyph(_ index: FT_UInt, size: Int) -> Glyph {
        let key = GlyphKey(size: size, index: index)
        if let g = glyphs[key] { return g }
        var g = Glyph(advance: 0, entry: nil)
        if FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_DEFAULT)) == 0, FT_Render_Glyph(face.pointee.glyph, FT_RENDER_MODE_NORMAL) == 0 {
            let slot = face.pointee.glyph.pointee
            g.advance = Int(slot.advance.x + 32) >> 6
            let bitmap = slot.bitmap
            let w = Int(bitmap.width), h = Int(bitmap.rows)
            if w > 0, h > 0, let buffer = bitmap.buffer {
                // An a8 picture of the coverage (rows 4-byte aligned, as pixman wants).
                let stride = (w + 3) & ~3
                let a8 = pixman_image_create_bits(PIXMAN_a8, Int32(w), Int32(h), nil, Int32(stride))!
                let dst = pixman_image_get_data(a8)!.withMemoryRebound(to: UInt8.self, capacity: stride * h) { $0 }
                for y in 0..<h {
                    let src = buffer.advanced(by: y * Int(bitmap.pitch))
                    dst.advanced(by: y * stride).update(from: src, count: w)
                }
                g.entry = pixman_glyph_cache_insert(cache, Self.fontKey(size), Self.glyphKey(index), -slot.bitmap_left, slot.bitmap_top, a8)
                    .map { UnsafeRawPointer($0) }
                pixman_image_unref(a8)
            }
        }
        glyphs[key] = g
        return g
    }

    // pixman keys glyphs by two pointers' values: the pixel size and the glyph index (+1, so
    // neither is null).
    private static func fontKey(_ size: Int) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: size + 1)! }
    private static func glyphKey(_ index: UInt32) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: Int(index) + 1)! }
}

/// A font that cannot be used.
public struct TextError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

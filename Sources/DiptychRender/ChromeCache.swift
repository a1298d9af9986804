// SPDX-License-Identifier: MIT
// The chrome's pictures, drawn once and kept: rounded-corner masks, the Slide Over's
// shadow, pills (the divider's handle, the grabber) and placeholder labels. Each is a small
// premultiplied ARGB image that pixman composites like any translucent surface, so chrome is
// part of the scene and of the damage.

import CPixman
import DiptychCore
import DiptychImage
import DiptychText

/// Chrome pictures by description and size. Bounded in bytes (`byteLimit`), and swept: a
/// picture the screen no longer shows (the keyboard's labels once it is gone, a placeholder's
/// name) goes one to two `keepMilliseconds` after it was last drawn, so the memory of a transient comes
/// back. Confined to the thread that draws.
public final class ChromeCache: Timed {
    private struct Key: Hashable {
        var chrome: Chrome?
        var corner: Int
        var size: Size

        /// Hashed without a label's whole text: every frame looks its chrome up, and hashing the
        /// text each time costs more than the equality that tells apart the labels of one size;
        /// its length and first byte part the on-screen keyboard's many one-letter labels.
        func hash(into hasher: inout Hasher) {
            hasher.combine(size.width)
            hasher.combine(size.height)
            hasher.combine(corner)
            if case .text(let t, _, let px) = chrome {
                hasher.combine(t.utf8.count)
                hasher.combine(t.utf8.first)
                hasher.combine(px)
            } else {
                hasher.combine(chrome)
            }
        }
    }

    private struct Entry {
        let image: PixelImage
        /// The sweep period it was last looked up in.
        var period: UInt64
    }

    private var pictures: [Key: Entry] = [:]
    /// The bytes the pictures hold, at most `byteLimit`.
    public private(set) var bytes = 0
    /// (The on-screen keyboard's labels and key shapes in one layout hold about 10 MiB on
    /// ipad-pro.)
    public static let byteLimit = 32 << 20
    /// How long a picture no frame looked up is kept (ms).
    public static let keepMilliseconds: UInt64 = 2000
    /// Sweeps so far: a picture not looked up since the one before the last goes.
    private var period: UInt64 = 0
    /// When the next sweep is due (the compositor's clock), if one is: set by a frame drawn,
    /// cleared by a sweep that leaves only what the screen shows.
    public private(set) var nextSweep: UInt64?
    public var nextDeadline: UInt64? { nextSweep }
    /// Draws text (FreeType); without one, text is drawn in the bitmap font.
    public let typesetter: Typesetter?

    public init(typesetter: Typesetter? = nil) { self.typesetter = typesetter }

    /// How big text drawn here is, for laying it out.
    public var metrics: TextMetrics { typesetter ?? BitmapMetrics() }

    /// Pictures held now.
    public var count: Int { pictures.count }

    /// A frame was drawn at `now`: a sweep follows `keepMilliseconds` later (what it stopped
    /// showing is let go then).
    public func frameDrawn(now: UInt64) {
        if nextSweep == nil { nextSweep = now + Self.keepMilliseconds }
    }

    /// Lets go of the pictures no frame looked up in the last period, but those `shown` (the
    /// chrome of the scene on screen, which a frame that repaints elsewhere does not look up).
    public func sweep(now: UInt64, shown: [(chrome: Chrome, size: Size)]) {
        var onScreen = Set<Key>()
        for s in shown {
            let key = Key(chrome: s.chrome, corner: -1, size: s.size)
            if pictures[key] != nil {
                pictures[key]?.period = period
                onScreen.insert(key)
            }
        }
        let before = pictures.count
        pictures = pictures.filter { $0.value.period >= period }
        if pictures.count != before { bytes = pictures.values.reduce(0) { $0 + $1.image.stride * $1.image.height } }
        period += 1
        // Another sweep while something is kept that the screen does not show (drawn in the
        // last period only); none once only the screen's chrome is left, until a frame draws.
        nextSweep = pictures.keys.contains { !onScreen.contains($0) } ? now + Self.keepMilliseconds : nil
    }

    /// The alpha of a rounded corner of radius `radius` (an r×r square; corner 0 top-left,
    /// 1 top-right, 2 bottom-left, 3 bottom-right): opaque inside the arc, antialiased on it.
    public func corner(radius r: Int, corner: Int) -> PixelImage {
        kept(Key(chrome: nil, corner: corner, size: Size(width: r, height: r))) {
            let image = PixelImage(width: r, height: r, format: .argb8888)
            // The arc's centre, at the square's inner corner.
            let cx = corner == 0 || corner == 2 ? Double(r) : 0, cy = corner < 2 ? Double(r) : 0
            Self.paint(image) { x, y in
                Self.coverage(x, y) { px, py in
                    let dx = px - cx, dy = py - cy
                    return dx * dx + dy * dy <= Double(r * r)
                }
            } color: { a in Self.premultiplied(RGB(red: 255, green: 255, blue: 255), a) }
            return image
        }
    }

    /// The picture of `chrome` at `size`.
    public func picture(_ chrome: Chrome, size: Size) -> PixelImage {
        kept(Key(chrome: chrome, corner: -1, size: size)) {
            let image = PixelImage(width: max(1, size.width), height: max(1, size.height), format: .argb8888)
            switch chrome {
            case .shadow(let alpha):
                // Darkest at the edge it falls from (its right side), easing out to nothing.
                let w = Double(size.width)
                Self.paint(image) { x, _ in
                    let t = (Double(x) + 0.5) / w
                    return Double(alpha) / 255 * t * t
                } color: { a in Self.premultiplied(RGB(red: 0, green: 0, blue: 0), a) }
            case .pill(let color, let alpha):
                let w = Double(size.width), h = Double(size.height), r = min(w, h) / 2
                Self.paint(image) { x, y in
                    // Inside the rectangle with fully rounded ends.
                    Double(alpha) / 255 * Self.coverage(x, y) { Self.inside($0, $1, width: w, height: h, radius: r) }
                } color: { a in Self.premultiplied(color, a) }
            case .dropShadow(let alpha, let reach, let corner):
                // The rounded rectangle inset by `reach`; outside it the shadow eases out over
                // `reach` pixels (quadratically, as the Slide Over's does).
                let w = Double(size.width), h = Double(size.height), inset = Double(reach), r = Double(corner)
                let x0 = inset + r, x1 = w - inset - r, y0 = inset + r, y1 = h - inset - r
                Self.paint(image) { x, y in
                    let px = Double(x) + 0.5, py = Double(y) + 0.5
                    let dx = max(x0 - px, 0, px - x1), dy = max(y0 - py, 0, py - y1)
                    let outside = max(0, (dx * dx + dy * dy).squareRoot() - r)
                    guard outside < inset else { return 0 }
                    let t = 1 - outside / max(1, inset)
                    return Double(alpha) / 255 * t * t
                } color: { a in Self.premultiplied(RGB(red: 0, green: 0, blue: 0), a) }
            case .monogram(let letter, let color, let corner):
                let w = Double(size.width), h = Double(size.height), r = Double(corner)
                Self.paint(image) { x, y in
                    Self.coverage(x, y) { Self.inside($0, $1, width: w, height: h, radius: r) }
                } color: { a in Self.premultiplied(color, a) }
                let luma = 299 * Int(color.red) + 587 * Int(color.green) + 114 * Int(color.blue)
                let ink = luma > 140_000 ? RGB(red: 0, green: 0, blue: 0) : RGB(red: 255, green: 255, blue: 255)
                let glyph = picture(.text(letter, ink, pixelSize: size.height / 2), size: size)
                pixman_image_composite32(PIXMAN_OP_OVER, glyph.image, nil, image.image, 0, 0, 0, 0, 0, 0, Int32(size.width), Int32(size.height))
            case .scrim(let alpha, let corner):
                // A rounded rectangle of translucent black (a window's controls, a stashed tab).
                let w = Double(size.width), h = Double(size.height), r = Double(corner)
                Self.paint(image) { x, y in
                    Double(alpha) / 255 * Self.coverage(x, y) { Self.inside($0, $1, width: w, height: h, radius: r) }
                } color: { a in Self.premultiplied(RGB(red: 0, green: 0, blue: 0), a) }
            case .roundedRect(let color, let corner):
                let w = Double(size.width), h = Double(size.height), r = Double(corner)
                Self.paint(image) { x, y in
                    Self.coverage(x, y) { Self.inside($0, $1, width: w, height: h, radius: r) }
                } color: { a in Self.premultiplied(color, a) }
            case .glyph(let glyph, let ink):
                // (Centred in a picture that is not square: a key's.)
                let side = Double(min(size.width, size.height))
                let dx = (Double(size.width) - side) / 2, dy = (Double(size.height) - side) / 2
                let inside = Self.glyphShape(glyph, side: side)
                Self.paint(image) { x, y in 0.95 * Self.coverage(x, y) { inside($0 - dx, $1 - dy) } } color: { a in Self.premultiplied(ink, a) }
            case .text(let text, let color, let pixelSize):
                if let typesetter { return typesetter.draw(text, color: color, pixelSize: pixelSize, size: size) }
                let ink = Self.premultiplied(color, 1)
                let pixels = image.bytes.assumingMemoryBound(to: UInt32.self)
                let words = image.stride / 4
                // Glyphs past the picture's size (a size too small for the text) are cut off.
                let bounds = Rect(x: 0, y: 0, width: image.width, height: image.height)
                // Centred, as the typesetter centres it.
                let run = BitmapMetrics().size(of: text, pixelSize: pixelSize)
                let x0 = max(0, (size.width - run.width) / 2), y0 = max(0, (size.height - run.height) / 2)
                for glyph in BitmapFont.rects(for: text, x: x0, y: y0, scale: BitmapMetrics.scale(pixelSize)) {
                    guard let rect = glyph.intersection(bounds) else { continue }
                    for y in rect.minY..<rect.maxY {
                        for x in rect.minX..<rect.maxX { pixels[y * words + x] = ink }
                    }
                }
            }
            return image
        }
    }

    private func kept(_ key: Key, _ make: () -> PixelImage) -> PixelImage {
        if let known = pictures[key] {
            if known.period != period { pictures[key]?.period = period }
            return known.image
        }
        let p = make()
        let size = p.stride * p.height
        // At most `byteLimit` are held, whatever names apps give: past it, start over.
        if bytes + size > Self.byteLimit {
            pictures.removeAll()
            bytes = 0
        }
        pictures[key] = Entry(image: p, period: period)
        bytes += size
        return p
    }

    /// Whether the point (`px`, `py`) lies inside a `width` × `height` rectangle whose corners
    /// are rounded with `radius` (half the shorter side: a pill).
    private static func inside(_ px: Double, _ py: Double, width w: Double, height h: Double, radius r: Double) -> Bool {
        let qx = max(r, min(w - r, px)), qy = max(r, min(h - r, py))
        return (px - qx) * (px - qx) + (py - qy) * (py - qy) <= r * r
    }

    /// Writes every pixel of `image` from its alpha (0…1).
    private static func paint(_ image: PixelImage, alpha: (Int, Int) -> Double, color: (Double) -> UInt32) {
        let pixels = image.bytes.assumingMemoryBound(to: UInt32.self)
        let words = image.stride / 4
        for y in 0..<image.height {
            for x in 0..<image.width { pixels[y * words + x] = color(max(0, min(1, alpha(x, y)))) }
        }
    }

    /// Whether a point (pixels) lies on `glyph` drawn in a square of `side` pixels: strokes a
    /// tenth of the side wide, as the Picture in Picture controls of iOS.
    private static func glyphShape(_ glyph: Glyph, side s: Double) -> (Double, Double) -> Bool {
        let half = max(1, s / 20)
        // Within `half` of the segment from a to b (all in units of the side).
        func stroke(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> (Double, Double) -> Bool {
            let (x0, y0, x1, y1) = (ax * s, ay * s, bx * s, by * s)
            return { px, py in
                let dx = x1 - x0, dy = y1 - y0
                let t = max(0, min(1, ((px - x0) * dx + (py - y0) * dy) / max(1e-9, dx * dx + dy * dy)))
                let ex = px - (x0 + t * dx), ey = py - (y0 + t * dy)
                return ex * ex + ey * ey <= half * half
            }
        }
        func any(_ parts: [(Double, Double) -> Bool]) -> (Double, Double) -> Bool { { x, y in parts.contains { $0(x, y) } } }
        switch glyph {
        case .close:
            return any([stroke(0.2, 0.2, 0.8, 0.8), stroke(0.8, 0.2, 0.2, 0.8)])
        case .restore:
            // A window's outline with an arrow from its corner towards the middle (back to the app).
            return any([stroke(0.1, 0.25, 0.9, 0.25), stroke(0.9, 0.25, 0.9, 0.85), stroke(0.9, 0.85, 0.1, 0.85), stroke(0.1, 0.85, 0.1, 0.25),
                        stroke(0.3, 0.45, 0.6, 0.7), stroke(0.6, 0.7, 0.6, 0.5), stroke(0.6, 0.7, 0.4, 0.7)])
        case .play:
            return { x, y in
                let u = x / s, v = y / s
                return u >= 0.25 && u <= 0.85 && abs(v - 0.5) <= 0.35 * (0.85 - u) / 0.6
            }
        case .pause:
            return { x, y in
                let u = x / s, v = y / s
                return v >= 0.2 && v <= 0.8 && ((u >= 0.25 && u <= 0.42) || (u >= 0.58 && u <= 0.75))
            }
        case .chevronLeft:
            return any([stroke(0.6, 0.25, 0.35, 0.5), stroke(0.35, 0.5, 0.6, 0.75)])
        case .chevronRight:
            return any([stroke(0.4, 0.25, 0.65, 0.5), stroke(0.65, 0.5, 0.4, 0.75)])
        case .globe:
            // A circle with its equator, two parallels and a meridian's ellipse, as iPad's.
            let c = s / 2, r = s * 0.4, w = half * 0.8
            return { x, y in
                let dx = x - c, dy = y - c, d = (dx * dx + dy * dy).squareRoot()
                if abs(d - r) <= w { return true }
                guard d < r else { return false }
                // The meridian: an ellipse half as wide as the circle; the centre line.
                let e = ((dx / (r * 0.45)) * (dx / (r * 0.45)) + (dy / r) * (dy / r)).squareRoot()
                if abs(e - 1) * r * 0.45 <= w || abs(dx) <= w { return true }
                return abs(dy) <= w || abs(abs(dy) - r * 0.5) <= w
            }
        }
    }

    /// The share of pixel (x, y) inside a shape, sampled 4×4.
    private static func coverage(_ x: Int, _ y: Int, inside: (Double, Double) -> Bool) -> Double {
        var n = 0
        for sy in 0..<4 {
            for sx in 0..<4 where inside(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4) { n += 1 }
        }
        return Double(n) / 16
    }

    /// A premultiplied ARGB word: `color` at alpha `a` (0…1).
    static func premultiplied(_ color: RGB, _ a: Double) -> UInt32 {
        func c(_ v: UInt8) -> UInt32 { UInt32((Double(v) * a).rounded()) }
        return UInt32((a * 255).rounded()) << 24 | c(color.red) << 16 | c(color.green) << 8 | c(color.blue)
    }
}

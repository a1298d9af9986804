// SPDX-License-Identifier: MIT
// A rotation's frames: pictures turned about the screen's centre and scaled to stay on it,
// drawn into a reduced-resolution frame (pixman has no fast path for rotated bilinear
// sampling: at a quarter of the size in each direction a frame costs a sixteenth).

import CPixman
import Glibc
import DiptychCore
import DiptychImage

public enum Turning {
    /// One picture of a turn: `image` (the size of the frame it is drawn into) turned by
    /// `angle` radians (clockwise on the screen), at `opacity`.
    public struct Layer {
        public var image: PixelImage
        public var angle: Double
        public var opacity: UInt8

        public init(image: PixelImage, angle: Double, opacity: UInt8) {
            self.image = image
            self.angle = angle
            self.opacity = opacity
        }
    }

    /// How much a `w` × `h` picture turned by `angle` is scaled to stay on a `frame`.
    public static func fit(width w: Double, height h: Double, angle: Double, in frame: Size) -> Double {
        let c = abs(cos(angle)), s = abs(sin(angle))
        return min(Double(frame.width) / (w * c + h * s), Double(frame.height) / (w * s + h * c))
    }

    /// Draws `layers` bottom to top into `frame` over black: each turned about the centre by
    /// its angle and scaled to fit, bilinear, at its opacity.
    public static func draw(_ layers: [Layer], into frame: PixelImage) {
        let size = Size(width: frame.width, height: frame.height)
        frame.fill(Rect(x: 0, y: 0, width: size.width, height: size.height), color: RGB(red: 0, green: 0, blue: 0))
        let cx = Double(size.width) / 2, cy = Double(size.height) / 2
        for layer in layers where layer.opacity > 0 {
            let w = Double(layer.image.width), h = Double(layer.image.height)
            let s = fit(width: w, height: h, angle: layer.angle, in: size)
            // Frame pixel to picture pixel: about the frame's centre, turned back, scaled back,
            // about the picture's centre.
            let cosA = cos(layer.angle), sinA = sin(layer.angle)
            let back = AffineTransform(a: cosA / s, b: -sinA / s, c: sinA / s, d: cosA / s, tx: 0, ty: 0)
            let m = AffineTransform.translation(w / 2, h / 2).concatenating(back).concatenating(.translation(-cx, -cy))
            // Only the turned picture's bounds are drawn.
            let bw = (w * abs(cosA) + h * abs(sinA)) * s, bh = (w * abs(sinA) + h * abs(cosA)) * s
            let x0 = max(0, Int((cx - bw / 2).rounded(.down))), y0 = max(0, Int((cy - bh / 2).rounded(.down)))
            let x1 = min(size.width, Int((cx + bw / 2).rounded(.up))), y1 = min(size.height, Int((cy + bh / 2).rounded(.up)))
            guard x1 > x0, y1 > y0 else { continue }
            var t = pixmanTransform(m)
            pixman_image_set_transform(layer.image.image, &t)
            pixman_image_set_filter(layer.image.image, PIXMAN_FILTER_BILINEAR, nil, 0)
            // Outside the picture: nothing (black stays).
            pixman_image_set_repeat(layer.image.image, PIXMAN_REPEAT_NONE)
            var c = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(layer.opacity) * 257)
            let mask = pixman_image_create_solid_fill(&c)
            pixman_image_composite32(
                PIXMAN_OP_OVER, layer.image.image, mask, frame.image, Int32(x0), Int32(y0), 0, 0, Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
            pixman_image_unref(mask)
            pixman_image_set_transform(layer.image.image, nil)
        }
    }
}

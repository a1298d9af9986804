// SPDX-License-Identifier: MIT
// The exact area average of an image onto an output, in double precision with plain loops: the
// reference the resolution emulation's filters are measured against (PSNR in `profile`).

import DiptychCore
import DiptychImage

extension PixelImage {
    /// This image averaged exactly onto an output of `size` through `t` (image pixels to output
    /// pixels; a pure scale and translation): each output pixel is the mean of the image over
    /// the pixel's preimage, black where that falls outside the image. For measurements, not
    /// frames: it is slow.
    public func areaAverage(to size: Size, through t: AffineTransform) -> PixelImage {
        precondition(t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0, "a pure scale and translation")
        let m = t.inverted
        /// Each output column's (or row's) source pixels and weights; out-of-image ones dropped
        /// (they are black), the weights divided by the box's full length.
        func taps(_ count: Int, scale: Double, offset: Double, limit: Int) -> [[(Int, Double)]] {
            (0..<count).map { x in
                let x0 = scale * Double(x) + offset, x1 = scale * Double(x + 1) + offset
                var out: [(Int, Double)] = []
                var k = Int(x0.rounded(.down))
                while Double(k) < x1 {
                    let overlap = min(x1, Double(k + 1)) - max(x0, Double(k))
                    if overlap > 0, k >= 0, k < limit { out.append((k, overlap / scale)) }
                    k += 1
                }
                return out
            }
        }
        let columns = taps(size.width, scale: m.a, offset: m.tx, limit: width)
        let rows = taps(size.height, scale: m.d, offset: m.ty, limit: height)
        let out = PixelImage(width: size.width, height: size.height)
        let src = UnsafeRawPointer(bytes), dst = out.bytes
        for y in 0..<size.height {
            for x in 0..<size.width {
                var b = 0.0, g = 0.0, r = 0.0
                for (sy, wy) in rows[y] {
                    for (sx, wx) in columns[x] {
                        let p = src.load(fromByteOffset: sy * stride + sx * 4, as: UInt32.self)
                        let w = wx * wy
                        b += w * Double(p & 0xFF)
                        g += w * Double((p >> 8) & 0xFF)
                        r += w * Double((p >> 16) & 0xFF)
                    }
                }
                func c(_ v: Double) -> UInt32 { UInt32(min(255, max(0, v.rounded()))) }
                dst.storeBytes(of: 0xFF00_0000 | c(r) << 16 | c(g) << 8 | c(b), toByteOffset: y * out.stride + x * 4, as: UInt32.self)
            }
        }
        return out
    }
}

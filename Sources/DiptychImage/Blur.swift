// SPDX-License-Identifier: MIT
// The blurred picture a divider drag shows of each app: made once per image, small, and
// scaled up where it is shown (a blur keeps only large shapes, which a small picture holds).

extension PixelImage {
    /// A blurred, slightly dimmed copy of this image at 1/`factor` of its size: each small
    /// pixel the mean of a 4 × 4 grid of samples of its `factor` × `factor` block, then three
    /// box blurs of `radius` small pixels across and down (close to a Gaussian of σ ≈
    /// `radius` small pixels), multiplied by `dim`. Opaque (alpha is ignored: snapshots and
    /// frames are).
    ///
    /// Its cost is a pass over 16 samples per block plus a few passes over the small image:
    /// for an `ipad-pro` pane (2732 × 2048 at `factor` 8) about a millisecond.
    public func blurred(factor: Int, radius: Int = 2, dim: Double = 0.88) -> PixelImage {
        precondition(factor >= 1 && radius >= 0)
        let w = max(1, (width + factor - 1) / factor), h = max(1, (height + factor - 1) / factor)
        let count = w * h
        var red = [Float](repeating: 0, count: count), green = red, blue = red
        let step = max(1, factor / 4)
        let src = UnsafeRawPointer(bits)
        for by in 0..<h {
            for bx in 0..<w {
                var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0, n: UInt32 = 0
                var y = by * factor + step / 2
                while y < min(height, (by + 1) * factor) {
                    let row = src + y * stride
                    var x = bx * factor + step / 2
                    while x < min(width, (bx + 1) * factor) {
                        let p = row.load(fromByteOffset: x * 4, as: UInt32.self)
                        r += (p >> 16) & 0xFF
                        g += (p >> 8) & 0xFF
                        b += p & 0xFF
                        n += 1
                        x += step
                    }
                    y += step
                }
                let i = by * w + bx, d = Float(max(1, n))
                red[i] = Float(r) / d
                green[i] = Float(g) / d
                blue[i] = Float(b) / d
            }
        }
        for _ in 0..<3 {
            Self.boxBlur(&red, width: w, height: h, radius: radius)
            Self.boxBlur(&green, width: w, height: h, radius: radius)
            Self.boxBlur(&blue, width: w, height: h, radius: radius)
        }
        let out = PixelImage(width: w, height: h)
        let dst = out.bits.assumingMemoryBound(to: UInt32.self)
        let k = Float(dim)
        func byte(_ v: Float) -> UInt32 { UInt32(max(0, min(255, (v * k).rounded()))) }
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                dst[y * out.stride / 4 + x] = 0xFF00_0000 | byte(red[i]) << 16 | byte(green[i]) << 8 | byte(blue[i])
            }
        }
        return out
    }

    /// One box blur of `radius` across then down, edges extended.
    private static func boxBlur(_ v: inout [Float], width w: Int, height h: Int, radius r: Int) {
        guard r > 0 else { return }
        var line = [Float](repeating: 0, count: max(w, h))
        let span = Float(2 * r + 1)
        v.withUnsafeMutableBufferPointer { v in
            line.withUnsafeMutableBufferPointer { line in
                // Across each row, then down each column: a running sum over 2r + 1 samples.
                for (n, stepAlong, stepAcross, lines) in [(w, 1, w, h), (h, w, 1, w)] {
                    for l in 0..<lines {
                        let base = l * stepAcross
                        func at(_ i: Int) -> Float { v[base + max(0, min(n - 1, i)) * stepAlong] }
                        var sum: Float = 0
                        for i in -r...r { sum += at(i) }
                        for i in 0..<n {
                            line[i] = sum / span
                            sum += at(i + r + 1) - at(i - r)
                        }
                        for i in 0..<n { v[base + i * stepAlong] = line[i] }
                    }
                }
            }
        }
    }

    /// This image (premultiplied ARGB or opaque) averaged down to `side` × `side` pixels as
    /// premultiplied ARGB, its corners rounded by `corner` pixels (antialiased): an app's icon
    /// at the size the screen shows it.
    public func icon(side: Int, corner: Int) -> PixelImage {
        precondition(side > 0)
        let out = PixelImage(width: side, height: side, format: .argb8888)
        let dst = out.bits.assumingMemoryBound(to: UInt32.self)
        let src = UnsafeRawPointer(bits)
        let opaque = format.isOpaque
        for oy in 0..<side {
            let y0 = oy * height / side, y1 = max(y0 + 1, (oy + 1) * height / side)
            for ox in 0..<side {
                let x0 = ox * width / side, x1 = max(x0 + 1, (ox + 1) * width / side)
                var a: UInt32 = 0, r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let p = src.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
                        a += opaque ? 255 : p >> 24
                        r += (p >> 16) & 0xFF
                        g += (p >> 8) & 0xFF
                        b += p & 0xFF
                    }
                }
                let n = UInt32((y1 - y0) * (x1 - x0))
                // Outside the rounded corners' arcs, nothing (4 × 4 samples on the arc).
                let k = Self.cornerCoverage(ox, oy, side: side, corner: corner)
                func c(_ v: UInt32) -> UInt32 { (v / n * k + 8) / 16 }
                // Premultiplied: a colour never exceeds its alpha.
                let aa = c(a)
                dst[oy * out.stride / 4 + ox] = aa << 24 | min(aa, c(r)) << 16 | min(aa, c(g)) << 8 | min(aa, c(b))
            }
        }
        return out
    }

    /// How many of 16 samples of pixel (x, y) of a `side`-pixel square lie inside its corners
    /// rounded by `corner`.
    private static func cornerCoverage(_ x: Int, _ y: Int, side: Int, corner: Int) -> UInt32 {
        let r = Double(corner), s = Double(side)
        var n: UInt32 = 0
        for sy in 0..<4 {
            for sx in 0..<4 {
                let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                let qx = max(r, min(s - r, px)), qy = max(r, min(s - r, py))
                if (px - qx) * (px - qx) + (py - qy) * (py - qy) <= r * r { n += 1 }
            }
        }
        return n
    }
}

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
    /// Its cost is dominated by the first reads of a new snapshot's pages: 2–4 ms for a whole
    /// `ipad-pro` screen (2732 × 2048 at `factor` 8), under a millisecond for a narrow pane.
    public func blurred(factor: Int, radius: Int = 2, dim: Double = 0.88) -> PixelImage {
        precondition(factor >= 1 && radius >= 0)
        let w = max(1, (width + factor - 1) / factor), h = max(1, (height + factor - 1) / factor)
        // Each small pixel as (red, green, blue, 0): the three channels blurred at once.
        var v = [SIMD4<Float>](repeating: .zero, count: w * h)
        let step = max(1, factor / 4)
        let src = UnsafeRawPointer(bits)
        v.withUnsafeMutableBufferPointer { v in
            for by in 0..<h {
                let y1 = min(height, (by + 1) * factor)
                for bx in 0..<w {
                    let x1 = min(width, (bx + 1) * factor)
                    var sum = SIMD4<UInt32>.zero, n: UInt32 = 0
                    var y = by * factor + step / 2
                    while y < y1 {
                        let row = (src + y * stride).assumingMemoryBound(to: UInt32.self)
                        var x = bx * factor + step / 2
                        while x < x1 {
                            let p = row[x]
                            sum &+= SIMD4(p >> 16 & 0xFF, p >> 8 & 0xFF, p & 0xFF, 0)
                            n &+= 1
                            x += step
                        }
                        y += step
                    }
                    v[by * w + bx] = SIMD4<Float>(sum) / Float(max(1, n))
                }
            }
            var line = [SIMD4<Float>](repeating: .zero, count: max(w, h))
            line.withUnsafeMutableBufferPointer { line in
                for _ in 0..<3 {
                    Self.boxBlur(v, line, count: w, lines: h, along: 1, across: w, radius: radius)
                    Self.boxBlur(v, line, count: h, lines: w, along: w, across: 1, radius: radius)
                }
            }
        }
        let out = PixelImage(width: w, height: h)
        let dst = out.bits.assumingMemoryBound(to: UInt32.self)
        let k = Float(dim)
        for y in 0..<h {
            for x in 0..<w {
                let c = (v[y * w + x] * k).rounded(.toNearestOrEven)
                let q = SIMD4<UInt32>(clamping: SIMD4<Int32>(c.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))))
                dst[y * out.stride / 4 + x] = 0xFF00_0000 | q[0] << 16 | q[1] << 8 | q[2]
            }
        }
        return out
    }

    /// This image at 1/`factor` of its size, each pixel the mean of 2 × 2 samples of its block
    /// (opaque): a turning picture's copy.
    public func reduced(by factor: Int) -> PixelImage {
        let w = max(1, width / factor), h = max(1, height / factor)
        let out = PixelImage(width: w, height: h)
        let dst = out.bits.assumingMemoryBound(to: UInt32.self)
        let half = max(1, factor / 2)
        for y in 0..<h {
            let r0 = (bits + y * factor * stride).assumingMemoryBound(to: UInt32.self)
            let r1 = (bits + min(height - 1, y * factor + half) * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                let x0 = x * factor, x1 = min(width - 1, x0 + half)
                var sum = SIMD4<UInt32>(r0[x0] >> 16 & 0xFF, r0[x0] >> 8 & 0xFF, r0[x0] & 0xFF, 0)
                sum &+= SIMD4(r0[x1] >> 16 & 0xFF, r0[x1] >> 8 & 0xFF, r0[x1] & 0xFF, 0)
                sum &+= SIMD4(r1[x0] >> 16 & 0xFF, r1[x0] >> 8 & 0xFF, r1[x0] & 0xFF, 0)
                sum &+= SIMD4(r1[x1] >> 16 & 0xFF, r1[x1] >> 8 & 0xFF, r1[x1] & 0xFF, 0)
                sum /= 4
                dst[y * out.stride / 4 + x] = 0xFF00_0000 | sum[0] << 16 | sum[1] << 8 | sum[2]
            }
        }
        return out
    }

    /// One box blur of `radius` along each of `lines` lines of `count` values (`along` apart,
    /// lines `across` apart), edges extended: a running sum over 2r + 1 values.
    private static func boxBlur(
        _ v: UnsafeMutableBufferPointer<SIMD4<Float>>, _ line: UnsafeMutableBufferPointer<SIMD4<Float>>, count n: Int, lines: Int, along: Int, across: Int,
        radius r: Int
    ) {
        guard r > 0 else { return }
        let inverse = 1 / Float(2 * r + 1)
        for l in 0..<lines {
            let base = v.baseAddress! + l * across
            var sum = SIMD4<Float>.zero
            for i in -r...r { sum += base[max(0, min(n - 1, i)) * along] }
            for i in 0..<n {
                line[i] = sum * inverse
                sum += base[min(n - 1, i + r + 1) * along] - base[max(0, i - r) * along]
            }
            for i in 0..<n { base[i * along] = line[i] }
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

// SPDX-License-Identifier: MIT
// Image comparison for golden tests, in the style of Weston's test suite: per-channel
// tolerance, and a diff image (matching pixels dimmed to grey, differing pixels red).

import DiptychCore
import Glibc

/// The result of comparing two images.
public struct ImageComparison {
    /// Pixels whose R, G or B differs by more than the tolerance.
    public var differingPixels: Int
    /// The largest per-channel difference seen.
    public var maxChannelDifference: Int
    /// The first differing pixel, if any.
    public var firstDifference: (x: Int, y: Int)?
    /// Whether the sizes matched (if not, nothing else was compared).
    public var sameSize: Bool
    /// The diff image: differing pixels red, others a dim grey version of the expected image.
    public var diff: PixelImage?

    public var matches: Bool { sameSize && differingPixels == 0 }
}

extension PixelImage {
    /// Compares the RGB channels of this image with `expected`, ignoring alpha.
    public func compare(to expected: PixelImage, tolerance: Int) -> ImageComparison {
        guard width == expected.width, height == expected.height else {
            return ImageComparison(differingPixels: 0, maxChannelDifference: 0, firstDifference: nil, sameSize: false, diff: nil)
        }
        var count = 0, maxDiff = 0
        var first: (Int, Int)?
        // First pass without allocation: channel differences with plain integer operations.
        for y in 0..<height {
            let a = (bits + y * stride).assumingMemoryBound(to: UInt32.self)
            let b = (expected.bits + y * expected.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let p = a[x], q = b[x]
                if (p ^ q) & 0x00FF_FFFF == 0 { continue }
                let d = channelDifference(p, q)
                maxDiff = max(maxDiff, d)
                if d > tolerance {
                    count += 1
                    if first == nil { first = (x, y) }
                }
            }
        }
        var diff: PixelImage?
        if count > 0 {
            let image = PixelImage(width: width, height: height)
            for y in 0..<height {
                let b = (expected.bits + y * expected.stride).assumingMemoryBound(to: UInt32.self)
                let a = (bits + y * stride).assumingMemoryBound(to: UInt32.self)
                let out = (image.bits + y * image.stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let q = b[x]
                    if channelDifference(a[x], q) > tolerance {
                        out[x] = 0xFFFF_0000
                    } else {
                        let grey = (((q >> 16) & 0xFF) + ((q >> 8) & 0xFF) + (q & 0xFF)) / 6
                        out[x] = 0xFF00_0000 | grey << 16 | grey << 8 | grey
                    }
                }
            }
            diff = image
        }
        return ImageComparison(differingPixels: count, maxChannelDifference: maxDiff, firstDifference: first, sameSize: true, diff: diff)
    }
}

@inline(__always)
private func channelDifference(_ p: UInt32, _ q: UInt32) -> Int {
    let db = abs(Int(p & 0xFF) - Int(q & 0xFF))
    let dg = abs(Int((p >> 8) & 0xFF) - Int((q >> 8) & 0xFF))
    let dr = abs(Int((p >> 16) & 0xFF) - Int((q >> 16) & 0xFF))
    return max(db, max(dg, dr))
}

extension PixelImage {
    /// The peak signal-to-noise ratio of this image against `reference` (same size) over the
    /// red, green and blue channels, in dB; 99 for identical images.
    /// `within` limits it to some rectangles (non-overlapping).
    public func psnr(against reference: PixelImage, within: [Rect]? = nil) -> Double {
        precondition(width == reference.width && height == reference.height)
        let bounds = Rect(x: 0, y: 0, width: width, height: height)
        var squares = 0.0, count = 0
        for rect in (within ?? [bounds]).compactMap({ $0.intersection(bounds) }) {
            for y in rect.minY..<rect.maxY {
                for x in rect.minX..<rect.maxX {
                    let p = pixel(x: x, y: y), q = reference.pixel(x: x, y: y)
                    for shift: UInt32 in [0, 8, 16] {
                        let d = Double(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF))
                        squares += d * d
                    }
                }
            }
            count += rect.width * rect.height
        }
        guard count > 0 else { return 99 }
        let mse = squares / Double(count * 3)
        return mse == 0 ? 99 : min(99, 10 * log10(255 * 255 / mse))
    }
}

// SPDX-License-Identifier: MIT
// Image comparison for golden tests, in the style of Weston's test suite: per-channel
// tolerance, and a diff image (matching pixels dimmed to grey, differing pixels red); and the
// PPM reader for qemu's screen dumps in the VM test.

import DiptychCore
import DiptychImage
import DiptychLinux
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
            let a = (bytes + y * stride).assumingMemoryBound(to: UInt32.self)
            let b = (expected.bytes + y * expected.stride).assumingMemoryBound(to: UInt32.self)
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
                let b = (expected.bytes + y * expected.stride).assumingMemoryBound(to: UInt32.self)
                let a = (bytes + y * stride).assumingMemoryBound(to: UInt32.self)
                let out = (image.bytes + y * image.stride).assumingMemoryBound(to: UInt32.self)
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
    /// Reads a binary PPM (P6, maxval 255), as qemu's `screendump` writes.
    public static func readPPM(from path: String) throws(PNGError) -> PixelImage {
        let bytes: [UInt8]
        do { bytes = try Files.read(path) } catch { throw PNGError(path: path, reason: "\(error)") }
        var i = 0
        func token() -> String {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count && bytes[i] != 10 { i += 1 }
                } else if bytes[i] == 32 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 9 {
                    i += 1
                } else {
                    break
                }
            }
            let start = i
            while i < bytes.count && !(bytes[i] == 32 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 9) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
        guard token() == "P6", let w = Int(token()), let h = Int(token()), token() == "255", w > 0, h > 0, w <= 16384, h <= 16384 else {
            throw PNGError(path: path, reason: "not a P6 PPM with maxval 255")
        }
        i += 1
        guard bytes.count - i >= w * h * 3 else { throw PNGError(path: path, reason: "PPM data is short") }
        let image = PixelImage(width: w, height: h)
        for y in 0..<h {
            let row = (image.bytes + y * image.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                let o = i + (y * w + x) * 3
                row[x] = 0xFF00_0000 | UInt32(bytes[o]) << 16 | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2])
            }
        }
        return image
    }
}

// SPDX-License-Identifier: MIT
// How close an image is to a reference: the profiler's measure of the emulation filter.

import DiptychCore
import Glibc

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

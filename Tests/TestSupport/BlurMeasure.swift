// SPDX-License-Identifier: MIT
// Measures of a blurred picture against the sharp one it came from: its large shapes (block
// means) and its detail (how much neighbouring pixels differ).

import DiptychCore
import DiptychImage

public enum BlurMeasure {
    /// How much a drag's blurred picture is dimmed (`PixelImage.blurred`'s default).
    public static let dim = 0.88

    /// The mean luma (0…255) of each `block` × `block` square of `area`, row by row.
    public static func blockMeans(_ image: PixelImage, _ area: Rect, block: Int) -> [Double] {
        var out: [Double] = []
        for by in stride(from: area.minY, to: area.maxY - block + 1, by: block) {
            for bx in stride(from: area.minX, to: area.maxX - block + 1, by: block) {
                var sum = 0.0
                for y in stride(from: by, to: by + block, by: 2) {
                    for x in stride(from: bx, to: bx + block, by: 2) { sum += luma(image.pixel(x: x, y: y)) }
                }
                out.append(sum / Double(block * block / 4))
            }
        }
        return out
    }

    /// The mean difference of luma between horizontal and vertical neighbours over `area`.
    public static func detail(_ image: PixelImage, _ area: Rect) -> Double {
        var sum = 0.0, n = 0
        for y in stride(from: area.minY, to: area.maxY - 1, by: 3) {
            for x in stride(from: area.minX, to: area.maxX - 1, by: 3) {
                let p = luma(image.pixel(x: x, y: y))
                sum += abs(p - luma(image.pixel(x: x + 1, y: y))) + abs(p - luma(image.pixel(x: x, y: y + 1)))
                n += 2
            }
        }
        return sum / Double(max(1, n))
    }

    static func luma(_ p: UInt32) -> Double {
        0.299 * Double((p >> 16) & 0xFF) + 0.587 * Double((p >> 8) & 0xFF) + 0.114 * Double(p & 0xFF)
    }
}

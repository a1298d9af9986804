// SPDX-License-Identifier: MIT
// The `pattern` demo app's drawing: a solid colour, a 1 px border, and its pixel size as text.

import DiptychCore
import DiptychImage

/// Draws the `pattern:#RRGGBB` app. Pure function of the colour and the image size, so tests
/// can draw exactly what the app process draws.
public enum PatternPainter {
    /// Black on light colours, white on dark ones.
    public static func ink(for color: RGB) -> RGB {
        let luma = (299 * Int(color.red) + 587 * Int(color.green) + 114 * Int(color.blue)) / 1000
        return luma > 140 ? RGB(red: 0, green: 0, blue: 0) : RGB(red: 255, green: 255, blue: 255)
    }

    /// The label drawn in the middle: the image's pixel size, e.g. "1388x1536".
    public static func label(width: Int, height: Int) -> String { "\(width)x\(height)" }

    /// The text scale for an image: large enough to read on a panel, small enough to fit.
    public static func textScale(width: Int, height: Int, label: String) -> Int {
        max(1, min((width - 4) / (label.count * BitmapFont.advance + 2) / 2, height / 48))
    }

    /// Paints the whole image.
    public static func paint(_ image: PixelImage, color: RGB) {
        let w = image.width, h = image.height
        image.fill(Rect(x: 0, y: 0, width: w, height: h), color: color)
        let ink = ink(for: color)
        var rects = [
            Rect(x: 0, y: 0, width: w, height: 1), Rect(x: 0, y: h - 1, width: w, height: 1),
            Rect(x: 0, y: 0, width: 1, height: h), Rect(x: w - 1, y: 0, width: 1, height: h),
        ]
        let text = label(width: w, height: h)
        let scale = textScale(width: w, height: h, label: text)
        let size = BitmapFont.size(of: text, scale: scale)
        if size.width <= w - 2 && size.height <= h - 2 {
            rects += BitmapFont.rects(for: text, x: (w - size.width) / 2, y: (h - size.height) / 2, scale: scale)
        }
        image.fill(rects, color: ink)
    }
}

// SPDX-License-Identifier: MIT
// A 5×7 bitmap font for the demo apps' labels. The glyphs are original to this project and
// under its MIT licence.

import DiptychCore
import DiptychRender

/// A fixed 5×7 pixel font, drawn scaled by whole pixels.
public enum BitmapFont {
    public static let glyphWidth = 5
    public static let glyphHeight = 7
    /// Advance per character in font pixels (glyph plus one column of space).
    public static let advance = 6

    static let glyphs: [Character: [String]] = [
        "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
        "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
        "3": ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],
        "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
        "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
        "6": ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
        "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
        "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
        "9": [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
        "x": [".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"],
        " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
    ]

    /// The size in pixels of `text` at `scale`.
    public static func size(of text: String, scale: Int) -> Size {
        Size(width: max(0, text.count * advance - 1) * scale, height: glyphHeight * scale)
    }

    /// The rectangles (image pixels) that draw `text` with its top-left at (x, y). Unknown
    /// characters draw as blanks.
    public static func rects(for text: String, x: Int, y: Int, scale: Int) -> [Rect] {
        var out: [Rect] = []
        for (i, ch) in text.enumerated() {
            guard let rows = glyphs[ch] else { continue }
            let gx = x + i * advance * scale
            for (row, bits) in rows.enumerated() {
                // Merge runs of set pixels in a row into one rectangle.
                var col = 0
                let cells = Array(bits)
                while col < cells.count {
                    guard cells[col] == "#" else { col += 1; continue }
                    var end = col
                    while end < cells.count && cells[end] == "#" { end += 1 }
                    out.append(Rect(x: gx + col * scale, y: y + row * scale, width: (end - col) * scale, height: scale))
                    col = end
                }
            }
        }
        return out
    }
}

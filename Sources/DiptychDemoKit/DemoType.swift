// SPDX-License-Identifier: MIT
// The demo apps' type: Inter through FreeType, anti-aliased, as the compositor's own chrome
// (titles in Inter Bold, as iOS's large titles), so that their screenshots read as iPad apps.
// Placed where the bitmap font's text was (its capitals' height and top), so the layouts and
// every scenario's taps stay where they were. Without a font it falls back to the bitmap font.

import DiptychCore
import DiptychImage
import DiptychText
import Synchronization

/// The typefaces, opened once a process. Each app process draws on one thread; the tests draw
/// apps on several, so every use holds `lock` (FreeType's faces and pixman's glyph cache are not
/// shared between threads): the reason this is `@unchecked Sendable`.
final class DemoType: @unchecked Sendable {
    private let regular: Typesetter?
    private let bold: Typesetter?
    private let lock = Mutex(())
    static let shared = DemoType()

    private init() {
        let dir = "/usr/share/fonts/opentype/inter/"
        let regular = Typesetter(path: dir + "Inter-Medium.otf") ?? (try? Typesetter.standard(override: nil))
        self.regular = regular
        bold = Typesetter(path: dir + "Inter-Bold.otf") ?? regular
    }

    /// The em size whose capitals are as tall as the bitmap font's at `scale` (7 × scale).
    private static func pixelSize(_ t: Typesetter, scale: Int) -> Int { Int((Double(7 * scale) / t.capHeightShare).rounded()) }

    /// Draws `text` with its capitals' top at (x, y), as tall as the bitmap font's at `scale`.
    func draw(_ image: PixelImage, _ text: String, x: Int, y: Int, scale: Int, color: RGB, bold: Bool) {
        guard let t = bold ? self.bold : regular else {
            image.fill(BitmapFont.rects(for: text, x: x, y: y, scale: max(1, scale)), color: color)
            return
        }
        lock.withLock { _ in t.draw(text, color: color, pixelSize: Self.pixelSize(t, scale: scale), into: image, x: x, baseline: y + 7 * scale) }
    }

    /// How wide `text` is drawn at `scale`.
    func width(_ text: String, scale: Int, bold: Bool = false) -> Int {
        guard let t = bold ? self.bold : regular else { return BitmapFont.size(of: text, scale: scale).width }
        return lock.withLock { _ in t.size(of: text, pixelSize: Self.pixelSize(t, scale: scale)).width }
    }
}

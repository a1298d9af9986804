// SPDX-License-Identifier: MIT
// The Picture in Picture windows in the scene: each window's picture with rounded corners and a
// soft shadow, its controls (dimmed, close, back to the app, play or pause) while they show, and
// the tab of a window stashed at a side.

/// A Picture in Picture window as a frame shows it: where (points) and what.
public struct FloatingWindow: Sendable {
    public var app: AppID
    public var frame: Rect
    public var image: ImageRef
    /// Its controls show (play/pause offering pause when `playing`).
    public var controls: Bool
    public var playing: Bool
    /// Stashed at the left (true) or right (false) side, its tab showing.
    public var stashedLeft: Bool?

    public init(app: AppID, frame: Rect, image: ImageRef, controls: Bool = false, playing: Bool = true, stashedLeft: Bool? = nil) {
        self.app = app
        self.frame = frame
        self.image = image
        self.controls = controls
        self.playing = playing
        self.stashedLeft = stashedLeft
    }
}

/// The glyphs of a Picture in Picture window's controls and of a stashed window's tab.
public enum Glyph: Hashable, Sendable, BitwiseCopyable {
    case close, restore, play, pause, chevronLeft, chevronRight
    /// The on-screen keyboard's globe key (its languages).
    case globe
}

extension SceneBuilder {
    /// A Picture in Picture window: its shadow, its image scaled into its frame with rounded
    /// corners, then its controls while they show and its tab while it is stashed.
    public static func window(_ w: FloatingWindow, scale: Int) -> [SceneNode] {
        let frame = w.frame.scaled(by: scale)
        guard !frame.isEmpty else { return [] }
        let reach = ChromeStyle.pipShadowRadius * scale
        let corner = ChromeStyle.pipCornerRadius * scale
        let box = Rect(x: frame.x - reach, y: frame.y - reach + reach / 4, width: frame.width + 2 * reach, height: frame.height + 2 * reach)
        let alpha = UInt8((ChromeStyle.pipShadowAlpha * 255).rounded())
        var nodes = [
            SceneNode(key: .pipShadow(w.app), content: .chrome(.dropShadow(alpha: alpha, radius: reach, corner: corner)), imageRect: box, clip: box),
            SceneNode(key: .pip(w.app), content: .image(w.image, live: true), imageRect: frame, clip: frame, cornerRadius: corner),
        ]
        func chrome(_ key: SceneNode.Key, _ c: Chrome, _ r: Rect) -> SceneNode { SceneNode(key: key, content: .chrome(c), imageRect: r, clip: r) }
        if w.controls {
            // Dimmed, with close at the top left, back to the app at the top right and play or
            // pause in the middle (iOS's Picture in Picture controls).
            let scrim = UInt8((ChromeStyle.pipScrimAlpha * 255).rounded())
            nodes.append(chrome(.pipScrim(w.app), .scrim(alpha: scrim, corner: corner), frame))
            let size = Size(width: w.frame.width, height: w.frame.height)
            for (control, key, glyph) in [(PiPControl.close, SceneNode.Key.pipClose(w.app), Glyph.close), (.restore, .pipRestore(w.app), .restore),
                                          (.playPause, .pipPlayPause(w.app), w.playing ? .pause : .play)] {
                let r = control.rect(in: size).scaled(by: scale)
                nodes.append(chrome(key, .glyph(glyph), Rect(x: frame.x + r.x, y: frame.y + r.y, width: r.width, height: r.height)))
            }
        }
        if let left = w.stashedLeft {
            // The tab: the strip that still shows at the screen's side, dark, with a chevron
            // pointing back in.
            let t = PictureInPicture.tab * scale
            let tab = Rect(x: left ? frame.maxX - t : frame.x, y: frame.y, width: t, height: frame.height)
            nodes.append(chrome(.pipTab(w.app), .scrim(alpha: UInt8((ChromeStyle.pipTabAlpha * 255).rounded()), corner: min(corner, t / 2)), tab))
            let g = min(t, ChromeStyle.pipChevron * scale)
            let chevron = Rect(x: tab.x + (t - g) / 2, y: tab.y + (tab.height - g) / 2, width: g, height: g)
            nodes.append(chrome(.pipChevron(w.app), .glyph(left ? .chevronRight : .chevronLeft), chevron))
        }
        return nodes
    }
}

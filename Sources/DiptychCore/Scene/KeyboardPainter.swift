// SPDX-License-Identifier: MIT
// The on-screen keyboard as scene nodes, after iPadOS's look: a light (or dark) grey band,
// white character keys and darker function keys with rounded corners, a key held down in the
// other shade, its label centred. Beside `PresentationPainter`: the desk says where the keyboard
// is and which keys are down; this says what that looks like.

/// The keyboard's colours: light (white keys on light grey) and dark.
public struct KeyboardLook: Sendable {
    public var background: RGB, character: RGB, function: RGB, label: RGB

    public static let light = KeyboardLook(
        background: RGB(red: 0xD1, green: 0xD4, blue: 0xD9), character: RGB(red: 0xFF, green: 0xFF, blue: 0xFF),
        function: RGB(red: 0xAB, green: 0xB0, blue: 0xBA), label: RGB(red: 0, green: 0, blue: 0))
    public static let dark = KeyboardLook(
        background: RGB(red: 0x2A, green: 0x2A, blue: 0x2C), character: RGB(red: 0x6B, green: 0x6B, blue: 0x6E),
        function: RGB(red: 0x47, green: 0x47, blue: 0x4A), label: RGB(red: 0xFF, green: 0xFF, blue: 0xFF))

    public init(background: RGB, character: RGB, function: RGB, label: RGB) {
        self.background = background
        self.character = character
        self.function = function
        self.label = label
    }
}

public struct KeyboardPainter {
    /// Logical pixels per point.
    public var scale: Int
    public var look: KeyboardLook

    public init(scale: Int, appearance: KeyboardAppearance) {
        self.scale = scale
        look = appearance == .dark ? .dark : .light
    }

    /// The selected item of a popup: iOS's blue, its label white.
    public static let selection = RGB(red: 0x0A, green: 0x84, blue: 0xFF)
    public static let selectedLabel = RGB(red: 0xFF, green: 0xFF, blue: 0xFF)

    /// The nodes of a keyboard at `frame` (screen points) with `keys` (frames in the
    /// keyboard's points), the keys at the indices `pressed` held down, at `opacity`, and a long
    /// press's `popup` over them.
    public func nodes(frame: Rect, keys: [KeyboardKey], pressed: Set<Int>, opacity: UInt8, popup: KeyboardPopup? = nil) -> [SceneNode] {
        func px(_ r: Rect) -> Rect { Rect(x: (frame.x + r.x) * scale, y: (frame.y + r.y) * scale, width: r.width * scale, height: r.height * scale) }
        let whole = px(Rect(x: 0, y: 0, width: frame.width, height: frame.height))
        var nodes = [SceneNode(key: .keyboard, content: .solid(look.background), imageRect: whole, clip: whole, opacity: opacity)]
        for (i, key) in keys.enumerated() {
            let r = px(key.frame)
            let down = pressed.contains(i)
            let fill = key.function != down ? look.function : look.character
            nodes.append(SceneNode(key: .keyboardKey(i), content: .chrome(.roundedRect(fill, corner: KeyboardMetrics.cornerRadius * scale)), imageRect: r, clip: r, opacity: opacity))
            guard !key.label.isEmpty, key.action != .space else { continue }
            if key.action == .nextLanguage {
                // The globe, drawn (no font here has U+1F310), in a square of a label's size.
                let side = min(r.width, r.height, KeyboardMetrics.characterSize * scale * 5 / 4)
                let g = Rect(x: r.x + (r.width - side) / 2, y: r.y + (r.height - side) / 2, width: side, height: side)
                nodes.append(SceneNode(key: .keyboardLabel(i), content: .chrome(.glyph(.globe, ink: look.label)), imageRect: g, clip: g, opacity: opacity))
                continue
            }
            let size = key.label.count == 1 ? KeyboardMetrics.characterSize : KeyboardMetrics.wordSize
            nodes.append(SceneNode(key: .keyboardLabel(i), content: .chrome(.text(key.label, look.label, pixelSize: size * scale)), imageRect: r, clip: r, opacity: opacity))
        }
        if let popup { nodes += popupNodes(popup, px: px, opacity: opacity) }
        return nodes
    }

    /// A popup: its shadow, its panel, the selected item's blue and each item's label (a
    /// language's name left-aligned in its row is centred here: the names are short).
    private func popupNodes(_ p: KeyboardPopup, px: (Rect) -> Rect, opacity: UInt8) -> [SceneNode] {
        let panel = px(p.frame), corner = 8 * scale, reach = 8 * scale
        let shadow = Rect(x: panel.x - reach, y: panel.y - reach + reach / 4, width: panel.width + 2 * reach, height: panel.height + 2 * reach)
        var out = [
            SceneNode(key: .keyboardPopup(0), content: .chrome(.dropShadow(alpha: 70, radius: reach, corner: corner)), imageRect: shadow, clip: shadow, opacity: opacity),
            SceneNode(key: .keyboardPopup(1), content: .chrome(.roundedRect(look.character, corner: corner)), imageRect: panel, clip: panel, opacity: opacity),
        ]
        let size = p.kind == .alternatives ? KeyboardMetrics.characterSize : KeyboardMetrics.wordSize
        for (i, item) in p.items.enumerated() {
            let r = px(p.itemFrames[i]), chosen = p.selected == i
            if chosen {
                out.append(SceneNode(key: .keyboardPopup(2 + 2 * i), content: .chrome(.roundedRect(Self.selection, corner: KeyboardMetrics.cornerRadius * scale)), imageRect: r, clip: r, opacity: opacity))
            }
            let ink = chosen ? Self.selectedLabel : look.label
            out.append(SceneNode(key: .keyboardPopup(3 + 2 * i), content: .chrome(.text(item, ink, pixelSize: size * scale)), imageRect: r, clip: r, opacity: opacity))
        }
        return out
    }
}

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

    /// The nodes of a keyboard at `frame` (screen points) with `keys` (frames in the
    /// keyboard's points), the keys at the indices `pressed` held down, at `opacity`.
    public func nodes(frame: Rect, keys: [KeyboardKey], pressed: Set<Int>, opacity: UInt8) -> [SceneNode] {
        func px(_ r: Rect) -> Rect { Rect(x: (frame.x + r.x) * scale, y: (frame.y + r.y) * scale, width: r.width * scale, height: r.height * scale) }
        let whole = px(Rect(x: 0, y: 0, width: frame.width, height: frame.height))
        var nodes = [SceneNode(key: .keyboard, content: .solid(look.background), imageRect: whole, clip: whole, opacity: opacity)]
        for (i, key) in keys.enumerated() {
            let r = px(key.frame)
            let down = pressed.contains(i)
            let fill = key.function != down ? look.function : look.character
            nodes.append(SceneNode(key: .keyboardKey(i), content: .chrome(.roundedRect(fill, corner: KeyboardMetrics.cornerRadius * scale)), imageRect: r, clip: r, opacity: opacity))
            guard !key.label.isEmpty, key.action != .space else { continue }
            let size = key.label.count == 1 ? KeyboardMetrics.characterSize : KeyboardMetrics.wordSize
            nodes.append(SceneNode(key: .keyboardLabel(i), content: .chrome(.text(key.label, look.label, pixelSize: size * scale)), imageRect: r, clip: r, opacity: opacity))
        }
        return nodes
    }
}

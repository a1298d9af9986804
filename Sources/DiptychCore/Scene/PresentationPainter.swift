// SPDX-License-Identifier: MIT
// A menu or an alert as scene nodes, after UIKit's look: a white popover (a sheet in a compact
// pane) with 44 pt rows, hairlines between them, a blue checkmark by the selected one and grey
// group headings; an alert card of 270 pt on a dimmed pane, its title and message centred, its
// field white with a hairline border, its buttons blue (destructive red) under hairlines. Only
// the rows in sight become nodes.

/// The presentations' colours.
public struct PresentationLook: Sendable {
    public var card = RGB(red: 0xFF, green: 0xFF, blue: 0xFF)
    public var alertCard = RGB(red: 0xF2, green: 0xF2, blue: 0xF2)
    public var label = RGB(red: 0, green: 0, blue: 0)
    public var secondary = RGB(red: 0x6D, green: 0x6D, blue: 0x72)
    public var disabled = RGB(red: 0xAE, green: 0xAE, blue: 0xB2)
    public var separator = RGB(red: 0xC8, green: 0xC7, blue: 0xCC)
    public var pressed = RGB(red: 0xD1, green: 0xD1, blue: 0xD6)
    public var tint = RGB(red: 0x00, green: 0x7A, blue: 0xFF)
    public var destructive = RGB(red: 0xFF, green: 0x3B, blue: 0x30)
    public var placeholder = RGB(red: 0xC4, green: 0xC4, blue: 0xC6)
    /// How dark an alert dims its pane, and a sheet its pane.
    public var alertDim: UInt8 = 0x33
    public var sheetDim: UInt8 = 0x4D
    public init() {}
}

public struct PresentationPainter {
    public var scale: Int
    public var metrics: any TextMetrics
    public var look = PresentationLook()

    public init(scale: Int, metrics: any TextMetrics) {
        self.scale = scale
        self.metrics = metrics
    }

    /// The nodes of `p` laid out as `l`; `part` tells apart the apps' (in the keys).
    public func nodes(_ p: Presentation, _ l: Presentation.Layout, part: Int) -> [SceneNode] {
        typealias M = PresentationMetrics
        var out: [SceneNode] = []
        let base = part << 20
        func key(_ n: Int) -> SceneNode.Key { .presented(base | n) }
        func px(_ r: RectD) -> Rect { r.pixels(scale) }
        let frame = px(l.frame), corner = Int((p.isAlert ? M.alertCorner : M.corner) * Double(scale))
        if let dims = l.dims {
            let d = px(dims)
            out.append(SceneNode(key: key(0), content: .chrome(.scrim(alpha: l.sheet || !p.isAlert ? look.sheetDim : look.alertDim, corner: 0)), imageRect: d, clip: d))
        } else {
            // A popover's soft shadow.
            let r = 24 * scale, s = Rect(x: frame.x - r, y: frame.y - r + 4 * scale, width: frame.width + 2 * r, height: frame.height + 2 * r)
            out.append(SceneNode(key: key(1), content: .chrome(.dropShadow(alpha: 0x40, radius: r, corner: corner)), imageRect: s, clip: s))
        }
        out.append(SceneNode(key: key(2), content: .chrome(.roundedRect(p.isAlert ? look.alertCard : look.card, corner: corner)), imageRect: frame, clip: frame))
        switch p.content {
        case .menu(let m):
            if let t = l.title {
                out.append(text(m.title, look.secondary, M.smallSize, in: t, centred: true, key: key(3), clip: frame))
                out.append(line(RectD(x: t.x, y: t.maxY - 1 / Double(scale), width: t.width, height: 1 / Double(scale)), key: key(4)))
            }
            let list = px(l.list)
            for (i, row) in p.visibleRows(in: l) {
                let item = m.items[i], n = 16 + i * 4
                if p.pressed == i { out.append(SceneNode(key: key(n), content: .solid(look.pressed), imageRect: px(row), clip: px(row).intersection(list) ?? list)) }
                let inset = (item.flags.contains(.indented) ? 32.0 : 16.0)
                let header = item.flags.contains(.header)
                let color = header ? look.secondary : item.choosable ? look.label : look.disabled
                let label = RectD(x: row.x + inset, y: row.y, width: row.width - inset - 44, height: row.height)
                out.append(text(header ? item.label.uppercased() : item.label, color, header ? M.smallSize : M.labelSize, in: label, centred: false, key: key(n + 1), clip: list))
                if item.flags.contains(.selected) {
                    out.append(text("\u{2713}", look.tint, M.labelSize, in: RectD(x: row.maxX - 40, y: row.y, width: 28, height: row.height), centred: true, key: key(n + 2), clip: list))
                }
                if i + 1 < m.items.count {
                    let sep = RectD(x: row.x + inset, y: row.maxY - 1 / Double(scale), width: row.width - inset, height: 1 / Double(scale))
                    out.append(line(sep, key: key(n + 3), clip: list))
                }
            }
        case .alert(let a):
            if let t = l.title { out.append(text(a.title, look.label, M.labelSize, in: t, centred: true, key: key(3), clip: frame)) }
            if let msg = l.message {
                for (i, lineText) in l.messageLines.enumerated() {
                    let r = RectD(x: msg.x, y: msg.y + Double(i) * M.messageLine, width: msg.width, height: M.messageLine)
                    out.append(text(lineText, look.label, M.smallSize, in: r, centred: true, key: key(8 + i), clip: frame))
                }
            }
            if let f = l.field {
                let outer = px(f), hair = max(1, scale / 2)
                let inner = Rect(x: outer.x + hair, y: outer.y + hair, width: outer.width - 2 * hair, height: outer.height - 2 * hair)
                out.append(SceneNode(key: key(20), content: .chrome(.roundedRect(look.separator, corner: 5 * scale)), imageRect: outer, clip: outer))
                out.append(SceneNode(key: key(21), content: .chrome(.roundedRect(look.card, corner: 5 * scale - hair)), imageRect: inner, clip: inner))
                let shown = a.field == .secure ? String(repeating: "\u{2022}", count: p.text.count) : p.text
                let area = RectD(x: f.x + 6, y: f.y, width: f.width - 12, height: f.height)
                if shown.isEmpty {
                    if !a.placeholder.isEmpty { out.append(text(a.placeholder, look.placeholder, M.smallSize, in: area, centred: false, key: key(22), clip: inner)) }
                } else {
                    out.append(text(shown, look.label, M.smallSize, in: area, centred: false, key: key(22), clip: inner))
                }
                // The caret after the text.
                let w = min(width(shown, M.smallSize), area.width - 2)
                let caret = px(RectD(x: area.x + w + 1, y: f.y + 7, width: 2 / Double(scale) * 2, height: f.height - 14))
                out.append(SceneNode(key: key(23), content: .solid(look.tint), imageRect: caret, clip: caret))
            }
            let hairline = 1 / Double(scale)
            for (i, b) in l.buttons.enumerated() {
                let button = a.buttons[i], n = 32 + i * 4
                if p.pressed == i {
                    out.append(SceneNode(key: key(n), content: .solid(look.pressed), imageRect: px(b), clip: frame, cornerRadius: corner))
                }
                out.append(line(RectD(x: b.x, y: b.y, width: b.width, height: hairline), key: key(n + 1)))
                if i > 0, b.y == l.buttons[0].y { out.append(line(RectD(x: b.x, y: b.y, width: hairline, height: b.height), key: key(n + 2))) }
                let color = button.style == .destructive ? look.destructive : look.tint
                out.append(text(button.label, color, M.labelSize, in: b, centred: true, key: key(n + 3), clip: frame))
            }
        }
        return out
    }

    /// A line's width in points at `size` points.
    private func width(_ s: String, _ size: Double) -> Double {
        Double(metrics.size(of: s, pixelSize: Int((size * Double(scale)).rounded())).width) / Double(scale)
    }

    /// Text in `r` (centred, or from its left edge), vertically centred, cut to `clip`.
    private func text(_ s: String, _ color: RGB, _ size: Double, in r: RectD, centred: Bool, key: SceneNode.Key, clip: Rect) -> SceneNode {
        let pixelSize = Int((size * Double(scale)).rounded())
        var box = r.pixels(scale)
        if !centred { box.width = min(box.width, metrics.size(of: s, pixelSize: pixelSize).width + 2 * scale) }
        return SceneNode(key: key, content: .chrome(.text(s, color, pixelSize: pixelSize)), imageRect: box, clip: box.intersection(clip) ?? Rect(x: box.x, y: box.y, width: 0, height: 0))
    }

    private func line(_ r: RectD, key: SceneNode.Key, clip: Rect? = nil) -> SceneNode {
        let p = r.pixels(scale)
        let box = Rect(x: p.x, y: p.y, width: max(p.width, 1), height: max(p.height, 1))
        return SceneNode(key: key, content: .solid(look.separator), imageRect: box, clip: clip.flatMap { box.intersection($0) } ?? box)
    }
}

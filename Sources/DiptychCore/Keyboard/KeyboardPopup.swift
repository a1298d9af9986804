// SPDX-License-Identifier: MIT
// iPad's long-press popup on the on-screen keyboard: a key held half a second shows the
// alternatives it has (a letter's accented forms in the keyboard's language, the currencies on
// `$`, the quotation marks on `"`) in a row above it; the globe key held shows the keyboard's
// languages in a list above it. The finger slides to one and lifts to take it. Pure geometry and
// selection, in the keyboard's points (the popup may reach above the keyboard, over the app).

/// A long press's popup.
public struct KeyboardPopup: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The key's alternatives in a row (lifting on the key itself types the key).
        case alternatives
        /// The keyboard's languages in a list (lifting on one takes it).
        case languages
    }

    public let kind: Kind
    /// The key held (an index in the keyboard's keys) and its frame.
    public let key: Int
    public let keyFrame: Rect
    /// What the key itself types (lifting on it types that).
    public let keyText: String
    /// What it offers: the text each alternative types, or each language's name in itself.
    public let items: [String]
    /// Where each item is, and the whole popup (its panel), in the keyboard's points.
    public let itemFrames: [Rect]
    public let frame: Rect
    /// The item under the finger (nil: none, or the key itself).
    public private(set) var selected: Int?
    /// The finger is on the key itself (where it started).
    public private(set) var onKey = true

    /// How long a key is held before its popup shows (ms), as on iPad.
    public static let holdMilliseconds: UInt64 = 500
    /// The most alternatives a key's popup offers (the languages' list has every language).
    public static let maxItems = 8
    /// The panel's padding round its items, the gap above the key, and a list row's size.
    public static let padding = 6
    public static let gap = 4
    public static let rowHeight = 44
    public static let listWidth = 260

    /// The popup of `kind` for the key at `key` (frame `keyFrame`) offering `items` (for
    /// alternatives at most `maxItems` are kept; `keyText`: what the key itself types) on a
    /// keyboard `width` points wide whose top is `above` points below the screen's: a list too
    /// long for the screen has shorter rows. `selected` as it opens.
    public init(kind: Kind, key: Int, keyFrame: Rect, keyText: String = "", items: [String], width: Int, above: Int = .max, selected: Int? = nil) {
        self.kind = kind
        self.key = key
        self.keyFrame = keyFrame
        self.keyText = keyText
        let items = kind == .alternatives ? Array(items.prefix(Self.maxItems)) : items
        self.items = items
        let p = Self.padding
        let room = above == .max ? Int.max : keyFrame.y + above - Self.gap - 2 * p
        let cell = kind == .alternatives
            ? Size(width: max(keyFrame.width, 40), height: keyFrame.height)
            : Size(width: Self.listWidth, height: max(1, min(Self.rowHeight, room / max(1, items.count))))
        let size = kind == .alternatives
            ? Size(width: cell.width * items.count + 2 * p, height: cell.height + 2 * p)
            : Size(width: cell.width + 2 * p, height: cell.height * items.count + 2 * p)
        // Above the key, from its left edge, kept on the keyboard (a key near the right edge
        // opens towards the left).
        let x = max(Self.gap, min(keyFrame.x - p, width - size.width - Self.gap))
        let frame = Rect(x: x, y: keyFrame.y - Self.gap - size.height, width: size.width, height: size.height)
        self.frame = frame
        itemFrames = items.indices.map { i in
            kind == .alternatives
                ? Rect(x: frame.x + p + i * cell.width, y: frame.y + p, width: cell.width, height: cell.height)
                : Rect(x: frame.x + p, y: frame.y + p + i * cell.height, width: cell.width, height: cell.height)
        }
        self.selected = selected
    }

    /// The finger is at `x`, `y` (keyboard points): the item it is over is selected. On the
    /// key itself, nothing is; beside the popup, the nearest item along it while the finger
    /// stays within a key's reach of it; further off, nothing.
    public mutating func slide(toX x: Double, y: Double) {
        onKey = keyFrame.contains(x: x, y: y)
        if onKey {
            selected = nil
            return
        }
        let reach = Double(kind == .alternatives ? keyFrame.width : itemFrames.first?.height ?? Self.rowHeight)
        let near = x >= Double(frame.minX) - reach && x < Double(frame.maxX) + reach
            && y >= Double(frame.minY) - reach && y < Double(keyFrame.maxY)
        guard near, !items.isEmpty else {
            selected = nil
            return
        }
        switch kind {
        case .alternatives:
            let i = Int(((x - Double(itemFrames[0].minX)) / Double(itemFrames[0].width)).rounded(.down))
            selected = min(max(i, 0), items.count - 1)
        case .languages:
            // Below the list is the globe key's row: the nearest row is the last.
            let i = Int(((y - Double(itemFrames[0].minY)) / Double(itemFrames[0].height)).rounded(.down))
            selected = min(max(i, 0), items.count - 1)
        }
    }
}

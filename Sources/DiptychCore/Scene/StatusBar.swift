// SPDX-License-Identifier: MIT
// The status bar: 20 pt across the top of the screen, over the apps (their frames do
// not change), with the time; its text dark or light as the primary app asks, or hidden.

/// How the primary app wants the status bar drawn.
public enum StatusBarStyle: String, Sendable, CaseIterable {
    /// Dark text, for light content under it (the default).
    case dark
    /// Light text, for dark content.
    case light
    /// No status bar.
    case hidden
}

/// What the status bar shows in one frame.
public struct StatusBar: Equatable, Sendable {
    /// The bar's pieces, as scene node keys.
    public enum Item: Hashable, Sendable, Comparable, BitwiseCopyable {
        case device, time, battery, batteryTrack, batteryLevel, batteryTip
    }

    public static let height = 20
    /// Text size in points (the iPad's status bar text) and the side margins.
    public static let textPoints = 12
    public static let margin = 6
    public static let batterySize = Size(width: 24, height: 11)
    /// How far the time keeps from the divider's side of the secondary's pane (points).
    static let dividerClearance = 8

    public var style: StatusBarStyle
    /// In Split View, the style over the secondary's pane, which begins at `trailingFrom`
    /// (logical pixels): each piece of the bar takes the style of the app beneath it.
    public var trailing: StatusBarStyle?
    public var trailingFrom = 0
    /// The time shown, `HH:MM`.
    public var time: String
    /// The label at the left (the device's name, or the product's); nothing when empty.
    public var title: String
    /// The battery's charge in percent (0…100), or nil when there is no battery to show.
    public var battery: Int?

    public init(style: StatusBarStyle, time: String, title: String = "", battery: Int? = nil) {
        self.style = style
        self.time = time
        self.title = title
        self.battery = battery.map { min(100, max(0, $0)) }
    }

    /// The time of day `HH:MM` at `milliseconds` after the start of a day at `start` minutes
    /// (a scenario's virtual clock starts at 09:41).
    public static func clock(milliseconds: UInt64, startMinutes: Int = 9 * 60 + 41) -> String {
        let minutes = (startMinutes + Int(milliseconds / 60_000)) % (24 * 60)
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    public var ink: RGB { Self.ink(style) }

    static func ink(_ style: StatusBarStyle) -> RGB { style == .light ? RGB(red: 255, green: 255, blue: 255) : RGB(red: 0, green: 0, blue: 0) }

    /// The ink of a piece of the bar whose middle is at `x` (logical pixels).
    func ink(at x: Int) -> RGB {
        if let trailing, trailing != .hidden, x >= trailingFrom { return Self.ink(trailing) }
        return ink
    }

    /// The style with the better contrast over `color` (dark text over light content).
    public static func contrasting(_ color: RGB) -> StatusBarStyle {
        let l = 0.2126 * Double(color.red) + 0.7152 * Double(color.green) + 0.0722 * Double(color.blue)
        return l >= 128 ? .dark : .light
    }

    /// The bar's nodes on a screen `screenWidth` logical pixels wide: the title at the left, the
    /// time centred, the battery (when there is one) at the right; nothing when hidden.
    public func nodes(screenWidth: Int, scale: Int, text: TextMetrics) -> [SceneNode] {
        guard style != .hidden else { return [] }
        let bar = Self.height * scale, px = Self.textPoints * scale, margin = Self.margin * scale
        func label(_ item: Item, _ string: String, x: (Size) -> Int) -> SceneNode {
            let line = SceneLabel.cut(string)
            let size = text.size(of: line, pixelSize: px)
            let r = Rect(x: x(size), y: (bar - size.height) / 2, width: size.width, height: size.height)
            return SceneNode(key: .status(item), content: .chrome(.text(line, ink(at: r.x + r.width / 2), pixelSize: px)), imageRect: r, clip: r)
        }
        // The battery: a faint rounded track, the charge inside it, and the terminal's nub.
        let bw = Self.batterySize.width * scale, bh = Self.batterySize.height * scale
        let tip = Rect(x: screenWidth - margin - scale - max(1, scale), y: (bar - 4 * scale) / 2, width: 2 * scale, height: 4 * scale)
        let track = Rect(x: tip.x - bw, y: (bar - bh) / 2, width: bw, height: bh)
        let inset = 2 * scale
        let full = track.width - 2 * inset
        let charge = (battery ?? 0) == 0 ? 0 : max(scale, full * (battery ?? 0) / 100)
        let level = Rect(x: track.x + inset, y: track.y + inset, width: charge, height: track.height - 2 * inset)
        func piece(_ item: Item, _ r: Rect, _ alpha: UInt8) -> SceneNode {
            SceneNode(key: .status(item), content: .chrome(.pill(ink(at: track.x + track.width / 2), alpha: alpha)), imageRect: r, clip: r)
        }
        var nodes: [SceneNode] = []
        if !title.isEmpty { nodes.append(label(.device, title) { _ in margin }) }
        nodes.append(label(.time, time) { size in
            let centred = (screenWidth - size.width) / 2
            // Centred over the divider (the ½ split) the time would straddle two apps of
            // different brightness: it stands beside the divider, over the primary's pane.
            let clearance = 2 * Self.dividerClearance * scale
            guard trailing != nil, centred < trailingFrom, centred + size.width + clearance > trailingFrom else { return centred }
            return trailingFrom - size.width - clearance
        })
        if let battery {
            nodes.append(label(.battery, "\(battery)%") { track.x - 4 * scale - $0.width })
            nodes.append(piece(.batteryTrack, track, 90))
            if charge > 0 { nodes.append(piece(.batteryLevel, level, 255)) }
            nodes.append(piece(.batteryTip, tip, 90))
        }
        return nodes
    }
}

/// How big text is, for laying it out: the renderer's fonts answer it (FreeType in the
/// compositor; the bitmap font where there is none).
public protocol TextMetrics {
    /// The box `text` takes at `pixelSize` pixels to the em.
    func size(of text: String, pixelSize: Int) -> Size
}

/// The bitmap font's metrics: 7 font pixels to the em.
public struct BitmapMetrics: TextMetrics {
    public init() {}
    public func size(of text: String, pixelSize: Int) -> Size { BitmapFont.size(of: text, scale: Self.scale(pixelSize)) }
    public static func scale(_ pixelSize: Int) -> Int { max(1, pixelSize / BitmapFont.glyphHeight) }
}

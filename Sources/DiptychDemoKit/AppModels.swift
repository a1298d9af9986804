// SPDX-License-Identifier: MIT
// The demo apps' state and drawing: pattern (stateless), notes (strokes from touch and pen) and
// markets (a list with a detail view that collapses into one column when compact).

import DiptychCore
import DiptychImage
import DiptychWire

/// What an app knows about the surface it draws: pixel size, points-to-pixels scale and the
/// horizontal size class.
public struct Canvas: Sendable, Equatable {
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var scale: Int
    public var horizontalSizeClass: SizeClass

    public init(pixelWidth: Int, pixelHeight: Int, scale: Int, horizontalSizeClass: SizeClass) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = max(1, scale)
        self.horizontalSizeClass = horizontalSizeClass
    }

    var widthPoints: Double { Double(pixelWidth) / Double(scale) }

    /// The canvas of a pane: its pixel size, with the scale derived from its width in points.
    public init(frame: Rect, pixelWidth: Int, pixelHeight: Int, horizontalSizeClass: SizeClass) {
        self.init(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: frame.width > 0 ? pixelWidth / frame.width : 1, horizontalSizeClass: horizontalSizeClass)
    }

    /// The canvas a configure asks for.
    public init(_ c: Configure) {
        self.init(frame: c.frame, pixelWidth: c.pixelWidth, pixelHeight: c.pixelHeight, horizontalSizeClass: c.horizontalSizeClass)
    }
}

/// A demo app: input in pane-local points changes its state; it draws any canvas from that
/// state, so a snapshot at another size shows the same content.
public protocol DemoModel {
    /// Handles a touch; returns whether the app must redraw.
    mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool
    /// Handles a pen sample; returns whether the app must redraw.
    mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool
    /// The live canvas changed (a configure).
    mutating func resized(to canvas: Canvas)
    func draw(_ image: PixelImage, canvas: Canvas)
    /// A digest of everything the user made or chose, logged with `didBecomeActive`.
    var stateDigest: String { get }
    /// The status bar text it reads best under (asked for while it is the primary).
    var preferredStatusBarStyle: StatusBarStyle { get }
    /// Whether it plays a moving picture (then `play(at:)` moves it on the compositor's clock).
    var plays: Bool { get }
    /// Moves the picture to `time` (ms); returns whether it changed.
    mutating func play(at time: UInt64) -> Bool
    /// Whether the picture plays in a Picture in Picture window.
    var inPictureInPicture: Bool { get set }
    /// Draws the Picture in Picture window's buffer (or the second screen's).
    func drawPictureInPicture(_ image: PixelImage)
    /// Whether the picture plays on the second screen.
    var onSecondScreen: Bool { get set }
    /// Whether the picture is paused (from the Picture in Picture window's controls).
    var paused: Bool { get set }
    /// Handles a key of the app's (it has the keyboard focus): the keysym, the text it types,
    /// and whether it went down, came up or repeated; returns whether the app must redraw.
    mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool
    /// Handles the pointer in pane points beyond what the runner makes of it (its left button
    /// is a finger to every app): `button` (`pressed`) for a button, `dx`, `dy` for a scroll;
    /// returns whether the app must redraw.
    mutating func pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, canvas: Canvas) -> Bool
    /// The text field taking text now, if any (the runner tells the compositor when it changes).
    var textField: TextInputState? { get }
    /// Text the on-screen keyboard typed into the field; returns whether the app must redraw.
    mutating func commit(text: String) -> Bool
    /// The app lost the keyboard focus (its field stops taking text).
    mutating func lostKeyboardFocus() -> Bool
}

/// The keysyms the demo apps read (xkbcommon's values).
enum Keysym {
    static let backSpace: UInt32 = 0xFF08
    static let returnKey: UInt32 = 0xFF0D
    static let escape: UInt32 = 0xFF1B
    static let up: UInt32 = 0xFF52
    static let down: UInt32 = 0xFF54
}

extension DemoModel {
    public var preferredStatusBarStyle: StatusBarStyle { .dark }
    public var plays: Bool { false }
    public mutating func play(at time: UInt64) -> Bool { false }
    public var inPictureInPicture: Bool {
        get { false }
        set {}
    }
    public func drawPictureInPicture(_ image: PixelImage) {}
    public var onSecondScreen: Bool {
        get { false }
        set {}
    }
    public var paused: Bool {
        get { false }
        set {}
    }
    public mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool { false }
    public var textField: TextInputState? { nil }
    public mutating func commit(text: String) -> Bool { false }
    public mutating func lostKeyboardFocus() -> Bool { false }
    public mutating func pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, canvas: Canvas) -> Bool {
        false
    }
}

/// FNV-1a, 64-bit: a stable digest across runs and processes.
struct Digest {
    var value: UInt64 = 0xCBF2_9CE4_8422_2325
    mutating func add(_ v: Int) {
        var x = UInt64(bitPattern: Int64(v))
        for _ in 0..<8 {
            value = (value ^ (x & 0xFF)) &* 0x0000_0100_0000_01B3
            x >>= 8
        }
    }
    var hex: String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Draws `text` at (x, y) in image pixels (its capitals' top), as tall as the bitmap font's
/// capitals at `size` (7 × size pixels), in Inter (bold for titles).
func drawText(_ image: PixelImage, _ text: String, x: Int, y: Int, size: Int, color: RGB, bold: Bool = false) {
    DemoType.shared.draw(image, text, x: x, y: y, scale: max(1, size), color: color, bold: bold)
}

// MARK: - pattern

public struct PatternModel: DemoModel {
    public let color: RGB
    public init(color: RGB) { self.color = color }
    public mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool { false }
    public mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool { false }
    public mutating func resized(to canvas: Canvas) {}
    public func draw(_ image: PixelImage, canvas: Canvas) { PatternPainter.paint(image, color: color) }
    public var stateDigest: String { Digest().hex }
}

// MARK: - notes

// MARK: - markets

/// A list of symbols with a detail view: side by side when regular, and one column with the
/// detail pushed over the list when compact (a collapsing navigation stack).
public struct MarketsModel: DemoModel {
    /// A dark app: light status bar text.
    public var preferredStatusBarStyle: StatusBarStyle { .light }
    public static let symbols = [
        "AAPL", "MSFT", "GOOG", "AMZN", "NVDA", "META", "TSLA", "ORCL", "IBM", "INTC",
        "AMD", "CSCO", "ADBE", "CRM", "QCOM", "TXN", "AVGO", "NFLX", "PYPL", "SHOP",
    ]
    public private(set) var selection: Int?
    /// Compact only: the detail is pushed over the list.
    public private(set) var pushed = false
    /// The list's scroll offset in points.
    public private(set) var scroll = 0.0
    private var touchStart: [Int32: (x: Double, y: Double, scroll: Double, moved: Bool)] = [:]
    private var compact = false

    static let rowHeight = 44.0
    static let header = 56.0
    static let listWidth = 320.0
    static let background = RGB(red: 0x10, green: 0x18, blue: 0x28)
    static let rowColor = RGB(red: 0x1C, green: 0x28, blue: 0x3C)
    static let selected = RGB(red: 0x2F, green: 0x6F, blue: 0xD0)
    static let text = RGB(red: 0xE8, green: 0xEE, blue: 0xF6)
    static let up = RGB(red: 0x3C, green: 0xC8, blue: 0x78)
    static let down = RGB(red: 0xE0, green: 0x50, blue: 0x50)

    public init() {}

    static func price(_ i: Int) -> (cents: Int, change: Int) {
        ((i * 7919) % 90_000 + 1000, (i * 37) % 9 - 4)
    }

    public mutating func resized(to canvas: Canvas) {
        let nowCompact = canvas.horizontalSizeClass == .compact
        if nowCompact && !compact { pushed = selection != nil }  // collapse: the detail stays on top
        compact = nowCompact
    }

    public mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool {
        switch phase {
        case .down: return touch(id: .min, phase: .down, x: x, y: y, canvas: canvas)
        case .motion: return touch(id: .min, phase: .motion, x: x, y: y, canvas: canvas)
        case .up: return touch(id: .min, phase: .up, x: x, y: y, canvas: canvas)
        default: return false
        }
    }

    /// A scroll over the list scrolls it.
    public mutating func pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, canvas: Canvas) -> Bool {
        guard phase == .scroll, dy != 0, showsList(canvas), x < listColumnWidth(canvas) else { return false }
        let maxScroll = max(0, Double(Self.symbols.count) * Self.rowHeight - 300)
        let next = min(max(0, scroll + dy), maxScroll)
        guard next != scroll else { return false }
        scroll = next
        return true
    }

    /// ↑ and ↓ move the selection, Return shows it (compact), Escape goes back.
    public mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool {
        guard state != .released else { return false }
        let compactNow = canvas.horizontalSizeClass == .compact
        switch keysym {
        case Keysym.up, Keysym.down:
            let step = keysym == Keysym.up ? -1 : 1
            let next = min(max(0, (selection ?? (step > 0 ? -1 : Self.symbols.count)) + step), Self.symbols.count - 1)
            guard next != selection else { return false }
            selection = next
            // Keep the row in view.
            let top = Double(next) * Self.rowHeight, view = max(Self.rowHeight, Double(canvas.pixelHeight) / Double(canvas.scale) - Self.header)
            if top < scroll { scroll = top } else if top + Self.rowHeight > scroll + view { scroll = top + Self.rowHeight - view }
            return true
        case Keysym.returnKey where compactNow && selection != nil && !pushed:
            pushed = true
            return true
        case Keysym.escape where compactNow && pushed:
            pushed = false
            return true
        default:
            return false
        }
    }

    public mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool {
        switch phase {
        case .down:
            touchStart[id] = (x, y, scroll, false)
            return false
        case .motion:
            guard var t = touchStart[id] else { return false }
            if abs(y - t.y) > 12 { t.moved = true }
            touchStart[id] = t
            guard t.moved, showsList(canvas), x < listColumnWidth(canvas) else { return false }
            let maxScroll = max(0, Double(Self.symbols.count) * Self.rowHeight - 300)
            scroll = min(max(0, t.scroll - (y - t.y)), maxScroll)
            return true
        case .cancel:
            touchStart[id] = nil
            return false
        case .up:
            guard let t = touchStart.removeValue(forKey: id), !t.moved else { return false }
            return tap(x: x, y: y, canvas: canvas)
        }
    }

    func showsList(_ canvas: Canvas) -> Bool { canvas.horizontalSizeClass == .regular || !pushed }
    func listColumnWidth(_ canvas: Canvas) -> Double { canvas.horizontalSizeClass == .regular ? Self.listWidth : canvas.widthPoints }

    private mutating func tap(x: Double, y: Double, canvas: Canvas) -> Bool {
        let regular = canvas.horizontalSizeClass == .regular
        if !regular && pushed {
            if x < 60 && y < Self.header { pushed = false; return true }  // back
            return false
        }
        guard x < listColumnWidth(canvas), y >= Self.header else { return false }
        let row = Int(((y - Self.header + scroll) / Self.rowHeight).rounded(.down))
        guard row >= 0 && row < Self.symbols.count else { return false }
        selection = row
        if !regular { pushed = true }
        return true
    }

    public func draw(_ image: PixelImage, canvas: Canvas) {
        let s = canvas.scale
        image.fill(Rect(x: 0, y: 0, width: image.width, height: image.height), color: Self.background)
        let regular = canvas.horizontalSizeClass == .regular
        if regular {
            drawList(image, width: Int(Self.listWidth) * s, scale: s)
            image.fill(Rect(x: Int(Self.listWidth) * s, y: 0, width: max(1, s), height: image.height), color: Self.rowColor)
            drawDetail(image, x: Int(Self.listWidth) * s + s, width: image.width - Int(Self.listWidth) * s - s, scale: s, back: false)
        } else if pushed, selection != nil {
            drawDetail(image, x: 0, width: image.width, scale: s, back: true)
        } else {
            drawList(image, width: image.width, scale: s)
        }
    }

    private func drawList(_ image: PixelImage, width: Int, scale s: Int) {
        drawText(image, "Markets", x: 12 * s, y: 26 * s, size: 3 * s, color: Self.text, bold: true)
        let top = Int(Self.header) * s
        var y = top - Int(scroll) * s
        for (i, name) in Self.symbols.enumerated() {
            let h = Int(Self.rowHeight) * s
            if y + h > top && y < image.height {
                let row = Rect(x: 0, y: y, width: width, height: h - s)
                if let clipped = row.intersection(Rect(x: 0, y: top, width: width, height: image.height - top)) {
                    image.fill(clipped, color: i == selection ? Self.selected : Self.rowColor)
                }
                if y >= top {
                    drawText(image, name, x: 12 * s, y: y + 14 * s, size: 2 * s, color: Self.text, bold: true)
                    let p = Self.price(i)
                    let label = "\(p.cents / 100).\(p.cents % 100 < 10 ? "0" : "")\(p.cents % 100)"
                    let w = DemoType.shared.width(label, scale: 2 * s)
                    drawText(image, label, x: width - w - 12 * s, y: y + 14 * s, size: 2 * s, color: p.change >= 0 ? Self.up : Self.down)
                }
            }
            y += h
        }
    }

    private func drawDetail(_ image: PixelImage, x: Int, width: Int, scale s: Int, back: Bool) {
        if back { drawText(image, "<", x: x + 12 * s, y: 26 * s, size: 3 * s, color: Self.text) }
        guard let i = selection else {
            drawText(image, "No Selection", x: x + 24 * s, y: 120 * s, size: 2 * s, color: Self.rowColor)
            return
        }
        let p = Self.price(i)
        drawText(image, Self.symbols[i], x: x + 24 * s, y: 80 * s, size: 6 * s, color: Self.text, bold: true)
        drawText(image, "$\(p.cents / 100)", x: x + 24 * s, y: 140 * s, size: 4 * s, color: p.change >= 0 ? Self.up : Self.down)
        // A small deterministic chart of the last 24 sessions.
        let chartTop = 200 * s, chartHeight = 160 * s
        let bars = 24
        let barWidth = max(1, (width - 48 * s) / bars)
        var rects: [Rect] = []
        for b in 0..<bars {
            let v = ((i + 3) * (b + 5) * 7) % 100
            let h = max(s, chartHeight * (20 + v) / 120)
            rects.append(Rect(x: x + 24 * s + b * barWidth, y: chartTop + chartHeight - h, width: max(1, barWidth - s), height: h))
        }
        image.fill(rects, color: p.change >= 0 ? Self.up : Self.down)
    }

    public var stateDigest: String {
        var d = Digest()
        d.add(selection ?? -1)
        d.add(pushed ? 1 : 0)
        d.add(Int((scroll * 4).rounded()))
        return d.hex
    }
}

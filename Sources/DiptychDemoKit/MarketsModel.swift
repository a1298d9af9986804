// SPDX-License-Identifier: MIT
// markets: a list of symbols with a detail view that collapses into one column when compact, and
// a search field that filters the list.

import DiptychCore
import DiptychImage
import DiptychWire

/// A list of symbols with a detail view: side by side when regular, and one column with the
/// detail pushed over the list when compact (a collapsing navigation stack). A search field in
/// the header filters the list as it is typed into (a tap on it raises the on-screen keyboard;
/// the list scrolls far enough that its last rows show above the keyboard).
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
    /// What the search field holds (capitals and digits, at most 8), and whether it takes text.
    public private(set) var query = ""
    public private(set) var searching = false
    /// How far the on-screen keyboard reaches up the pane (points), while it shows.
    private var keyboardCover = 0.0
    private var paneHeight = 0.0
    /// The rows the list shows: the symbols holding the query.
    var rows: [Int] { query.isEmpty ? Array(Self.symbols.indices) : Self.symbols.indices.filter { Self.symbols[$0].contains(query) } }
    /// The search field, in points (x from the list column's right).
    static let field = (x: 136.0, y: 24.0, height: 26.0, right: 12.0)

    static let rowHeight = 44.0
    static let header = 56.0
    static let listWidth = 320.0
    static let background = RGB(red: 0x10, green: 0x18, blue: 0x28)
    static let rowColor = RGB(red: 0x1C, green: 0x28, blue: 0x3C)
    static let selected = RGB(red: 0x2F, green: 0x6F, blue: 0xD0)
    static let text = RGB(red: 0xE8, green: 0xEE, blue: 0xF6)
    static let up = RGB(red: 0x3C, green: 0xC8, blue: 0x78)
    static let down = RGB(red: 0xE0, green: 0x50, blue: 0x50)
    static let dim = RGB(red: 0x6E, green: 0x7C, blue: 0x92)

    public init() {}

    static func price(_ i: Int) -> (cents: Int, change: Int) {
        ((i * 7919) % 90_000 + 1000, (i * 37) % 9 - 4)
    }

    public mutating func resized(to canvas: Canvas) {
        let nowCompact = canvas.horizontalSizeClass == .compact
        if nowCompact && !compact { pushed = selection != nil }  // collapse: the detail stays on top
        compact = nowCompact
        paneHeight = Double(canvas.pixelHeight) / Double(canvas.scale)
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
        let next = min(max(0, scroll + dy), maxScroll)
        guard next != scroll else { return false }
        scroll = next
        return true
    }

    /// ↑ and ↓ move the selection, Return shows it (compact), Escape goes back.
    public mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool {
        guard state != .released else { return false }
        let compactNow = canvas.horizontalSizeClass == .compact
        if searching {
            switch keysym {
            case Keysym.backSpace:
                guard !query.isEmpty else { return false }
                query.removeLast()
                scroll = min(scroll, maxScroll)
                return true
            case Keysym.returnKey:
                searching = false
                return true
            default:
                if !text.isEmpty { return commit(text: text) }
            }
        }
        switch keysym {
        case Keysym.up, Keysym.down:
            let step = keysym == Keysym.up ? -1 : 1, shown = rows
            guard !shown.isEmpty else { return false }
            let at = selection.flatMap { shown.firstIndex(of: $0) }
            let next = min(max(0, (at ?? (step > 0 ? -1 : shown.count)) + step), shown.count - 1)
            guard shown[next] != selection else { return false }
            selection = shown[next]
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

    /// How far the list scrolls: until 300 pt of it are left, or further while the keyboard
    /// covers the pane's bottom, until its last row shows above the keyboard.
    var maxScroll: Double {
        let content = Double(rows.count) * Self.rowHeight
        return max(0, content - 300, content - (paneHeight - Self.header - keyboardCover))
    }

    func showsList(_ canvas: Canvas) -> Bool { canvas.horizontalSizeClass == .regular || !pushed }
    func listColumnWidth(_ canvas: Canvas) -> Double { canvas.horizontalSizeClass == .regular ? Self.listWidth : canvas.widthPoints }

    private mutating func tap(x: Double, y: Double, canvas: Canvas) -> Bool {
        let regular = canvas.horizontalSizeClass == .regular
        if !regular && pushed {
            if x < 60 && y < Self.header { pushed = false; return true }  // back
            return false
        }
        let f = Self.field
        if y >= f.y && y < f.y + f.height && x >= f.x && x < listColumnWidth(canvas) - f.right {
            guard !searching else { return false }
            searching = true
            return true
        }
        guard x < listColumnWidth(canvas), y >= Self.header else { return false }
        let row = Int(((y - Self.header + scroll) / Self.rowHeight).rounded(.down))
        let shown = rows
        guard row >= 0 && row < shown.count else { return false }
        selection = shown[row]
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
        drawField(image, width: width, scale: s)
        var y = top - Int(scroll) * s
        for i in rows {
            let name = Self.symbols[i], h = Int(Self.rowHeight) * s
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

    /// The search field right of the title: the query and a caret while it takes text, else a
    /// placeholder (or the query, dimmed).
    private func drawField(_ image: PixelImage, width: Int, scale s: Int) {
        let f = Self.field
        let box = Rect(x: Int(f.x) * s, y: Int(f.y) * s, width: width - Int(f.x + f.right) * s, height: Int(f.height) * s)
        guard box.width > 24 * s else { return }
        image.fill(box, color: searching ? Self.selected : Self.rowColor)
        image.fill(Rect(x: box.x + s, y: box.y + s, width: box.width - 2 * s, height: box.height - 2 * s), color: Self.rowColor)
        let label = searching ? query + "_" : query.isEmpty ? "Search" : query
        drawText(image, label, x: box.x + 8 * s, y: box.y + 6 * s, size: 2 * s, color: searching || !query.isEmpty ? Self.text : Self.dim)
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

    // MARK: the search field's text input

    public var textField: TextInputState? {
        guard searching else { return nil }
        // The caret after the query (its glyphs are about 11 pt wide at this size).
        let caret = (x: Self.field.x + 8 + 11 * Double(query.count), y: Self.field.y + 3, width: 2.0, height: Self.field.height - 6)
        return TextInputState(enabled: true, purpose: .search, hints: [.capitalizeAll, .noAutocorrect], returnKey: .search, caret: caret, surrounding: query)
    }

    /// Typed letters and digits join the query, as capitals (a symbol has at most 8).
    public mutating func commit(text: String) -> Bool {
        let kept = text.uppercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard !kept.isEmpty, query.count < 8 else { return false }
        query += kept.prefix(8 - query.count)
        scroll = 0
        return true
    }

    public mutating func lostKeyboardFocus() -> Bool {
        guard searching else { return false }
        searching = false
        return true
    }

    public mutating func keyboard(_ k: KeyboardFrame) -> Bool {
        // (The frame is in the pane's points: what of it lies over the pane.)
        keyboardCover = k.frame.height > 0 ? max(0, paneHeight - Double(k.frame.y)) : 0
        scroll = min(scroll, maxScroll)
        return false
    }

    public var stateDigest: String {
        var d = Digest()
        d.add(selection ?? -1)
        d.add(pushed ? 1 : 0)
        d.add(Int((scroll * 4).rounded()))
        for b in query.utf8 { d.add(Int(b)) }
        return d.hex
    }
}

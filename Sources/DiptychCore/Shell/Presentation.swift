// SPDX-License-Identifier: MIT
// A menu or an alert the compositor shows for an app, as the iPad does: a menu is a popover
// anchored at a rectangle of the pane (a sheet from the bottom in a compact pane), its rows
// scrolled with a finger and chosen with a tap, gone at a tap outside it; an alert is centred in
// the pane (above the keyboard when its field takes text), dims the pane and takes every touch
// in it until a button is tapped. Its geometry is laid out here in screen points; the compositor
// draws it. A value: touches in, answers out.

/// What the user did with a menu or an alert.
public enum PresentationAnswer: Equatable, Sendable {
    case chosen(id: UInt32, index: Int)
    case answered(id: UInt32, button: Int, text: String)
    case dismissed(id: UInt32)
}

/// The sizes a presentation is laid out with (points), after UIKit's.
public enum PresentationMetrics {
    public static let rowHeight = 44.0
    public static let titleHeight = 34.0
    public static let popoverWidth = 320.0
    public static let margin = 16.0
    public static let gap = 8.0
    public static let corner = 13.0
    public static let alertWidth = 270.0
    public static let alertCorner = 14.0
    public static let buttonHeight = 44.0
    public static let fieldHeight = 30.0
    public static let labelSize = 17.0
    public static let smallSize = 13.0
    public static let messageLine = 18.0
    /// The most lines of an alert's message shown (the rest cut).
    public static let messageLines = 8
}

public struct Presentation: Sendable {
    public enum Content: Sendable, Equatable {
        case menu(MenuRequest)
        case alert(AlertRequest)
    }

    public let owner: AppID
    public let content: Content
    /// How far a menu's list is scrolled (points).
    public private(set) var scroll = 0.0
    /// The alert field's text.
    public private(set) var text: String
    /// The row or button under a finger now (drawn pressed).
    public private(set) var pressed: Int?
    private var contact: Contact?
    private var start = (x: 0.0, y: 0.0, scroll: 0.0)
    private var scrolling = false

    public init(owner: AppID, content: Content) {
        self.owner = owner
        self.content = content
        if case .alert(let a) = content { text = a.text } else { text = "" }
        // A long menu opens scrolled to its selected item (two rows above it in sight).
        if case .menu(let m) = content, let i = m.items.firstIndex(where: { $0.flags.contains(.selected) }) {
            scroll = Double(max(0, i - 2)) * PresentationMetrics.rowHeight
        }
    }

    public var id: UInt32 {
        switch content {
        case .menu(let m): m.id
        case .alert(let a): a.id
        }
    }

    /// Whether it is an alert (else a menu).
    public var isAlert: Bool {
        if case .alert = content { return true }
        return false
    }

    /// Whether it is an alert with a text field (the keyboard types into it).
    public var takesText: Bool {
        if case .alert(let a) = content { return a.field != .none }
        return false
    }

    // MARK: - Geometry

    /// Where it is drawn: the menu's or alert's rectangle, its list (a menu's rows, scrolled),
    /// the alert's field and buttons, all in screen points.
    public struct Layout: Equatable, Sendable {
        public var frame: RectD
        /// Dimmed behind it (an alert's pane, a sheet's): nil for a popover.
        public var dims: RectD?
        public var sheet: Bool
        public var title: RectD?
        public var list: RectD
        public var contentHeight: Double
        public var messageLines: [String]
        public var message: RectD?
        public var field: RectD?
        public var buttons: [RectD]
    }

    /// Lays it out in `pane` (screen points) below `top` (the status bar's band), above
    /// `bottom` (the keyboard's top, when an alert's field takes text); `compact` for a compact
    /// pane; `width(text, size)` measures a line in points.
    public func layout(pane: RectD, top: Double, bottom: Double?, compact: Bool, width: (String, Double) -> Double) -> Layout {
        typealias M = PresentationMetrics
        let usableTop = max(pane.y, top), usableBottom = min(pane.maxY, bottom ?? pane.maxY)
        switch content {
        case .menu(let m):
            let titleH = m.title.isEmpty ? 0 : M.titleHeight
            let contentH = Double(m.items.count) * M.rowHeight
            if compact {
                // A sheet from the bottom of the pane, at most 60% of it.
                let w = pane.width - 2 * M.gap
                let h = min(titleH + contentH, (usableBottom - usableTop) * 0.6)
                let f = RectD(x: pane.x + M.gap, y: usableBottom - M.gap - h, width: w, height: h)
                return Layout(frame: f, dims: pane, sheet: true, title: titleH > 0 ? RectD(x: f.x, y: f.y, width: w, height: titleH) : nil,
                              list: RectD(x: f.x, y: f.y + titleH, width: w, height: h - titleH), contentHeight: contentH,
                              messageLines: [], message: nil, field: nil, buttons: [])
            }
            let w = min(M.popoverWidth, pane.width - 2 * M.margin)
            let a = RectD(m.anchor).offset(pane.x, pane.y)
            let below = usableBottom - M.margin - (a.maxY + M.gap), above = a.y - M.gap - (usableTop + M.margin)
            let want = titleH + contentH
            let goesBelow = below >= min(want, 4 * M.rowHeight) || below >= above
            let h = max(min(want, goesBelow ? below : above), min(want, M.rowHeight))
            let y = goesBelow ? a.maxY + M.gap : a.y - M.gap - h
            let x = min(max(a.x + a.width / 2 - w / 2, pane.x + M.margin), pane.maxX - M.margin - w)
            let f = RectD(x: x, y: y, width: w, height: h)
            return Layout(frame: f, dims: nil, sheet: false, title: titleH > 0 ? RectD(x: x, y: y, width: w, height: titleH) : nil,
                          list: RectD(x: x, y: y + titleH, width: w, height: h - titleH), contentHeight: contentH,
                          messageLines: [], message: nil, field: nil, buttons: [])
        case .alert(let a):
            let w = min(M.alertWidth, pane.width - 2 * M.margin), inner = w - 32
            let lines = Array(Presentation.wrap(a.message, width: inner, size: M.smallSize, measure: width).prefix(M.messageLines))
            var h = 20.0
            let titleH = a.title.isEmpty ? 0 : 22.0
            h += titleH
            let messageH = Double(lines.count) * M.messageLine
            h += (titleH > 0 && messageH > 0 ? 2 : 0) + messageH
            let fieldY = h + 12
            if a.field != .none { h = fieldY + M.fieldHeight }
            h += 20
            let stacked = a.buttons.count > 2
            let buttonsH = stacked ? Double(a.buttons.count) * M.buttonHeight : M.buttonHeight
            let f = RectD(x: pane.x + (pane.width - w) / 2, y: max(usableTop, usableTop + (usableBottom - usableTop - h - buttonsH) / 2), width: w, height: h + buttonsH)
            var buttons: [RectD] = []
            for i in a.buttons.indices {
                if stacked {
                    buttons.append(RectD(x: f.x, y: f.y + h + Double(i) * M.buttonHeight, width: w, height: M.buttonHeight))
                } else {
                    let bw = w / Double(a.buttons.count)
                    buttons.append(RectD(x: f.x + Double(i) * bw, y: f.y + h, width: bw, height: M.buttonHeight))
                }
            }
            return Layout(frame: f, dims: pane, sheet: false, title: titleH > 0 ? RectD(x: f.x + 16, y: f.y + 20, width: inner, height: titleH) : nil,
                          list: RectD(x: f.x, y: f.y, width: 0, height: 0), contentHeight: 0, messageLines: lines,
                          message: messageH > 0 ? RectD(x: f.x + 16, y: f.y + 20 + titleH + (titleH > 0 ? 2 : 0), width: inner, height: messageH) : nil,
                          field: a.field != .none ? RectD(x: f.x + 16, y: f.y + fieldY, width: inner, height: M.fieldHeight) : nil, buttons: buttons)
        }
    }

    /// `text` broken into lines no wider than `width` at words (a word wider than a line is
    /// cut by characters), at newlines too. It stops past `PresentationMetrics.messageLines`
    /// lines (the rest is never shown), so its cost is bounded by what shows, not by the text:
    /// a word is measured whole only when it could fit (a line holds at most `width / size * 8`
    /// characters: no glyph of Inter is narrower than an eighth of its size).
    public static func wrap(_ text: String, width: Double, size: Double, measure: (String, Double) -> Double) -> [String] {
        var lines: [String] = []
        let limit = PresentationMetrics.messageLines
        let fitting = max(1, Int(width / max(size, 1) * 8))
        paragraphs: for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.count + 1 + min(word.count, fitting + 1) <= fitting {
                    let next = line.isEmpty ? String(word) : line + " " + word
                    if measure(next, size) <= width { line = next; continue }
                }
                if !line.isEmpty { lines.append(line) }
                line = ""
                if lines.count > limit { break paragraphs }
                for ch in word {
                    // (A line never holds more than fit: characters of no width cannot make
                    // one grow without end.)
                    if !line.isEmpty, line.count >= fitting || measure(line + String(ch), size) > width {
                        lines.append(line)
                        line = ""
                        if lines.count > limit { break paragraphs }
                    }
                    line.append(ch)
                }
            }
            lines.append(line)
            if lines.count > limit { break }
        }
        return lines
    }

    /// The rows of a menu drawn in `layout` now: their indices and rectangles (only those in
    /// sight: a list of 10,000 draws a dozen).
    public func visibleRows(in layout: Layout) -> [(index: Int, frame: RectD)] {
        guard case .menu(let m) = content, !m.items.isEmpty else { return [] }
        let h = PresentationMetrics.rowHeight, scroll = offset(in: layout)
        let first = max(0, Int(scroll / h)), last = min(m.items.count - 1, Int((scroll + layout.list.height) / h))
        guard first <= last else { return [] }
        return (first...last).map { ($0, RectD(x: layout.list.x, y: layout.list.y + Double($0) * h - scroll, width: layout.list.width, height: h)) }
    }

    /// How far the list is scrolled in `layout`: kept within the list.
    public func offset(in layout: Layout) -> Double { min(max(0, scroll), max(0, layout.contentHeight - layout.list.height)) }

    /// Keeps the scroll within the list (after a layout changed its height).
    public mutating func clampScroll(_ layout: Layout) { scroll = offset(in: layout) }

    // MARK: - Input

    /// A contact in `layout` (screen points): nil when it is none of the presentation's (a
    /// touch outside an alert's pane or a popover passes on), else what it answered (if
    /// anything). A touch down outside a menu dismisses it and is taken.
    public mutating func touch(_ c: Contact, phase: TouchPhase, x: Double, y: Double, layout: Layout, pane: RectD) -> PresentationAnswer?? {
        if phase == .down {
            guard contact == nil else { return .some(nil) }
            let inside = layout.frame.contains(x, y)
            switch content {
            case .menu(let m):
                if !inside {
                    // Outside a popover: dismissed; the touch is the popover's only within its
                    // app's pane (the other app still gets its own).
                    return pane.contains(x, y) ? .some(.dismissed(id: m.id)) : nil
                }
            case .alert:
                guard pane.contains(x, y) else { return nil }
            }
            contact = c
            start = (x, y, scroll)
            scrolling = false
            pressed = target(x, y, layout)
            return .some(nil)
        }
        guard contact == c else { return nil }
        switch phase {
        case .motion:
            if case .menu = content {
                if !scrolling, abs(y - start.y) > GestureMetrics.tapSlop { scrolling = true }
                if scrolling {
                    scroll = start.scroll - (y - start.y)
                    clampScroll(layout)
                    pressed = nil
                    return .some(nil)
                }
            }
            pressed = target(x, y, layout) == pressed ? pressed : nil
            return .some(nil)
        case .up:
            defer { contact = nil; pressed = nil }
            guard !scrolling, let p = pressed, target(x, y, layout) == p else { return .some(nil) }
            switch content {
            case .menu(let m): return .some(.chosen(id: m.id, index: p))
            case .alert(let a): return .some(.answered(id: a.id, button: p, text: text))
            }
        default:
            contact = nil
            pressed = nil
            return .some(nil)
        }
    }

    /// The choosable row or the button at (x, y), if any.
    private func target(_ x: Double, _ y: Double, _ layout: Layout) -> Int? {
        switch content {
        case .menu(let m):
            guard layout.list.contains(x, y) else { return nil }
            let i = Int((y - layout.list.y + offset(in: layout)) / PresentationMetrics.rowHeight)
            return m.items.indices.contains(i) && m.items[i].choosable ? i : nil
        case .alert:
            return layout.buttons.firstIndex { $0.contains(x, y) }
        }
    }

    // MARK: - The alert's field

    /// Text the keyboard typed into the alert's field (bounded as the wire's field).
    public mutating func type(_ s: String) {
        guard takesText else { return }
        var t = text + s
        while t.utf8.count > AlertRequest.labelBytes { t.removeLast() }
        text = t
    }

    /// Deletes `count` characters before the end.
    public mutating func deleteBackward(_ count: Int = 1) {
        guard takesText else { return }
        text.removeLast(min(count, text.count))
    }

    /// The answer to return in its field (or Enter): the last button that is not Cancel.
    public var returnAnswer: PresentationAnswer? {
        guard case .alert(let a) = content else { return nil }
        let i = a.buttons.lastIndex { $0.style != .cancel } ?? a.buttons.count - 1
        return .answered(id: a.id, button: i, text: text)
    }

    /// The answer to Escape: a menu's dismissal, an alert's Cancel button (if it has one).
    public var escapeAnswer: PresentationAnswer? {
        switch content {
        case .menu(let m): return .dismissed(id: m.id)
        case .alert(let a): return a.buttons.firstIndex { $0.style == .cancel }.map { .answered(id: a.id, button: $0, text: text) }
        }
    }
}

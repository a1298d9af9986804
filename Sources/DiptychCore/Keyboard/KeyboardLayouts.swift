// SPDX-License-Identifier: MIT
// The on-screen keyboard's keys: the iPad 9.7″ layout (US English) on every device — letters,
// numbers (`123`) and symbols (`#+=`), with the email and url variants of the bottom row —
// placed in points. Keys are laid out in units: every row is 11.5 units wide (a letter key is
// one), stretched to the screen's width; 4 rows share the keys' height. Written down in the
// README beside a screenshot.

/// Which set of keys shows.
public enum KeyboardLayout: String, Sendable, CaseIterable {
    case letters, numbers, symbols
    /// Only the bar (after a hardware keyboard typed), with a key that brings the keys back.
    case shortcutBar
}

/// The bottom row's variant, and the layout a field opens on, by its purpose.
public enum KeyboardVariant: String, Sendable, CaseIterable {
    case `default`, email, url, number, phone

    public init(_ purpose: TextPurpose) {
        switch purpose {
        case .email: self = .email
        case .url: self = .url
        case .number, .digits: self = .number
        case .phone: self = .phone
        case .text, .password, .search: self = .default
        }
    }

    /// The layout a field of this variant opens on.
    public var firstLayout: KeyboardLayout { self == .number || self == .phone ? .numbers : .letters }
}

/// Shift: off, on for the next letter, or locked (caps lock).
public enum ShiftState: String, Sendable {
    case off, on, locked
}

/// Light keys on light grey, or dark (the focused app's status bar style says which).
public enum KeyboardAppearance: String, Sendable {
    case light, dark
}

/// One key: where it is (points from the keys' top left), what it shows and what it does.
public struct KeyboardKey: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        /// Types `text` (a letter is typed in capitals while shift is on).
        case text(String)
        case delete
        case `return`
        case shift
        case space
        /// Switches to another layout.
        case layout(KeyboardLayout)
        /// Hides the keyboard (the bar's key).
        case dismiss
        /// The bar's ‹ and ›: the field before or after in the form (Shift+Tab, Tab).
        case previousField, nextField
        /// Shows the keys in place of the shortcut bar (its key).
        case showKeys
        /// The globe key: the next of the keyboard's languages.
        case nextLanguage
    }

    public var frame: Rect
    public var label: String
    public var action: Action
    /// A function key (grey), not a character key (white in the light appearance).
    public var function: Bool
}

/// The keyboard's measures, in points.
public enum KeyboardMetrics {
    /// The keys' height on a 1024 × 768 pt screen: landscape, portrait.
    public static let keysHeight = (landscape: 352, portrait: 264)
    /// The bar above the keys.
    public static let barHeight = (landscape: 46, portrait: 40)
    /// Only the bar, after a hardware keyboard typed.
    public static let shortcutBarHeight = 55
    /// Row width in units (a letter key is one).
    public static let rowUnits = 11.5
    /// Gap between keys and margins at the sides, top and bottom: landscape, portrait.
    public static let gap = (landscape: 12, portrait: 10)
    public static let margin = (landscape: 6, portrait: 4)
    public static let cornerRadius = 5
    /// Label sizes: a character, a function key's word.
    public static let characterSize = 24
    public static let wordSize = 17

    /// The keys' height on a screen of `screen` points: the iPad's, capped at half the screen.
    public static func keysHeight(screen: Size, orientation: Orientation) -> Int {
        min(orientation == .landscape ? keysHeight.landscape : keysHeight.portrait, screen.height / 2)
    }

    public static func barHeight(_ orientation: Orientation) -> Int { orientation == .landscape ? barHeight.landscape : barHeight.portrait }

    /// The whole keyboard (bar and keys) docked at the bottom of a screen of `screen` points.
    public static func frame(screen: Size, orientation: Orientation, layout: KeyboardLayout) -> Rect {
        let h = layout == .shortcutBar ? shortcutBarHeight : barHeight(orientation) + keysHeight(screen: screen, orientation: orientation)
        return Rect(x: 0, y: screen.height - h, width: screen.width, height: h)
    }
}

extension KeyboardLayout {
    private typealias Row = [(label: String, units: Double, action: KeyboardKey.Action, function: Bool)]

    private static func chars(_ s: String) -> Row { s.map { (String($0), 1, .text(String($0)), false) } }
    private static let delete: (String, Double, KeyboardKey.Action, Bool) = ("⌫", 1.5, .delete, true)
    private static func ret(_ key: ReturnKey) -> (String, Double, KeyboardKey.Action, Bool) {
        (key == .default ? "return" : key.name, 2, .return, true)
    }

    /// The rows of keys (without the half-unit indent, which has no key), in `language`.
    private func rows(variant: KeyboardVariant, returnKey: ReturnKey, language: KeyboardLanguage, globe: Bool) -> [Row] {
        let wide = { (label: String, to: KeyboardLayout) -> (String, Double, KeyboardKey.Action, Bool) in (label, 1.75, .layout(to), true) }
        var bottom: Row
        switch (self, variant) {
        case (.letters, .email):
            bottom = [wide(".?123", .numbers), ("space", 5, .space, false), ("@", 1.5, .text("@"), false), (".", 1.5, .text("."), false), wide(".?123", .numbers)]
        case (.letters, .url):
            bottom = [wide(".?123", .numbers), ("space", 3, .space, false), ("/", 1.5, .text("/"), false), (".com", 2, .text(".com"), false), (".", 1.5, .text("."), false), wide(".?123", .numbers)]
        case (.letters, _):
            bottom = [wide(".?123", .numbers), ("space", 8, .space, false), wide(".?123", .numbers)]
        default:
            bottom = [wide("ABC", .letters), ("space", 8, .space, false), wide("ABC", .letters)]
        }
        // With more than one language, the globe key left of the space bar (the bar gives way;
        // the painter draws the globe).
        if globe, let space = bottom.firstIndex(where: { $0.action == .space }) {
            bottom[space].units -= 1.25
            bottom.insert(("🌐", 1.25, .nextLanguage, true), at: space)
        }
        switch self {
        case .letters:
            let letters = language.letters
            return [
                Self.chars(letters[0]) + [Self.delete],
                Self.chars(letters[1]) + [Self.ret(returnKey)],
                [("⇧", 1, .shift, true)] + Self.chars(letters[2] + ",.") + [("⇧", 1.5, .shift, true)],
                bottom,
            ]
        case .numbers:
            // (The language's currency where US English has the dollar.)
            return [
                Self.chars("1234567890") + [Self.delete],
                Self.chars("-/:;()") + [(language.currency, 1, .text(language.currency), false)] + Self.chars("&@") + [Self.ret(returnKey)],
                [("#+=", 1.5, .layout(.symbols), true)] + ".,?!'\"".map { (String($0), 1.25, .text(String($0)), false) } + [("#+=", 2.5, .layout(.symbols), true)],
                bottom,
            ]
        case .symbols:
            return [
                Self.chars("[]{}#%^*+=") + [Self.delete],
                Self.chars("_\\|~<>" + "€£¥".map { String($0) == language.currency ? "$" : String($0) }.joined()) + [Self.ret(returnKey)],
                [("123", 1.5, .layout(.numbers), true)] + ".,?!'\"".map { (String($0), 1.25, .text(String($0)), false) } + [("123", 2.5, .layout(.numbers), true)],
                bottom,
            ]
        case .shortcutBar:
            return []
        }
    }

    /// The keys of this layout on keys `size` points large (the keys' area, below the bar), a
    /// letter's label in capitals when `capitals`.
    public func keys(
        variant: KeyboardVariant, returnKey: ReturnKey, capitals: Bool, size: Size, orientation: Orientation, language: KeyboardLanguage = .us,
        globe: Bool = false
    ) -> [KeyboardKey] {
        let gap = orientation == .landscape ? KeyboardMetrics.gap.landscape : KeyboardMetrics.gap.portrait
        let margin = orientation == .landscape ? KeyboardMetrics.margin.landscape : KeyboardMetrics.margin.portrait
        var rows = rows(variant: variant, returnKey: returnKey, language: language, globe: globe)
        // A language with more letter keys than US English (QWERTZ's ü ö ä, å ø æ) narrows
        // every key: the rows are as wide as the widest; the second row keeps its half-unit
        // indent where it still fits, and in a shorter row the space bar, else both shift keys,
        // else the last key takes the rest.
        let widths = rows.map { $0.reduce(0) { $0 + $1.units } }
        let rowUnits = max(KeyboardMetrics.rowUnits, widths.max() ?? 0)
        let indent = widths.count > 1 && widths[1] + 0.5 <= rowUnits ? 0.5 : 0
        for r in rows.indices where !rows[r].isEmpty {
            let rest = rowUnits - widths[r] - (r == 1 ? indent : 0)
            guard rest > 0.001 else { continue }
            let growing = rows[r].indices.filter { rows[r][$0].action == .space }.nonEmpty
                ?? rows[r].indices.filter { rows[r][$0].action == .shift }.nonEmpty ?? [rows[r].count - 1]
            for i in growing { rows[r][i].units += rest / Double(growing.count) }
        }
        let unit = Double(size.width - 2 * margin) / rowUnits
        let pitch = Double(size.height - 2 * margin) / 4
        var keys: [KeyboardKey] = []
        for (r, row) in rows.enumerated() {
            // The second row of letters, numbers and symbols starts half a unit in.
            var at = r == 1 ? indent : 0
            let y0 = Double(margin) + pitch * Double(r)
            for k in row {
                let x0 = Double(margin) + at * unit, x1 = Double(margin) + (at + k.units) * unit
                at += k.units
                // Shifted, a letter is a capital, and the comma and full stop are ! and ? (the
                // iPad 9.7″'s keys show both).
                var label = k.label, action = k.action
                if capitals, case .text(let t) = action, t.count == 1, self == .letters {
                    let shifted = t == "," ? "!" : t == "." ? "?" : t.uppercased()
                    (label, action) = (shifted, .text(shifted))
                }
                let frame = Rect(
                    x: Int((x0 + Double(gap) / 2).rounded()), y: Int((y0 + Double(gap) / 2).rounded()),
                    width: Int((x1 - x0 - Double(gap)).rounded()), height: Int((pitch - Double(gap)).rounded()))
                keys.append(KeyboardKey(frame: frame, label: label, action: action, function: k.function))
            }
        }
        return keys
    }
}

extension Array {
    /// The array, or nil when it is empty.
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}

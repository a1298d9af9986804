// SPDX-License-Identifier: MIT
// Menus and alerts an app asks the compositor to show for it (`presentMenu`, `presentAlert`):
// what they say, as the wire carries them. The compositor draws them (one look for every app,
// native or web) and answers with the item or button chosen, or with `dismissed`.

/// How a menu item shows.
public struct MenuItemFlags: OptionSet, Sendable, Hashable, BitwiseCopyable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The item chosen now: a checkmark beside it.
    public static let selected = MenuItemFlags(rawValue: 1)
    /// Greyed out; a tap on it does nothing.
    public static let disabled = MenuItemFlags(rawValue: 2)
    /// A group's heading (an `<optgroup>`): small grey capitals, never chosen.
    public static let header = MenuItemFlags(rawValue: 4)
    /// An item of a group: set in under its heading.
    public static let indented = MenuItemFlags(rawValue: 8)
    public static let known: MenuItemFlags = [.selected, .disabled, .header, .indented]
}

/// One row of a menu.
public struct MenuItem: Sendable, Hashable {
    public var label: String
    public var flags: MenuItemFlags
    public init(_ label: String, flags: MenuItemFlags = []) {
        self.label = label
        self.flags = flags
    }
    /// Whether a tap on it chooses it.
    public var choosable: Bool { !flags.contains(.disabled) && !flags.contains(.header) }
}

/// A menu as an app asked for it: anchored at a rectangle of its pane (points).
public struct MenuRequest: Sendable, Equatable {
    public var id: UInt32
    public var anchor: Rect
    public var title: String
    public var items: [MenuItem]
    public init(id: UInt32, anchor: Rect, title: String, items: [MenuItem]) {
        self.id = id
        self.anchor = anchor
        self.title = title
        self.items = items
    }
}

/// One `presentMenu` message: a menu is sent in pieces of at most `MenuLimits.itemsPerMessage`
/// items (`first` counts the items sent before), shown once all `total` arrived.
public struct MenuPiece: Sendable, Equatable {
    public var id: UInt32
    public var anchor: Rect
    public var title: String
    public var total: UInt32
    public var first: UInt32
    public var items: [MenuItem]
    public init(id: UInt32, anchor: Rect, title: String, total: UInt32, first: UInt32, items: [MenuItem]) {
        self.id = id
        self.anchor = anchor
        self.title = title
        self.total = total
        self.first = first
        self.items = items
    }
}

/// What bounds a menu (what an app can make the compositor hold).
public enum MenuLimits {
    /// The most items of one menu (a `<select>` of more shows its first this many).
    public static let items = 10_000
    /// The most items one message carries.
    public static let itemsPerMessage = 1_000
    /// The longest label, in bytes of UTF-8.
    public static let labelBytes = 256
}

/// How an alert's button reads.
public enum AlertButtonStyle: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    /// Blue.
    case `default` = 0
    /// Blue and bold; Escape chooses it.
    case cancel
    /// Red.
    case destructive

    public var name: String {
        switch self {
        case .default: "default"
        case .cancel: "cancel"
        case .destructive: "destructive"
        }
    }
}

public struct AlertButton: Sendable, Hashable {
    public var label: String
    public var style: AlertButtonStyle
    public init(_ label: String, style: AlertButtonStyle = .default) {
        self.label = label
        self.style = style
    }
}

/// An alert's text field, if it has one.
public enum AlertField: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    case none = 0
    case text
    /// A password: drawn as dots.
    case secure

    public var name: String {
        switch self {
        case .none: "none"
        case .text: "text"
        case .secure: "secure"
        }
    }
}

/// An alert as an app asked for it: centred in its pane.
public struct AlertRequest: Sendable, Equatable {
    public var id: UInt32
    public var title: String
    public var message: String
    public var field: AlertField
    public var placeholder: String
    /// The field's text when the alert shows.
    public var text: String
    public var buttons: [AlertButton]
    public init(id: UInt32, title: String, message: String, field: AlertField = .none, placeholder: String = "", text: String = "", buttons: [AlertButton]) {
        self.id = id
        self.title = title
        self.message = message
        self.field = field
        self.placeholder = placeholder
        self.text = text
        self.buttons = buttons
    }

    /// The most buttons an alert has.
    public static let buttonLimit = 4
    /// The longest button label and field text, in bytes of UTF-8.
    public static let labelBytes = 256
}

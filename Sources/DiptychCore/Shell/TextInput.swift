// SPDX-License-Identifier: MIT
// Text input as apps ask for it and as the on-screen keyboard serves it: what kind of text a
// field takes (purpose), how the keyboard should treat it (hints), what its return key says,
// where its caret is, and the text before the caret (for auto-capitalisation); and where the
// keyboard is, as each app on screen is told.

/// What a text field takes: the keyboard opens on the layout that suits it.
public enum TextPurpose: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    case text = 0, number, digits, phone, url, email, password, search

    public var name: String {
        switch self {
        case .text: "text"
        case .number: "number"
        case .digits: "digits"
        case .phone: "phone"
        case .url: "url"
        case .email: "email"
        case .password: "password"
        case .search: "search"
        }
    }
}

/// How the keyboard treats a field.
public struct TextHints: OptionSet, Sendable, Hashable, BitwiseCopyable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The field takes text but wants no on-screen keyboard (`inputmode=none`).
    public static let noKeyboard = TextHints(rawValue: 1)
    public static let capitalizeSentences = TextHints(rawValue: 2)
    public static let capitalizeWords = TextHints(rawValue: 4)
    public static let capitalizeAll = TextHints(rawValue: 8)
    public static let noAutocorrect = TextHints(rawValue: 16)
    /// The field has a neighbour before it in its form that takes text: the keyboard's bar shows
    /// ‹ (it sends Shift+Tab). Version 9.
    public static let hasPrevious = TextHints(rawValue: 32)
    /// The field has a neighbour after it in its form that takes text: the bar shows › (Tab).
    /// Version 9.
    public static let hasNext = TextHints(rawValue: 64)
    /// Every hint the newest protocol version knows.
    public static let known: TextHints = [.noKeyboard, .capitalizeSentences, .capitalizeWords, .capitalizeAll, .noAutocorrect, .hasPrevious, .hasNext]

    /// The hints an app of protocol `version` may send (a newer bit is malformed from it).
    public static func known(inVersion version: UInt16) -> TextHints {
        version >= 9 ? known : [.noKeyboard, .capitalizeSentences, .capitalizeWords, .capitalizeAll, .noAutocorrect]
    }

    /// The hints' names, lowest bit first.
    public var names: [String] {
        [(TextHints.noKeyboard, "noKeyboard"), (.capitalizeSentences, "capitalizeSentences"), (.capitalizeWords, "capitalizeWords"),
         (.capitalizeAll, "capitalizeAll"), (.noAutocorrect, "noAutocorrect"), (.hasPrevious, "hasPrevious"), (.hasNext, "hasNext")].filter { contains($0.0) }.map(\.1)
    }
}

/// What the keyboard's return key says.
public enum ReturnKey: UInt8, Sendable, CaseIterable, BitwiseCopyable {
    case `default` = 0, go, search, send, next, done

    public var name: String {
        switch self {
        case .default: "default"
        case .go: "go"
        case .search: "search"
        case .send: "send"
        case .next: "next"
        case .done: "done"
        }
    }
}

/// An app's text input as its last `textInput` said.
public struct TextInputState: Equatable, Sendable {
    public var enabled: Bool
    public var purpose: TextPurpose
    public var hints: TextHints
    public var returnKey: ReturnKey
    /// The caret's rectangle in the app's pane, in points.
    public var caret: (x: Double, y: Double, width: Double, height: Double)
    /// Up to `surroundingLimit` bytes of the text before the caret (empty: unknown).
    public var surrounding: String
    /// The serial of the input event after which the app focused the field (0: none; an app
    /// of protocol 5 to 8 sends none). Protocol 9.
    public var serial: UInt32

    /// The most text before the caret an app sends.
    public static let surroundingLimit = 256

    public init(
        enabled: Bool, purpose: TextPurpose = .text, hints: TextHints = [], returnKey: ReturnKey = .default,
        caret: (x: Double, y: Double, width: Double, height: Double) = (0, 0, 0, 0), surrounding: String = "", serial: UInt32 = 0
    ) {
        (self.enabled, self.purpose, self.hints, self.returnKey, self.caret, self.surrounding) = (enabled, purpose, hints, returnKey, caret, surrounding)
        self.serial = serial
    }

    /// Text input off.
    public static let disabled = TextInputState(enabled: false)

    public static func == (a: TextInputState, b: TextInputState) -> Bool {
        a.enabled == b.enabled && a.purpose == b.purpose && a.hints == b.hints && a.returnKey == b.returnKey && a.caret == b.caret
            && a.surrounding == b.surrounding && a.serial == b.serial
    }
}

/// Where the on-screen keyboard is (or will be, at the end of its move), as one app is told.
public struct KeyboardFrame: Equatable, Sendable {
    /// The keyboard in the app's pane's points (translated, not clipped; zeros when hidden).
    public var frame: Rect
    /// The keyboard in the screen's points.
    public var screenFrame: Rect
    /// How long the move takes, in milliseconds.
    public var duration: UInt32
    /// The app raised the keyboard.
    public var local: Bool

    public init(frame: Rect, screenFrame: Rect, duration: UInt32, local: Bool) {
        (self.frame, self.screenFrame, self.duration, self.local) = (frame, screenFrame, duration, local)
    }
}

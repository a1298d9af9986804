// SPDX-License-Identifier: MIT
// App lifecycle notifications and input phases, shared by the shell, the wire and the apps.

/// The lifecycle notifications of the contract, in iOS's names.
public enum LifecycleEvent: UInt8, Sendable, CaseIterable {
    case willResignActive = 0
    case didBecomeActive = 1
    case didEnterBackground = 2
    case willEnterForeground = 3

    public var name: String {
        switch self {
        case .willResignActive: "willResignActive"
        case .didBecomeActive: "didBecomeActive"
        case .didEnterBackground: "didEnterBackground"
        case .willEnterForeground: "willEnterForeground"
        }
    }
}

/// A touch phase.
public enum TouchPhase: UInt8, Sendable, CaseIterable {
    case down = 0, motion, up, cancel
    public var name: String { ["down", "motion", "up", "cancel"][Int(rawValue)] }
}

/// A pen phase.
public enum PenPhase: UInt8, Sendable, CaseIterable {
    case proximityIn = 0, down, motion, up, proximityOut
    public var name: String { ["proximityIn", "down", "motion", "up", "proximityOut"][Int(rawValue)] }
}

/// Which end of the pen touches the screen.
public enum PenTool: UInt8, Sendable, CaseIterable {
    case pen = 0, eraser
    public var name: String { self == .pen ? "pen" : "eraser" }
}

/// The pen's barrel buttons held down, as a bit mask.
public struct PenButtons: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The first barrel button (libinput's BTN_STYLUS).
    public static let primary = PenButtons(rawValue: 1)
    /// The second barrel button (BTN_STYLUS2).
    public static let secondary = PenButtons(rawValue: 2)
}

/// Insets from each edge, in points: the part of a pane that something of the system's covers
/// (the status bar over the top of the panes under it), as UIKit's safe-area insets.
public struct EdgeInsets: Hashable, Sendable {
    public var top, left, bottom, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
    }
    public static let zero = EdgeInsets()
    /// `{"top":…,"left":…,"bottom":…,"right":…}`.
    public var json: JSONValue {
        .object([("top", .double(top)), ("left", .double(left)), ("bottom", .double(bottom)), ("right", .double(right))])
    }
}


/// What a key did: went down, came up, or repeated while held (repeats are the compositor's,
/// at the configured rate, for keys the keymap says repeat).
public enum KeyState: UInt8, Sendable, CaseIterable {
    case released = 0, pressed, repeated
    public var name: String { ["released", "pressed", "repeated"][Int(rawValue)] }
    public init?(name: String) {
        guard let i = ["released", "pressed", "repeated"].firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(i))
    }
}

/// The modifiers in effect for a key event, as a bit mask (xkbcommon's effective state).
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let shift = KeyModifiers(rawValue: 1)
    public static let capsLock = KeyModifiers(rawValue: 2)
    public static let control = KeyModifiers(rawValue: 4)
    public static let alt = KeyModifiers(rawValue: 8)
    /// The Super ("logo", ⌘ on an iPad keyboard) key.
    public static let logo = KeyModifiers(rawValue: 16)
    public static let numLock = KeyModifiers(rawValue: 32)
    /// AltGr (ISO level 3 shift).
    public static let altGr = KeyModifiers(rawValue: 64)

    static let named: [(KeyModifiers, String)] = [
        (.shift, "shift"), (.capsLock, "capsLock"), (.control, "control"), (.alt, "alt"), (.logo, "logo"), (.numLock, "numLock"), (.altGr, "altGr"),
    ]
    /// The names of the modifiers set, in bit order (as event logs show them).
    public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }
}

/// What the pointer did.
public enum PointerPhase: UInt8, Sendable, CaseIterable {
    case enter = 0, leave, motion, button, scroll
    public var name: String { ["enter", "leave", "motion", "button", "scroll"][Int(rawValue)] }
    public init?(name: String) {
        guard let i = ["enter", "leave", "motion", "button", "scroll"].firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(i))
    }
}

/// Where a scroll came from: a mouse wheel (in clicks of 15 points), fingers on a touchpad
/// (points, ending with a 0, 0 scroll when they lift), or a continuous device (a trackpoint).
public enum ScrollSource: UInt8, Sendable, CaseIterable {
    case wheel = 0, finger, continuous
    public var name: String { ["wheel", "finger", "continuous"][Int(rawValue)] }
    public init?(name: String) {
        guard let i = ["wheel", "finger", "continuous"].firstIndex(of: name) else { return nil }
        self.init(rawValue: UInt8(i))
    }
}

/// Linux's button codes for the pointer buttons (`linux/input-event-codes.h`), as `pointer`
/// events carry them.
public enum PointerButton {
    public static let left: UInt32 = 0x110
    public static let right: UInt32 = 0x111
    public static let middle: UInt32 = 0x112

    /// A button's code from its name (`left`, `right`, `middle`) or its number.
    public static func code(_ name: String) -> UInt32? {
        switch name {
        case "left": left
        case "right": right
        case "middle": middle
        default: UInt32(name)
        }
    }
}

/// What touches the screen for the shell: a finger (its touchscreen's slot), or the pointer's
/// left button, which drags the divider, a Slide Over or a window as a finger does and reaches
/// apps as pointer events (`ShellEffect.pointer`), never as a touch. An integer is a finger.
public enum Contact: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    case finger(Int32)
    case pointer
    /// The pen, on the on-screen keyboard (elsewhere the pen is routed as a pen).
    case pen

    public init(integerLiteral id: Int32) { self = .finger(id) }

    public var description: String {
        switch self {
        case .finger(let id): "finger \(id)"
        case .pointer: "pointer"
        case .pen: "pen"
        }
    }
}

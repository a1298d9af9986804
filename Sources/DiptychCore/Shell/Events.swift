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


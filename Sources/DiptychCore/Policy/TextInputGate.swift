// SPDX-License-Identifier: MIT
// What the compositor takes of an app's `textInput`: only the app with keyboard focus may turn
// text input on (disabling is never refused); turning it on or off and changing its purpose
// past 30 times a second is refused (a flood of keyboard slides); caret moves are never refused
// (the newest wins: they come with every scroll of a focused page); a caret outside the pane
// is clamped to it. Pure: the time is given.

/// One app's text input as the compositor holds it.
public struct TextInputGate: Sendable {
    /// What the app last asked for and was granted (disabled until it asks).
    public private(set) var state = TextInputState.disabled
    /// When its last changes of `enabled` or `purpose` were taken (milliseconds), oldest first:
    /// at most `changesPerSecond`.
    private var changes: [UInt64] = []

    /// How many changes of `enabled` or `purpose` a second are taken.
    public static let changesPerSecond = 30

    public init() {}

    /// What became of a `textInput`.
    public enum Outcome: Equatable, Sendable {
        /// Taken; `switched`: whether it turned text input on or off or changed its purpose
        /// (not only the caret or the text around it).
        case taken(switched: Bool)
        /// Declined: `reason` (`focus`, `rate`) and a message for a person.
        case refused(reason: String, message: String)
    }

    /// Offers `asked` from an app that has keyboard focus (`focused`) in a pane of `pane`
    /// points, at `now` (ms).
    public mutating func offer(_ asked: TextInputState, focused: Bool, pane: Size, now: UInt64) -> Outcome {
        var t = asked
        if t.enabled && !focused {
            return .refused(reason: "focus", message: "textInput: only the app with the keyboard focus may turn text input on")
        }
        let switched = t.enabled != state.enabled || (t.enabled && t.purpose != state.purpose)
        if switched {
            changes.removeAll { $0 + 1000 <= now }
            // (Turning it off is never refused, but counts.)
            if t.enabled && changes.count >= Self.changesPerSecond {
                return .refused(reason: "rate", message: "textInput: text input turned on or changed more than \(Self.changesPerSecond) times a second")
            }
            if changes.count >= Self.changesPerSecond { changes.removeFirst() }
            changes.append(now)
        }
        t.caret = Self.clamp(t.caret, to: pane)
        state = t
        return .taken(switched: switched)
    }

    /// The app lost keyboard focus (or went away): its text input is off.
    public mutating func clear() { state = .disabled }

    /// `caret` kept inside a pane of `pane` points.
    static func clamp(_ c: (x: Double, y: Double, width: Double, height: Double), to pane: Size) -> (x: Double, y: Double, width: Double, height: Double) {
        let w = Double(pane.width), h = Double(pane.height)
        let x = min(max(0, c.x), w), y = min(max(0, c.y), h)
        return (x, y, min(c.width, w - x), min(c.height, h - y))
    }
}

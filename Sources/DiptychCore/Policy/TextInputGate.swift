// SPDX-License-Identifier: MIT
// What the compositor takes of an app's `textInput`: only the app with keyboard focus may turn
// text input on (disabling is never refused); turning it on or off and changing its purpose
// past 30 times a second is refused (a flood of keyboard slides); caret moves are never refused
// (the newest wins: they come with every scroll of a focused page); a caret outside the pane
// is clamped to it. From protocol 9 it also knows which input an enable may raise the keyboard
// after: the serial of the last tap the app was sent, or of a key the on-screen keyboard sent it
// since (‹ › return), each raising it once. Pure: the time is given.

/// One app's text input as the compositor holds it.
public struct TextInputGate: Sendable {
    /// What the app last asked for and was granted (disabled until it asks).
    public private(set) var state = TextInputState.disabled
    /// When its last changes of `enabled` or `purpose` were taken (milliseconds), oldest first:
    /// at most `changesPerSecond`.
    private var changes: [UInt64] = []
    /// The serial the enable named (kept while updates name none; 0: none).
    public private(set) var enableSerial: UInt32 = 0
    /// The serial of the last tap the app was sent (0: none yet).
    public private(set) var lastTap: UInt32 = 0
    /// The on-screen keyboard's keys (‹ › return) sent to the app since that tap, newest last.
    private var keyboardKeys: [UInt32] = []
    /// Serials up to this one raise the keyboard no more: the one that raised it last, or
    /// every one sent before the user dismissed it.
    private var spent: UInt32 = 0
    /// How many of the keyboard's keys are remembered.
    static let keysKept = 8

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
        if !t.enabled {
            enableSerial = 0
        } else if t.serial != 0 || !state.enabled {
            enableSerial = t.serial
        }
        state = t
        return .taken(switched: switched)
    }

    /// The app lost keyboard focus (or went away): its text input is off.
    public mutating func clear() {
        state = .disabled
        enableSerial = 0
        // (Input before the focus went raises nothing when it comes back without a tap.)
        lastTap = 0
        keyboardKeys.removeAll()
    }

    /// A tap ended in the app: `serial` is the contact's last event it was sent. Later enables
    /// may name it; none may name an earlier input any more.
    public mutating func tapped(serial: UInt32) {
        lastTap = serial
        keyboardKeys.removeAll()
    }

    /// The on-screen keyboard sent the app a key that moves or submits (‹ › return) as `serial`.
    public mutating func keyboardKeySent(serial: UInt32) {
        if keyboardKeys.count >= Self.keysKept { keyboardKeys.removeFirst() }
        keyboardKeys.append(serial)
    }

    /// Whether the enable raises the keyboard (protocol 9): it names the last tap the app was
    /// sent, or a key of the keyboard's sent since, not one that raised it already.
    public var enableRaisesKeyboard: Bool {
        enableSerial > spent && (enableSerial == lastTap || keyboardKeys.contains(enableSerial))
    }

    /// The keyboard showed for the enable: its serial raises it no more.
    public mutating func raisedKeyboard() { spent = max(spent, enableSerial) }

    /// The user dismissed the keyboard when `last` was the last serial sent: nothing sent
    /// before raises it again (a field that keeps its state needs a new tap).
    public mutating func keyboardDismissed(last: UInt32) {
        spent = max(spent, last)
        keyboardKeys.removeAll()
    }

    /// The connection's serials started over from 1 (after 2³² − 1 input events).
    public mutating func serialsWrapped() {
        (spent, lastTap, enableSerial) = (0, 0, 0)
        keyboardKeys.removeAll()
    }

    /// `caret` kept inside a pane of `pane` points.
    static func clamp(_ c: (x: Double, y: Double, width: Double, height: Double), to pane: Size) -> (x: Double, y: Double, width: Double, height: Double) {
        let w = Double(pane.width), h = Double(pane.height)
        let x = min(max(0, c.x), w), y = min(max(0, c.y), h)
        return (x, y, min(c.width, w - x), min(c.height, h - y))
    }
}

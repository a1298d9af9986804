// SPDX-License-Identifier: MIT
// What the compositor knows between turns about text input and the on-screen keyboard, apart
// from the keyboard itself (the desk's `KeyboardPresence`): whether it stepped aside, the
// hardware keyboard that typed last, what the apps were told of its frame, and whether an
// app's text input changed since the last look. Pure state with its rules; the compositor
// carries out what it says.

/// The text input relay's state between turns. A class: the compositor holds it and its
/// parts change through it, never through a copy.
public final class TextInputRelay {
    /// Whether the keyboard stepped aside (a divider drag, a Slide Over swipe, a rotation) at
    /// the last look.
    public var aside = false
    /// The device (libinput's name for it, `event5`) of the keyboard with letter keys that
    /// typed last: the on-screen keyboard shows only its shortcut bar until that device goes
    /// or the bar's key is tapped.
    public var hardwareKeyboard: String?
    /// An app's text input changed since the last tick (the keyboard looks again then).
    public var changed = false
    /// The panes (each app's, in points) the apps were last told the keyboard's frame for (a
    /// pane that moves or comes while it shows hears it again).
    public var toldPanes: [AppID: Rect] = [:]
    /// The apps told this turn.
    public var sentThisTurn: Set<AppID> = []
    /// The frame each app is owed at the end of the turn (newest wins).
    public var pending: [AppID: KeyboardFrame] = [:]

    public init() {}

    /// Whether `app` may hear the frame at once (its first this turn); otherwise it is owed
    /// the newest at the turn's end.
    public func tell(_ app: AppID, _ frame: KeyboardFrame) -> Bool {
        if sentThisTurn.insert(app).inserted {
            pending[app] = nil
            return true
        }
        pending[app] = frame
        return false
    }

    /// The frames owed at the end of the turn, oldest app first; the turn starts over.
    public func endTurn() -> [(AppID, KeyboardFrame)] {
        defer {
            pending.removeAll()
            sentThisTurn.removeAll()
        }
        return pending.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) }
    }
}

// SPDX-License-Identifier: MIT
// What the desk reports in one look: a turn of the loop (`Desk.tick`) and what a frame shows
// (`Desk.presentation`).

import DiptychCore

extension Desk {
    /// What a turn of the loop at `now` brings, looked at once.
    struct Tick {
        /// The shell's effects (a settle ending, a gesture's time-out).
        var shell: [ShellEffect]
        /// The pen's: one that stopped reporting has left (the app under it hears it go).
        var pen: [ShellEffect] = []
        /// The pointer moved since the last turn, at this time (taken: its motion is for the
        /// apps now).
        var pointerMoved: Double?
        /// The cursor appeared or went since the last frame drew it (time passed, a touch).
        var cursorChanged = false
    }
}

/// What a frame shows of the desk at one time (see `Desk.presentation`).
struct DeskPresentation {
    var panes: [PresentedPane]
    var windows: [PiPShown]
    var profile: DeviceProfile
    var orientation: Orientation
}

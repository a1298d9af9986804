// SPDX-License-Identifier: MIT
// What the desk reports in one look: a turn of the loop (`Desk.tick`) and what a frame shows
// (`Desk.presentation`).


extension Desk {
    /// What a turn of the loop at `now` brings, looked at once.
    package struct Tick {
        /// The shell's effects (a settle ending, a gesture's time-out).
        package var shell: [ShellEffect]
        /// The pen's: one that stopped reporting has left (the app under it hears it go).
        package var pen: [ShellEffect] = []
        /// The pointer moved since the last turn, at this time (taken: its motion is for the
        /// apps now).
        package var pointerMoved: Double?
        /// The cursor appeared or went since the last frame drew it (time passed, a touch).
        package var cursorChanged = false
    }
}

/// What a frame shows of the desk at one time (see `Desk.presentation`).
package struct DeskPresentation {
    package var panes: [PresentedPane]
    package var windows: [PiPShown]
    package var profile: DeviceProfile
    package var orientation: Orientation
}

// SPDX-License-Identifier: MIT
// Text input: an app's `textInput` taken through its gate (focus, rate, the caret clamped to
// its pane) or refused; it ends when the app loses keyboard focus.

import DiptychCore
import DiptychWire

extension Compositor {
    /// `textInput`: the app says whether a field of it takes text, and how.
    func textInput(_ t: TextInputState, from c: ClientSession) {
        let pane = desk.paneFrame(of: c.app).map { Size(width: $0.width, height: $0.height) } ?? Size(width: 0, height: 0)
        switch c.offerTextInput(t, focused: desk.focus == c.app, pane: pane, now: policyClock.milliseconds) {
        case .refused(let reason, let message):
            refuse(c, request: "textInput", reason: reason, message)
        case .taken:
            // Looked at in the next tick: not in the middle of the round trip, where another
            // app's requests come in any order (what the apps hear stays deterministic).
            textRelay.changed = true
        }
    }

    /// Looks at the apps' text input changed since the last look (the keyboard shows, follows
    /// or hides): at each tick, and where a scenario waits for the keyboard.
    public func takeTextInput() {
        guard textRelay.changed else { return }
        textRelay.changed = false
        keyboardMayChange()
    }

    /// The text input `role`'s app has now (for tests and the keyboard).
    public func textInputState(_ role: Role) -> TextInputState? { session(role)?.text.state }
}

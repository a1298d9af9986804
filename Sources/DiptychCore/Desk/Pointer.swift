// SPDX-License-Identifier: MIT
// The pointer (a mouse or a trackpad): where it is on the logical screen, whether its cursor
// shows, the button held, and which app it is over. A value the desk owns; the compositor
// turns its changes into `pointer` events and a cursor in the scene.


/// When the pointer's cursor shows (`--cursor`, the kiosk's `cursor` key).
public enum CursorMode: String, Sendable, CaseIterable {
    /// Hidden until a pointer moves, again after 3 s still or at any touch (iPadOS's way).
    case auto
    /// Never (a touch kiosk with a mouse plugged in for service).
    case hidden
    /// Always, from the start at the screen's centre (a kiosk used with a pointer).
    case always
}

package struct PointerState {
    /// When the cursor shows.
    package var mode = CursorMode.auto
    /// Where it is, in points of the logical screen.
    package private(set) var x = 0.0, y = 0.0
    /// When it last moved (compositor ms); nil before it ever did (the cursor does not show
    /// until a pointer is used).
    package private(set) var lastMotion: UInt64?
    /// A touch or the pen hides the cursor until the pointer moves again.
    package private(set) var hiddenByTouch = false
    /// The buttons held now (Linux codes).
    package private(set) var held: Set<UInt32> = []
    /// The app the pointer is over (that had `enter`), and the app a held button went to: it
    /// has every event until the last button comes up (an implicit grab, as a finger's).
    package var over: AppID?
    package var grab: AppID?
    /// The output's cursor plane would not take the cursor: it is drawn into the frames.
    package var planeRefused = false
    /// The cursor has been shown on the plane (said once in the log).
    package var planeUsed = false
    /// Whether the cursor shows now (in the last scene built, or on the cursor plane).
    package var drawnShowing = false
    /// It moved since the apps were last told: the time of its last motion (ms).
    package var motionPending: Double?

    /// The cursor hides after this long without motion (milliseconds), as iPadOS's does.
    package static let hideAfter: UInt64 = 3000
    /// The cursor's diameter in points (iPadOS's round pointer).
    package static let diameter = 19

    /// Moves to `x`, `y` (kept on a screen of `size` points) at `now`.
    package mutating func move(toX x: Double, y: Double, within size: Size, at now: UInt64) {
        self.x = min(max(0, x), Double(size.width) - 1)
        self.y = min(max(0, y), Double(size.height) - 1)
        lastMotion = now
        hiddenByTouch = false
    }

    package mutating func button(_ code: UInt32, pressed: Bool) {
        if pressed { held.insert(code) } else { held.remove(code) }
    }

    /// A touch or the pen was used: the cursor hides.
    package mutating func touched() { hiddenByTouch = true }

    /// Starts at the centre of a screen of `size` points (for a cursor that always shows).
    package mutating func center(in size: Size) {
        x = Double(size.width / 2)
        y = Double(size.height / 2)
    }

    /// Whether the cursor shows at `now`.
    package func shows(at now: UInt64) -> Bool {
        switch mode {
        case .hidden: return false
        case .always: return true
        case .auto: break
        }
        guard let t = lastMotion, !hiddenByTouch else { return false }
        return now < t + Self.hideAfter || !held.isEmpty
    }

    /// When the cursor hides if the pointer stays still (nil: it does not show).
    package func hides(after now: UInt64) -> UInt64? {
        guard mode == .auto, let t = lastMotion, !hiddenByTouch, held.isEmpty, now < t + Self.hideAfter else { return nil }
        return t + Self.hideAfter
    }

    /// The cursor's rectangle in points.
    package var cursorRect: Rect {
        let d = Self.diameter
        return Rect(x: Int(x.rounded(.down)) - d / 2, y: Int(y.rounded(.down)) - d / 2, width: d, height: d)
    }
}

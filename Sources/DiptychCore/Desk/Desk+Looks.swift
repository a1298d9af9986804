// SPDX-License-Identifier: MIT
// What the desk shows and what moves, read without changing it: a frame's view of the panes and
// windows, the status bar's places, the Picture in Picture space, whether and how the screen is
// in motion. (The desk's state changes only in Desk.swift.)


extension Desk {
    /// What a frame at `now` shows of the desk, read in one look: the panes as drawn, the
    /// Picture in Picture windows' frames bottom to top (in the logical screen below
    /// `pipTopInset`), and the device and orientation they are laid out for.
    package func presentation(at now: UInt64, pipTopInset: Int) -> DeskPresentation {
        DeskPresentation(
            panes: shell.presentation(at: now), windows: pip.shown(in: pipSpace(topInset: pipTopInset), at: now),
            profile: shell.profile, orientation: shell.orientation)
    }

    /// The app in `role`, if any (asked of the desk, which holds the shell in place, rather
    /// than of a copy of the shell).
    package func app(_ role: Role) -> AppID? { shell.app(role) }

    /// What the status bar lies over, read in one look: where the secondary's part begins
    /// (points; nil unless a Split View pane reaches under the bar) and the device's title.
    package var statusBarPlaces: (secondaryFrom: Int?, deviceTitle: String?) {
        guard shell.arrangement != .full, let pane = shell.layout.pane(.secondary), pane.frame.minY < StatusBar.height else {
            return (nil, shell.profile.title)
        }
        return (pane.frame.x, shell.profile.title)
    }

    /// Where the Picture in Picture windows live: the logical screen below `topInset`.
    /// While the on-screen keyboard shows, the space ends above it: a window in a bottom
    /// corner moves up out of its way, as iPadOS's does.
    package func pipSpace(topInset: Int) -> PiPSpace {
        var screen = shell.layout.screen
        if let k = keyboard, !k.isHiding, !keyboardSuspended {
            screen.height = k.restFrame(screen: screen, orientation: shell.orientation).y
        }
        return PiPSpace(screen: screen, scale: shell.profile.scale, topInset: topInset)
    }

    /// The panes as drawn at `now`.
    package func presentedPanes(at now: UInt64) -> [PresentedPane] { shell.presentation(at: now) }

    /// Whether something moves by itself at `now`: panes or a window settling, or a cross-fade.
    package func isAnimating(at now: UInt64) -> Bool {
        fade != nil || shell.isSettling(at: now) || pip.isSettling(at: now) || keyboard?.isMoving(at: now) == true
    }

    /// Whether the screen is in motion at `now`: moving by itself, or following a finger.
    package func isInMotion(at now: UInt64) -> Bool { isAnimating(at: now) || shell.isFollowingFinger || pip.isHeld }

    /// What moves at `now`: "fade", "settle", "follow"; nil when the screen is still.
    package func motionKind(at now: UInt64) -> String? {
        if fade != nil { return "fade" }
        if shell.isSettling(at: now) || pip.isSettling(at: now) { return "settle" }
        if shell.isFollowingFinger || pip.isHeld { return "follow" }
        return nil
    }
}

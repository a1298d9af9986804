// SPDX-License-Identifier: MIT
// A pane as a frame draws it: where it is, which edge its surface is pinned to while its width
// moves, and how it looks (floating, lifted, leaving, blurred, dimmed). The shell gives them
// (`Shell.presentation`), motion moves them between layouts, the scene builder draws them.

/// Which edge of its pane a surface is pinned to while the pane's width is in motion.
public enum Anchor: Sendable, Equatable {
    case leading
    case trailing
}

/// A pane as drawn this frame (during a drag it is not the configured pane).
public struct PresentedPane: Equatable, Sendable {
    public var app: AppID
    public var role: Role
    /// The frame in points.
    public var frame: Rect
    public var anchor: Anchor
    /// Show the snapshot nearest the pane's width instead of the live surface (during a drag).
    public var prefersSnapshots: Bool
    /// How much of the Slide Over chrome it wears (rounded corners, shadow, grabber): 1 for a
    /// floating Slide Over, 0 for a pane in a split or full screen, between while it pins.
    public var floating: Double = 0
    /// The pane of an app that left the screen, sliding off it.
    public var leaving = false
    /// Lifted by its pill (a swap being dragged): drawn over the other with rounded corners
    /// and a shadow, following the finger.
    public var lifted = false
    /// How blurred it is drawn, with its icon over it: 1 while the divider is held, fading to
    /// 0 as the pane settles after the release.
    public var blur = 0.0
    /// How far it is dimmed (0…`maxDim`): while the divider is held near the edge that would
    /// dismiss its app, more the nearer it comes.
    public var dim = 0.0
    public static let maxDim = 0.5

    public init(app: AppID, role: Role, frame: Rect, anchor: Anchor, prefersSnapshots: Bool, floating: Double = 0) {
        self.app = app
        self.role = role
        self.frame = frame
        self.anchor = anchor
        self.prefersSnapshots = prefersSnapshots
        self.floating = floating
    }
}

// SPDX-License-Identifier: MIT
// The one scene builder: what each presented pane shows (its live surface, or during a drag the
// snapshot nearest its width), where the image lands (anchored at the pane's outer edge) and
// what it is clipped to. `render`, `run`, the goldens and the profiler all build scenes here.

/// An image the scene can show, by identity: the id is given by whoever holds the pixels and
/// stays the same for as long as they hold them (a committed buffer, a snapshot).
public struct ImageRef: Hashable, Sendable {
    public var id: UInt64
    public var width: Int
    public var height: Int

    public init(id: UInt64, width: Int, height: Int) {
        self.id = id
        self.width = width
        self.height = height
    }
}

/// What an app can show now.
public struct AppContent: Sendable {
    /// The last committed surface.
    public var live: ImageRef?
    /// Snapshots received for the drag in progress.
    public var snapshots: [ImageRef]

    public init(live: ImageRef?, snapshots: [ImageRef] = []) {
        self.live = live
        self.snapshots = snapshots
    }
}

/// One image placed on the logical screen, in logical pixels.
public struct SceneNode: Hashable, Sendable {
    public var app: AppID
    public var image: ImageRef
    /// The app's live surface (its content changes with commits), not a snapshot.
    public var live: Bool
    /// Where the image's pixels land.
    public var imageRect: Rect
    /// The pane it is clipped to.
    public var clip: Rect

    public init(app: AppID, image: ImageRef, live: Bool, imageRect: Rect, clip: Rect) {
        self.app = app
        self.image = image
        self.live = live
        self.imageRect = imageRect
        self.clip = clip
    }
}

/// The scene of one frame: nodes bottom to top over black, on a logical screen of `size` pixels.
public struct SceneGraph: Equatable, Sendable {
    public var size: Size
    public var nodes: [SceneNode]
}

/// Builds scenes from presented panes. Pure.
public enum SceneBuilder {
    /// The scene for `panes` (bottom to top) on `profile`'s screen in `orientation`: each pane
    /// shows its app's live surface, or when it prefers snapshots the one nearest its width
    /// (the live surface until one arrives). Panes with nothing to show stay black.
    public static func build(panes: [PresentedPane], profile: DeviceProfile, orientation: Orientation, content: (AppID) -> AppContent?) -> SceneGraph {
        var nodes: [SceneNode] = []
        for p in panes {
            guard let c = content(p.app) else { continue }
            let clip = p.frame.scaled(by: profile.scale)
            var image = c.live
            var live = true
            if p.prefersSnapshots, let best = c.snapshots.min(by: { abs($0.width - clip.width) < abs($1.width - clip.width) }) {
                image = best
                live = false
            }
            guard let image else { continue }
            nodes.append(SceneNode(app: p.app, image: image, live: live, imageRect: place(image, in: clip, anchor: p.anchor), clip: clip))
        }
        return SceneGraph(size: profile.pixelSize(orientation), nodes: nodes)
    }

    /// Where an image lands in a pane: at its top-left, or flush with its right edge when the
    /// pane is anchored trailing (the right pane of a divider drag).
    static func place(_ image: ImageRef, in clip: Rect, anchor: Anchor) -> Rect {
        let x = anchor == .leading ? clip.x : clip.maxX - image.width
        return Rect(x: x, y: clip.y, width: image.width, height: image.height)
    }
}

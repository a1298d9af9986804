// SPDX-License-Identifier: MIT
// The one damage tracker: which output pixels a frame must repaint, from the commits since the
// last frame and from what moved between the last frame's scene and this one's.

/// Output damage between frames. Pure; owned by whoever schedules frames.
public struct DamageTracker: Sendable {
    /// How logical pixels land on the output (damage is grown by the filter's footprint).
    public private(set) var geometry: OutputGeometry
    private var pending = Region()
    private var full = true
    /// What each app's pane showed in the last frame drawn.
    private var last: [AppID: SceneNode] = [:]

    /// A tracker whose first frame repaints everything.
    public init(geometry: OutputGeometry) { self.geometry = geometry }

    /// Whether the next frame repaints the whole output.
    public var repaintsEverything: Bool { full }

    /// Whether anything is waiting to be repainted.
    public var hasDamage: Bool { full || !pending.isEmpty }

    /// The next frame repaints everything (the output came back, or its geometry changed).
    public mutating func invalidate() { full = true }

    /// A new output geometry: everything is repainted.
    public mutating func setGeometry(_ g: OutputGeometry) {
        geometry = g
        full = true
    }

    /// A commit to a live surface drawn at `node`, with its damage in buffer pixels: placed
    /// where the image lands, clipped to the pane, through the output transform.
    public mutating func commit(_ bufferDamage: [Rect], at node: SceneNode) {
        guard !full else { return }
        for r in bufferDamage {
            let placed = Rect(x: r.x + node.imageRect.x, y: r.y + node.imageRect.y, width: r.width, height: r.height)
            guard let logical = placed.intersection(node.clip) else { continue }
            add(logical)
        }
    }

    /// Logical pixels to repaint at the next frame.
    public mutating func add(_ logical: Rect) {
        if let out = geometry.damage(logical) { pending.formUnion(out) }
    }

    /// Takes the damage of a frame showing `scene`: what is pending and what moved since the
    /// last frame (nil: everything). `scene` becomes the last frame.
    ///
    /// A pane whose content stayed put while its clip moved (a divider drag with anchored
    /// snapshots) repaints only the strip that changed; a pane that shows another image or
    /// moved its image repaints old and new clips.
    public mutating func take(_ scene: SceneGraph) -> Region? {
        let drawn = Self.byApp(scene)
        defer {
            last = drawn
            full = false
            pending = Region()
        }
        if full { return nil }
        for app in Set(last.keys).union(drawn.keys).sorted() {
            for r in Self.moved(from: last[app], to: drawn[app]).rects { add(r) }
        }
        return pending
    }

    /// Whether a frame showing `scene` would repaint anything: damage is pending, or a pane
    /// moved, appeared, went away or shows another image since the last frame.
    public func wouldRepaint(_ scene: SceneGraph) -> Bool {
        if hasDamage { return true }
        let drawn = Self.byApp(scene)
        return Set(last.keys).union(drawn.keys).contains { !Self.moved(from: last[$0], to: drawn[$0]).isEmpty }
    }

    /// A frame that was not shown: its damage is repainted with the next one.
    public mutating func keep(_ damage: Region?) {
        guard let damage else {
            full = true
            return
        }
        for r in damage.rects { pending.formUnion(r) }
    }

    /// Each app's node in a scene.
    private static func byApp(_ scene: SceneGraph) -> [AppID: SceneNode] {
        Dictionary(scene.nodes.map { ($0.app, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Logical pixels that changed between two placements of one app's pane.
    static func moved(from old: SceneNode?, to new: SceneNode?) -> Region {
        var changed = Region()
        switch (old, new) {
        case (nil, nil):
            break
        case (let o?, nil):
            changed.formUnion(o.clip)
        case (nil, let n?):
            changed.formUnion(n.clip)
        case (let o?, let n?):
            let sameContent = o.imageRect == n.imageRect && (o.image.id == n.image.id || (o.live && n.live))
            if sameContent && o.clip == n.clip { break }
            if sameContent {
                var gained = Region(n.clip)
                gained.subtract(o.clip)
                var lost = Region(o.clip)
                lost.subtract(n.clip)
                for r in gained.rects + lost.rects { changed.formUnion(r) }
            } else {
                changed.formUnion(o.clip)
                changed.formUnion(n.clip)
            }
        }
        return changed
    }
}

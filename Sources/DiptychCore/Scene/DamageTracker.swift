// SPDX-License-Identifier: MIT
// The one damage tracker: which output pixels a frame must repaint, from the commits since the
// last frame and from what moved between the last frame's scene and this one's.

/// Output damage between frames. Pure; owned by whoever schedules frames.
public struct DamageTracker: Sendable {
    /// How logical pixels land on the output (damage is grown by the filter's footprint).
    public private(set) var geometry: OutputGeometry
    private var pending = Region()
    private var full = true
    /// The scene of the last frame drawn (a handful of nodes: an array searched by key costs
    /// less per frame than a dictionary).
    private var last = SceneGraph(size: Size(width: 0, height: 0))

    /// The scene of the last frame taken: where things are on screen now.
    public var lastScene: SceneGraph { last }

    /// A tracker whose first frame repaints everything.
    public init(geometry: OutputGeometry) { self.geometry = geometry }

    /// Whether the next frame repaints the whole output.
    public var repaintsEverything: Bool { full }

    /// The rectangles waiting to be repainted (at most `Region.damageRectangleLimit`).
    public var pendingRectangles: Int { pending.rects.count }

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
        // A scaled image (a Picture in Picture window) damages the pixels its rectangles
        // cover once scaled, rounded outwards.
        let image = node.image
        let sx = image.map { Double(node.imageRect.width) / Double(max(1, $0.width)) } ?? 1
        let sy = image.map { Double(node.imageRect.height) / Double(max(1, $0.height)) } ?? 1
        let scaled = sx != 1 || sy != 1
        for var r in bufferDamage {
            if scaled {
                let x0 = (Double(r.minX) * sx).rounded(.down) - 1, x1 = (Double(r.maxX) * sx).rounded(.up) + 1
                let y0 = (Double(r.minY) * sy).rounded(.down) - 1, y1 = (Double(r.maxY) * sy).rounded(.up) + 1
                r = Rect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
            }
            let placed = Rect(x: r.x + node.imageRect.x, y: r.y + node.imageRect.y, width: r.width, height: r.height)
            guard let logical = placed.intersection(node.clip) else { continue }
            add(logical)
        }
    }

    /// Logical pixels to repaint at the next frame.
    public mutating func add(_ logical: Rect) {
        if let out = geometry.damage(logical) { pending.formUnion(out, collapsingPast: Region.damageRectangleLimit) }
    }

    /// Takes the damage of a frame showing `scene`: what is pending and what moved since the
    /// last frame (nil: everything). `scene` becomes the last frame.
    ///
    /// A pane whose content stayed put while its clip moved (a divider drag with anchored
    /// snapshots) repaints only the strip that changed; a pane that shows another image or
    /// moved its image repaints old and new clips.
    public mutating func take(_ scene: SceneGraph) -> Region? {
        defer {
            last = scene
            full = false
            pending = Region()
        }
        if full { return nil }
        Self.changes(from: last, to: scene) { add($0) }
        return pending
    }

    /// Whether a frame showing `scene` would repaint anything: damage is pending, or a pane
    /// moved, appeared, went away or shows another image since the last frame (a look that
    /// takes nothing: the live loop's frames take their damage once, with `take`).
    public func wouldRepaint(_ scene: SceneGraph) -> Bool {
        if hasDamage { return true }
        var changed = false
        Self.changes(from: last, to: scene) { _ in changed = true }
        return changed
    }

    /// A frame that was not shown: its damage is repainted with the next one.
    public mutating func keep(_ damage: Region?) {
        guard let damage else {
            full = true
            return
        }
        pending.formUnion(damage, collapsingPast: Region.damageRectangleLimit)
    }

    /// Calls `changed` with every logical rectangle that differs between two frames' scenes,
    /// layer by layer: a layer of the same generation as the last frame's is the same; in any
    /// other, nodes matched by key that moved, appeared, went away or show something else.
    private static func changes(from old: SceneGraph, to new: SceneGraph, _ changed: (Rect) -> Void) {
        let oldLayers = old.layers.span
        var matched = Matched(count: oldLayers.count)
        for layer in new.layers {
            var before: Int?
            for j in 0..<oldLayers.count where !matched[j] && oldLayers[j].kind == layer.kind {
                before = j
                break
            }
            if let b = before {
                matched[b] = true
                if let g = layer.generation, oldLayers[b].generation == g { continue }
            }
            if let b = before {
                changes(from: oldLayers[b].nodes, to: layer.nodes, changed)
            } else {
                changes(from: [], to: layer.nodes, changed)
            }
        }
        for j in 0..<oldLayers.count where !matched[j] {
            for n in oldLayers[j].nodes { changed(n.clip) }
        }
    }

    /// The same, between two layers' nodes (read in place: a node is never copied).
    private static func changes(from old: [SceneNode], to new: [SceneNode], _ changed: (Rect) -> Void) {
        let old = old.span, new = new.span
        var matched = Matched(count: old.count)
        // Frames keep their nodes in the same order, give or take a few that come and go: each
        // is looked for after the last one matched, then before it.
        var next = 0
        for k in 0..<new.count {
            var found: Int?
            for j in next..<old.count where !matched[j] && old[j].key == new[k].key {
                found = j
                break
            }
            if found == nil {
                for j in 0..<next where !matched[j] && old[j].key == new[k].key {
                    found = j
                    break
                }
            }
            guard let found else {
                changed(new[k].clip)
                continue
            }
            matched[found] = true
            next = found + 1
            moved(old[found], new[k], changed)
        }
        for j in 0..<old.count where !matched[j] { changed(old[j].clip) }
    }

    /// Which of a layer's old nodes were matched: bits of a word for the few a layer has, an
    /// array past 64.
    private struct Matched {
        private var bits: UInt64 = 0
        private var more: [Bool]

        init(count: Int) { more = count > 64 ? [Bool](repeating: false, count: count) : [] }

        subscript(i: Int) -> Bool {
            get { more.isEmpty ? bits & (1 << UInt64(i)) != 0 : more[i] }
            set {
                if !more.isEmpty {
                    more[i] = newValue
                } else if newValue {
                    bits |= 1 << UInt64(i)
                } else {
                    bits &= ~(1 << UInt64(i))
                }
            }
        }
    }

    /// Logical pixels that changed between two placements of one node (an app's pane, a piece
    /// of chrome), as rectangles that may overlap: none when it is the same. A flat colour is
    /// the same wherever it lies, so a tile or the divider that moved repaints only what it
    /// gained and lost; rounded corners that changed repaint the corners.
    static func moved(_ o: borrowing SceneNode, _ n: borrowing SceneNode, _ changed: (Rect) -> Void) {
        let oClip = o.clip, nClip = n.clip
        let sameRect = o.imageRect == n.imageRect
        var sameContent: Bool
        if case .image(let a, let aLive) = o.content, case .image(let b, let bLive) = n.content {
            // A live surface's new buffer says what changed in its commit, unless it is of
            // another size (scaled into the same frame, every pixel moves).
            sameContent = sameRect && (a.id == b.id || (aLive && bLive && a.width == b.width && a.height == b.height))
        } else if case .solid(let a) = o.content, case .solid(let b) = n.content {
            sameContent = a == b
        } else {
            sameContent = sameRect && o.content == n.content
        }
        // A fade redraws the whole node.
        if o.opacity != n.opacity || o.padded != n.padded { sameContent = false }
        if sameContent && o.cornerRadius != n.cornerRadius {
            for r in oClip.cornerSquares(radius: o.cornerRadius) { changed(r) }
            for r in nClip.cornerSquares(radius: n.cornerRadius) { changed(r) }
        }
        if sameContent && oClip == nClip { return }
        if sameContent {
            // What it gained, and what it lost.
            Region.forEachPiece(of: nClip, outside: oClip, changed)
            Region.forEachPiece(of: oClip, outside: nClip, changed)
        } else {
            changed(oClip)
            changed(nClip)
        }
    }
}

// SPDX-License-Identifier: MIT
// The one damage tracker: which output pixels a frame must repaint, from the commits since the
// last frame and from what moved between the last frame's scene and this one's.

/// Output damage between frames. Pure; owned by whoever schedules frames.
public struct DamageTracker: Sendable {
    /// How logical pixels land on the output (damage is grown by the filter's footprint).
    public private(set) var geometry: OutputGeometry
    private var pending = Region()
    private var full = true
    /// What each node showed in the last frame drawn (a handful: an array searched by key
    /// costs less per frame than a dictionary).
    private var last: [SceneNode] = []

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
            last = scene.nodes
            full = false
            pending = Region()
        }
        if full { return nil }
        Self.changes(from: last, to: scene.nodes) { add($0) }
        return pending
    }

    /// Whether a frame showing `scene` would repaint anything: damage is pending, or a pane
    /// moved, appeared, went away or shows another image since the last frame (a look that
    /// takes nothing: the live loop's frames take their damage once, with `take`).
    public func wouldRepaint(_ scene: SceneGraph) -> Bool {
        if hasDamage { return true }
        var changed = false
        Self.changes(from: last, to: scene.nodes) { _ in changed = true }
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

    /// Calls `changed` with every logical rectangle that differs between two frames' nodes,
    /// matched by key: nodes that moved, appeared, went away or show something else. (Every
    /// frame of a settle runs this over every node: nodes are read in place, not copied.)
    private static func changes(from old: [SceneNode], to new: [SceneNode], _ changed: (Rect) -> Void) {
        old.withUnsafeBufferPointer { old in
            new.withUnsafeBufferPointer { new in
                guard let o0 = old.baseAddress else {
                    for n in new.indices { changed(new[n].clip) }
                    return
                }
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: old.count) { matched in
                    matched.initialize(repeating: false)
                    // Frames keep their nodes in the same order, give or take a few that come
                    // and go: each is looked for after the last one matched, then before it.
                    var next = 0
                    for k in new.indices {
                        let n = new.baseAddress! + k
                        let key = n.pointee.key
                        var found = -1
                        for j in next..<old.count where !matched[j] && (o0 + j).pointee.key == key {
                            found = j
                            break
                        }
                        if found < 0 {
                            for j in 0..<next where !matched[j] && (o0 + j).pointee.key == key {
                                found = j
                                break
                            }
                        }
                        guard found >= 0 else {
                            changed(n.pointee.clip)
                            continue
                        }
                        matched[found] = true
                        next = found + 1
                        // A node copied from the same value as last frame's (the status bar's
                        // pieces, kept laid out) has the same bytes: it did not change.
                        if sameBytes(o0 + found, n) { continue }
                        moved(o0 + found, n, changed)
                    }
                    for j in 0..<old.count where !matched[j] { changed((o0 + j).pointee.clip) }
                }
            }
        }
    }

    /// Whether two nodes hold the same bytes, and so the same values (the converse need not
    /// hold: padding may differ, and then the fields are compared).
    @inline(__always)
    static func sameBytes(_ a: UnsafePointer<SceneNode>, _ b: UnsafePointer<SceneNode>) -> Bool {
        let p = UnsafeRawPointer(a), q = UnsafeRawPointer(b)
        let size = MemoryLayout<SceneNode>.size
        var i = 0
        while i + 8 <= size {
            if p.loadUnaligned(fromByteOffset: i, as: UInt64.self) != q.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < size {
            if p.load(fromByteOffset: i, as: UInt8.self) != q.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }

    /// Logical pixels that changed between two placements of one node (an app's pane, a piece
    /// of chrome), as rectangles that may overlap: none when it is the same. A flat colour is
    /// the same wherever it lies, so a tile or the divider that moved repaints only what it
    /// gained and lost; rounded corners that changed repaint the corners. (Every frame of a
    /// settle runs this for each node: it allocates nothing.)
    static func moved(_ o: UnsafePointer<SceneNode>, _ n: UnsafePointer<SceneNode>, _ changed: (Rect) -> Void) {
        let oClip = o.pointee.clip, nClip = n.pointee.clip
        let sameRect = o.pointee.imageRect == n.pointee.imageRect
        let sameContent: Bool
        switch (o.pointee.content, n.pointee.content) {
        case (.image(let a, let aLive), .image(let b, let bLive)):
            // A live surface's new buffer says what changed in its commit, unless it is of
            // another size (scaled into the same frame, every pixel moves).
            sameContent = sameRect && (a.id == b.id || (aLive && bLive && a.width == b.width && a.height == b.height))
        case (.solid(let a), .solid(let b)): sameContent = a == b
        case (let a, let b): sameContent = sameRect && a == b
        }
        let oRadius = o.pointee.cornerRadius, nRadius = n.pointee.cornerRadius
        if sameContent && oRadius != nRadius {
            for r in oClip.cornerSquares(radius: oRadius) { changed(r) }
            for r in nClip.cornerSquares(radius: nRadius) { changed(r) }
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

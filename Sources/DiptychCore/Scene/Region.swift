// SPDX-License-Identifier: MIT
// A region as a set of disjoint rectangles: enough for visibility and damage with a few panes.

/// A set of points stored as disjoint rectangles. Pure value; no C.
public struct Region: Hashable, Sendable {
    /// Disjoint, non-empty rectangles.
    public private(set) var rects: [Rect] = []

    public init() {}
    public init(_ rect: Rect) { if !rect.isEmpty { rects = [rect] } }

    @inlinable public var isEmpty: Bool { rects.isEmpty }
    /// The number of unit cells covered.
    public var area: Int { rects.reduce(0) { $0 + $1.width * $1.height } }

    /// Appends the parts of `r` outside `cut` (up to four rectangles) to `out`.
    static func subtract(_ r: Rect, _ cut: Rect, into out: inout [Rect]) {
        forEachPiece(of: r, outside: cut) { out.append($0) }
    }

    /// Calls `body` with each part of `r` outside `cut` (up to four disjoint rectangles: the
    /// bands above and below, then the pieces left and right), allocating nothing.
    @inlinable
    public static func forEachPiece(of r: Rect, outside cut: Rect, _ body: (Rect) -> Void) {
        guard !r.isEmpty else { return }
        guard let i = r.intersection(cut) else {
            body(r)
            return
        }
        if i.minY > r.minY { body(Rect(x: r.x, y: r.y, width: r.width, height: i.minY - r.minY)) }
        if i.maxY < r.maxY { body(Rect(x: r.x, y: i.maxY, width: r.width, height: r.maxY - i.maxY)) }
        if i.minX > r.minX { body(Rect(x: r.x, y: i.minY, width: i.minX - r.minX, height: i.height)) }
        if i.maxX < r.maxX { body(Rect(x: i.maxX, y: i.minY, width: r.maxX - i.maxX, height: i.height)) }
    }

    @inlinable static func overlap(_ a: Rect, _ b: Rect) -> Bool {
        max(a.minX, b.minX) < min(a.maxX, b.maxX) && max(a.minY, b.minY) < min(a.maxY, b.maxY)
    }

    /// Removes `cut` from the region. (Frames run these a few hundred times each: a region
    /// that `cut` misses is left as it is, without allocating.)
    public mutating func subtract(_ cut: Rect) { split(cut, keepingInside: false) }

    /// Removes the part of the region inside `clip` and returns it: `intersection(clip)` and
    /// `subtract(clip)` in one pass (a frame plans an opaque surface so).
    public mutating func remove(_ clip: Rect) -> Region { split(clip, keepingInside: true) }

    /// Cuts the region along `clip`, keeping what lies outside; returns what lay inside when
    /// asked to keep it (else an empty region).
    @discardableResult
    private mutating func split(_ clip: Rect, keepingInside: Bool) -> Region {
        var inside = Region()
        guard !clip.isEmpty, rects.contains(where: { Region.overlap($0, clip) }) else { return inside }
        // All of it inside (a frame's strips under a pane): it moves over whole.
        if rects.allSatisfy({ clip.contains($0) }) {
            if keepingInside { swap(&inside.rects, &rects) } else { rects = [] }
            return inside
        }
        var outside: [Rect] = []
        outside.reserveCapacity(rects.count + 3)
        if keepingInside { inside.rects.reserveCapacity(rects.count) }
        for r in rects {
            guard let i = r.intersection(clip) else {
                outside.append(r)
                continue
            }
            if keepingInside { inside.rects.append(i) }
            Region.forEachPiece(of: r, outside: i) { outside.append($0) }
        }
        rects = outside
        return inside
    }

    /// Removes every rectangle of `other`.
    public mutating func subtract(_ other: Region) {
        for r in other.rects { subtract(r) }
    }

    /// Adds `rect`, keeping the rectangles disjoint.
    public mutating func formUnion(_ rect: Rect) {
        guard !rect.isEmpty else { return }
        // A frame's damage grows a few rectangles at a time: room for a few from the first.
        if rects.count == rects.capacity, rects.count < 8 { rects.reserveCapacity(8) }
        guard let first = rects.firstIndex(where: { Region.overlap($0, rect) }) else {
            rects.append(rect)
            return
        }
        // Already held whole (damage adds the same strips more than once): nothing to do.
        if rects[first...].contains(where: { $0.contains(rect) }) { return }
        // One rectangle in the way (most of a frame's damage): the pieces outside it go in as
        // the general case below would add them, without its working arrays.
        if !rects[(first + 1)...].contains(where: { Region.overlap($0, rect) }) {
            let existing = rects[first]
            Region.forEachPiece(of: rect, outside: existing) { rects.append($0) }
            return
        }
        var pieces = [rect], next: [Rect] = []
        for existing in rects where Region.overlap(existing, rect) {
            next.removeAll(keepingCapacity: true)
            for p in pieces { Region.subtract(p, existing, into: &next) }
            swap(&pieces, &next)
            if pieces.isEmpty { return }
        }
        rects += pieces
    }

    /// The most rectangles a damage region keeps: past it the region becomes its bounding box
    /// (more pixels repainted, never fewer), so adding a rectangle costs a bounded scan however
    /// many a client sends.
    public static let damageRectangleLimit = 64
    /// The most rectangles of one commit's damage taken as they are: more become their
    /// bounding box (a commit of 256 one-pixel rectangles stays legal, and costs one).
    public static let commitRectangleLimit = 16

    /// Adds `rect` as damage: the region becomes its bounding box once it holds more than
    /// `limit` rectangles.
    public mutating func formUnion(_ rect: Rect, collapsingPast limit: Int) {
        formUnion(rect)
        if rects.count > limit { rects = [bounds] }
    }

    /// Adds every rectangle of `other` as damage (see `formUnion(_:collapsingPast:)`).
    public mutating func formUnion(_ other: Region, collapsingPast limit: Int) {
        for r in other.rects { formUnion(r, collapsingPast: limit) }
    }

    /// A commit's damage as the compositor takes it: as sent up to `limit` rectangles, else
    /// their bounding box (empty rectangles left out).
    public static func bounded(_ damage: [Rect], limit: Int = commitRectangleLimit) -> [Rect] {
        guard damage.count > limit else { return damage }
        var box: Rect?
        for r in damage where !r.isEmpty { box = box.map { $0.union(r) } ?? r }
        return box.map { [$0] } ?? []
    }

    /// The part of the region inside `clip`.
    public func intersection(_ clip: Rect) -> Region {
        // A region inside the clip (a frame's damage inside the output) is itself.
        if rects.allSatisfy({ clip.contains($0) }) { return self }
        var r = Region()
        r.rects.reserveCapacity(rects.count)
        for rect in rects {
            if let i = rect.intersection(clip) { r.rects.append(i) }
        }
        return r
    }

    /// Adds every rectangle of `other`.
    public mutating func formUnion(_ other: Region) {
        for r in other.rects { formUnion(r) }
    }

    /// Whether any of the region lies inside `rect`.
    @inlinable public func overlaps(_ rect: Rect) -> Bool {
        !rect.isEmpty && rects.contains { Region.overlap($0, rect) }
    }

    /// The smallest rectangle holding the region (empty for an empty region).
    public var bounds: Rect {
        guard let first = rects.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        return rects.dropFirst().reduce(first) { $0.union($1) }
    }

    /// Whether the point (x, y) is inside.
    public func contains(x: Int, y: Int) -> Bool {
        rects.contains { x >= $0.minX && x < $0.maxX && y >= $0.minY && y < $0.maxY }
    }
}

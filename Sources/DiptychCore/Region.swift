// SPDX-License-Identifier: MIT
// A region as a set of disjoint rectangles: enough for visibility and damage with a few panes.

/// A set of points stored as disjoint rectangles. Pure value; no C.
public struct Region: Hashable, Sendable {
    /// Disjoint, non-empty rectangles.
    public private(set) var rects: [Rect] = []

    public init() {}
    public init(_ rect: Rect) { if !rect.isEmpty { rects = [rect] } }

    public var isEmpty: Bool { rects.isEmpty }
    /// The number of unit cells covered.
    public var area: Int { rects.reduce(0) { $0 + $1.width * $1.height } }

    /// The parts of `r` outside `cut`: up to four rectangles.
    static func subtract(_ r: Rect, _ cut: Rect) -> [Rect] {
        guard let i = r.intersection(cut) else { return [r] }
        var out: [Rect] = []
        if i.minY > r.minY { out.append(Rect(x: r.x, y: r.y, width: r.width, height: i.minY - r.minY)) }
        if i.maxY < r.maxY { out.append(Rect(x: r.x, y: i.maxY, width: r.width, height: r.maxY - i.maxY)) }
        if i.minX > r.minX { out.append(Rect(x: r.x, y: i.minY, width: i.minX - r.minX, height: i.height)) }
        if i.maxX < r.maxX { out.append(Rect(x: i.maxX, y: i.minY, width: r.maxX - i.maxX, height: i.height)) }
        return out
    }

    /// Removes `cut` from the region.
    public mutating func subtract(_ cut: Rect) {
        rects = rects.flatMap { Region.subtract($0, cut) }
    }

    /// Removes every rectangle of `other`.
    public mutating func subtract(_ other: Region) {
        for r in other.rects { subtract(r) }
    }

    /// Adds `rect`, keeping the rectangles disjoint.
    public mutating func formUnion(_ rect: Rect) {
        guard !rect.isEmpty else { return }
        var pieces = [rect]
        for existing in rects { pieces = pieces.flatMap { Region.subtract($0, existing) } }
        rects += pieces
    }

    /// The part of the region inside `clip`.
    public func intersection(_ clip: Rect) -> Region {
        var r = Region()
        r.rects = rects.compactMap { $0.intersection(clip) }
        return r
    }

    /// The smallest rectangle holding the region (empty for an empty region).
    public var bounds: Rect {
        guard let first = rects.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        var x0 = first.minX, y0 = first.minY, x1 = first.maxX, y1 = first.maxY
        for r in rects.dropFirst() {
            x0 = min(x0, r.minX)
            y0 = min(y0, r.minY)
            x1 = max(x1, r.maxX)
            y1 = max(y1, r.maxY)
        }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether the point (x, y) is inside.
    public func contains(x: Int, y: Int) -> Bool {
        rects.contains { x >= $0.minX && x < $0.maxX && y >= $0.minY && y < $0.maxY }
    }
}

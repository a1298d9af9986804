// SPDX-License-Identifier: MIT
// The one transform from the logical screen to the panel: output rotation composed
// with a uniform, centred scale for resolution-scaling emulation. Pure; the renderer turns it
// into a pixman transform, and input goes through its inverse.

/// An affine transform of the plane: x' = a·x + c·y + tx, y' = b·x + d·y + ty.
public struct AffineTransform: Equatable, Sendable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
    public static func translation(_ x: Double, _ y: Double) -> AffineTransform { AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y) }
    public static func scale(_ s: Double) -> AffineTransform { AffineTransform(a: s, b: 0, c: 0, d: s, tx: 0, ty: 0) }

    /// `other` applied first, then `self`.
    public func concatenating(_ other: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * other.a + c * other.b, b: b * other.a + d * other.b,
            c: a * other.c + c * other.d, d: b * other.c + d * other.d,
            tx: a * other.tx + c * other.ty + tx, ty: b * other.tx + d * other.ty + ty)
    }

    public var determinant: Double { a * d - b * c }

    /// The inverse; the transforms built here are never singular.
    public var inverted: AffineTransform {
        let det = determinant
        precondition(det != 0, "singular transform")
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineTransform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }

    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }

    /// Whether the transform only moves by whole pixels (possibly with quarter-turn
    /// rotations): then nearest sampling is exact, else bilinear is needed (Weston's rule).
    public var needsFiltering: Bool {
        let axisAligned = (b == 0 && c == 0 && abs(a) == 1 && abs(d) == 1) || (a == 0 && d == 0 && abs(b) == 1 && abs(c) == 1)
        return !(axisAligned && tx == tx.rounded() && ty == ty.rounded())
    }

    /// The rectangle covering the image of `r` (exact for the axis-aligned transforms used
    /// here), with edges rounded to whole pixels.
    public func apply(_ r: Rect) -> Rect {
        let p0 = apply(x: Double(r.minX), y: Double(r.minY)), p1 = apply(x: Double(r.maxX), y: Double(r.maxY))
        let x0 = min(p0.x, p1.x).rounded(), x1 = max(p0.x, p1.x).rounded()
        let y0 = min(p0.y, p1.y).rounded(), y1 = max(p0.y, p1.y).rounded()
        return Rect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }
}

/// A clockwise quarter-turn rotation of the output.
public enum OutputRotation: Int, Sendable, CaseIterable {
    case none = 0
    case quarter = 90
    case half = 180
    case threeQuarters = 270

    /// Degrees clockwise (`0`, `90`, `180`, `270`) or their names (`normal`, `right`,
    /// `inverted`, `left`).
    public static func named(_ text: String) -> OutputRotation? {
        switch text {
        case "normal": OutputRotation.none
        case "right": .quarter
        case "inverted": .half
        case "left": .threeQuarters
        default: Int(text).flatMap(OutputRotation.init(rawValue:))
        }
    }
    var swapsAxes: Bool { self == .quarter || self == .threeQuarters }
}

/// How the logical screen (pixels) lands on the panel (pixels).
public struct OutputGeometry: Equatable, Sendable {
    public var logical: Size
    public var panel: Size
    public var rotation: OutputRotation
    /// Logical pixels to panel pixels.
    public let transform: AffineTransform
    /// Panel pixels to logical pixels.
    public let inverse: AffineTransform
    /// The uniform scale (1 without emulation).
    public let scale: Double
    /// Whether logical pixels are panel pixels (no emulation, no rotation).
    public let isIdentity: Bool

    /// Fits `logical`, rotated, into `panel` with one uniform scale, centred (black bars where
    /// the aspects differ).
    public init(logical: Size, panel: Size, rotation: OutputRotation = .none) {
        self.logical = logical
        self.panel = panel
        self.rotation = rotation
        let w = Double(logical.width), h = Double(logical.height)
        let rotate: AffineTransform
        switch rotation {
        case .none: rotate = .identity
        case .quarter: rotate = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case .half: rotate = AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .threeQuarters: rotate = AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        }
        let rw = rotation.swapsAxes ? h : w, rh = rotation.swapsAxes ? w : h
        let s = min(Double(panel.width) / rw, Double(panel.height) / rh)
        let ox = ((Double(panel.width) - rw * s) / 2).rounded(.down), oy = ((Double(panel.height) - rh * s) / 2).rounded(.down)
        scale = s
        transform = AffineTransform.translation(ox, oy).concatenating(.scale(s)).concatenating(rotate)
        inverse = transform.inverted
        isIdentity = transform == .identity
    }

    /// Without emulation: a panel exactly the logical screen, rotated.
    public static func native(logical: Size, rotation: OutputRotation = .none) -> OutputGeometry {
        let panel = rotation.swapsAxes ? Size(width: logical.height, height: logical.width) : logical
        return OutputGeometry(logical: logical, panel: panel, rotation: rotation)
    }

    /// A panel point in logical pixels.
    public func toLogical(x: Double, y: Double) -> (x: Double, y: Double) { inverse.apply(x: x, y: y) }
    /// A logical point in panel pixels.
    public func toPanel(x: Double, y: Double) -> (x: Double, y: Double) { transform.apply(x: x, y: y) }

    /// A damaged logical rectangle as panel pixels, grown by the filter's footprint so no
    /// stale pixel is left at its edges, and clipped to the panel.
    public func damage(_ r: Rect) -> Rect? {
        guard !isIdentity else { return r.intersection(Rect(x: 0, y: 0, width: panel.width, height: panel.height)) }
        var p = transform.apply(r)
        if transform.needsFiltering {
            p = Rect(x: p.x - 1, y: p.y - 1, width: p.width + 2, height: p.height + 2)
        }
        return p.intersection(Rect(x: 0, y: 0, width: panel.width, height: panel.height))
    }
}

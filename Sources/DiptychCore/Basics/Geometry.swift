// SPDX-License-Identifier: MIT
// Integer geometry shared by every tier: points for layout, pixels for buffers.

/// A size in whole units (points or pixels; the property name or context says which).
public struct Size: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    @inlinable public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }

    /// Parses `WxH` (whole pixels, each side 1 to 16384): the one parser of sizes, used by
    /// `--emulate-on`, `--mode`, `emulateOn` in scenarios and custom `WxH@S` profiles.
    public init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let w = Int(parts[0]), let h = Int(parts[1]), (1...16384).contains(w), (1...16384).contains(h)
        else { return nil }
        self.init(width: w, height: h)
    }
}

/// An axis-aligned rectangle, origin at the top-left, in whole units.
public struct Rect: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    @inlinable public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    @inlinable public var minX: Int { x }
    @inlinable public var minY: Int { y }
    @inlinable public var maxX: Int { x + width }
    @inlinable public var maxY: Int { y + height }
    @inlinable public var isEmpty: Bool { width <= 0 || height <= 0 }
    @inlinable public var size: Size { Size(width: width, height: height) }

    /// The smallest rectangle holding both.
    @inlinable public func union(_ other: Rect) -> Rect {
        let x0 = min(minX, other.minX), y0 = min(minY, other.minY)
        return Rect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    /// The overlap of two rectangles, or nil when they do not overlap.
    @inlinable public func intersection(_ other: Rect) -> Rect? {
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether the point (x, y) lies inside (left and top edges included).
    public func contains(x px: Double, y py: Double) -> Bool {
        Double(minX) <= px && px < Double(maxX) && Double(minY) <= py && py < Double(maxY)
    }

    /// Whether `other` lies entirely inside this rectangle.
    @inlinable public func contains(_ other: Rect) -> Bool {
        other.minX >= minX && other.minY >= minY && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The squares at the corners that rounding by `radius` cuts into (clamped to half the
    /// sides): top-left, top-right, bottom-left, bottom-right; none when nothing is rounded.
    public func cornerSquares(radius: Int) -> [Rect] {
        let r = Swift.min(radius, width / 2, height / 2)
        guard r > 0 else { return [] }
        return [
            Rect(x: minX, y: minY, width: r, height: r), Rect(x: maxX - r, y: minY, width: r, height: r),
            Rect(x: minX, y: maxY - r, width: r, height: r), Rect(x: maxX - r, y: maxY - r, width: r, height: r),
        ]
    }

    /// This rectangle with every coordinate multiplied by `factor` (points to pixels).
    public func scaled(by factor: Int) -> Rect {
        Rect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// The JSON form used in layouts and events: `{"x":0,"y":0,"width":694,"height":768}`.
    public var json: JSONValue {
        .object([("x", .int(x)), ("y", .int(y)), ("width", .int(width)), ("height", .int(height))])
    }
}

extension String {
    /// The text with control characters (C0, DEL, C1), backslashes and the line and paragraph
    /// separators written as `\u{XX}` escapes: safe to put in a log line, whatever a client sent.
    public var escapedForLog: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x5C || v == 0x2028 || v == 0x2029 {
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A rectangle in fractional points (what a presentation is laid out in before it is drawn in
/// whole pixels).
public struct RectD: Equatable, Sendable, BitwiseCopyable {
    public var x, y, width, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public init(_ r: Rect) { self.init(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)) }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public func contains(_ px: Double, _ py: Double) -> Bool { px >= x && px < maxX && py >= y && py < maxY }
    public func offset(_ dx: Double, _ dy: Double) -> RectD { RectD(x: x + dx, y: y + dy, width: width, height: height) }
    /// In whole pixels at `scale`, its edges rounded.
    public func pixels(_ scale: Int) -> Rect {
        let s = Double(scale), x0 = (x * s).rounded(), y0 = (y * s).rounded()
        return Rect(x: Int(x0), y: Int(y0), width: Int((maxX * s).rounded() - x0), height: Int((maxY * s).rounded() - y0))
    }
}

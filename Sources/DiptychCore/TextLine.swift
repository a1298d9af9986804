// SPDX-License-Identifier: MIT
// A short line of text held inline, so that the scene's nodes are plain values.

/// A line of text of at most 31 UTF-8 bytes, stored in the value itself: scene nodes that
/// carry text (a placeholder's app name, the status bar's clock) are copied and compared as
/// plain memory, without reference counting (a frame copies and compares every node). Longer
/// text is cut at a character boundary and ends with "…" (a label that long would not fit a
/// pane's band anyway; a client's name cannot make the scene hold more memory).
public struct TextLine: Hashable, Sendable, BitwiseCopyable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The most UTF-8 bytes a line holds.
    public static let capacity = 31
    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
    /// Bytes used (the last byte of `w3` holds it).
    public var count: Int { Int(w3 >> 56) }

    public init(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count > Self.capacity else {
            self.init(bytes: utf8)
            return
        }
        // Whole characters, as many as fit with the ellipsis.
        let ellipsis = "…".utf8.count
        var end = text.startIndex
        for i in text.indices {
            if text.utf8.distance(from: text.startIndex, to: text.index(after: i)) + ellipsis > Self.capacity { break }
            end = text.index(after: i)
        }
        self.init(bytes: (text[..<end] + "…").utf8)
    }

    /// At most `capacity` bytes.
    private init(bytes: some Sequence<UInt8>) {
        var n = 0
        for b in bytes {
            let shift = UInt64(8 * (n % 8))
            switch n / 8 {
            case 0: w0 |= UInt64(b) << shift
            case 1: w1 |= UInt64(b) << shift
            case 2: w2 |= UInt64(b) << shift
            default: w3 |= UInt64(b) << shift
            }
            n += 1
        }
        w3 |= UInt64(n) << 56
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The UTF-8 bytes.
    public var utf8: [UInt8] {
        // Byte i is byte i % 8 of word i / 8: the words' little-endian bytes in order.
        withUnsafeBytes(of: (w0.littleEndian, w1.littleEndian, w2.littleEndian, w3.littleEndian)) { Array($0.prefix(count)) }
    }

    public var string: String { String(decoding: utf8, as: UTF8.self) }
    public var description: String { string }
    public var isEmpty: Bool { count == 0 }
}

// SPDX-License-Identifier: MIT
// A short line of text held inline, so that the scene's nodes are plain values.

/// A line of text of at most 31 UTF-8 bytes, stored in the value itself: scene nodes that
/// carry text (a placeholder's app name, the status bar's clock) are copied and compared as
/// plain memory, without reference counting (a frame copies and compares every node). Longer
/// text is cut at a character boundary and ends with "…" (a label that long would not fit a
/// pane's band anyway; a client's name cannot make the scene hold more memory).
public struct TextLine: Hashable, Sendable, BitwiseCopyable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The most UTF-8 bytes a line holds.
    public static let capacity = 31
    private var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
    /// Bytes used (the last byte of `w3` holds it).
    public var count: Int { Int(w3 >> 56) }

    public init(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.count > Self.capacity {
            // Cut whole characters until the ellipsis fits.
            let ellipsis = Array("…".utf8)
            var cut = ""
            for c in text {
                if cut.utf8.count + String(c).utf8.count + ellipsis.count > Self.capacity { break }
                cut.append(c)
            }
            bytes = Array(cut.utf8) + ellipsis
        }
        var words: [UInt64] = [0, 0, 0, 0]
        for (i, b) in bytes.enumerated() { words[i / 8] |= UInt64(b) << UInt64(8 * (i % 8)) }
        words[3] |= UInt64(bytes.count) << 56
        (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The UTF-8 bytes.
    public var utf8: [UInt8] {
        let words = [w0, w1, w2, w3]
        return (0..<count).map { UInt8(truncatingIfNeeded: words[$0 / 8] >> UInt64(8 * ($0 % 8))) }
    }

    public var string: String { String(decoding: utf8, as: UTF8.self) }
    public var description: String { string }
    public var isEmpty: Bool { count == 0 }
}

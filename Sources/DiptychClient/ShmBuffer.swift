// SPDX-License-Identifier: MIT
// A buffer object of the client library: shared memory sealed against shrinking, mapped
// writable, registered with the compositor.

import DiptychCore
import DiptychLinux
import DiptychWire
import Glibc

/// A buffer object: a memfd sealed against shrinking, mapped writable, registered with the
/// compositor under `id` (protocol version 2). Owns the memfd and the mapping. Draw into it only
/// while it is not busy: from a commit (or snapshot) until the compositor's `release`, the
/// compositor may be reading it.
public final class ShmBuffer {
    /// The buffer's id on the connection that created it.
    public let id: UInt32
    package let fd: SharedDescriptor
    package let mapping: MemoryMapping
    /// Where the pixels are in the memfd and how they are laid out.
    public let layout: BufferLayout
    /// Committed (or sent as a snapshot) and not yet released.
    public internal(set) var isBusy = false
    /// Destroyed: the id is gone and the buffer must not be used.
    public internal(set) var isDestroyed = false

    public var width: Int { Int(layout.width) }
    public var height: Int { Int(layout.height) }

    /// Calls `body` with the buffer's pixels (`layout.stride` bytes a row), to draw into them.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try mapping.withUnsafeMutableBytes(body)
    }

    /// Calls `body` with the pixels as 32-bit words, `wordsPerRow` to a row (XRGB8888 or
    /// ARGB8888: `0xAARRGGBB` in the machine's little-endian order, blue in the low byte).
    public func withUnsafeMutablePixels<R, E: Error>(_ body: (_ pixels: UnsafeMutableBufferPointer<UInt32>, _ wordsPerRow: Int) throws(E) -> R) throws(E) -> R {
        let stride = Int(layout.stride) / 4, offset = Int(layout.offset)
        return try mapping.withUnsafeMutableBytes { (raw) throws(E) -> R in
            let words = UnsafeMutableBufferPointer(start: (raw.baseAddress! + offset).assumingMemoryBound(to: UInt32.self), count: (raw.count - offset) / 4)
            return try body(words, stride)
        }
    }

    /// Fills `rect` (buffer pixels, clipped to the buffer) with `color` (`0xRRGGBB`; opaque).
    public func fill(_ rect: Rect, color: UInt32) {
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(width, rect.x + rect.width), y1 = min(height, rect.y + rect.height)
        guard x1 > x0, y1 > y0 else { return }
        withUnsafeMutablePixels { pixels, stride in
            for y in y0..<y1 {
                let row = y * stride
                for x in x0..<x1 { pixels[row + x] = 0xFF00_0000 | color }
            }
        }
    }

    /// Draws `text` in the libraries' small bitmap font: printable ASCII, each character 5 × 7
    /// font pixels on a 6-pixel advance, each font pixel `scale` × `scale` buffer pixels (any
    /// other character a "?"); (`x`, `y`) its top left, `color` `0xRRGGBB`, cut to the buffer.
    /// Returns the width drawn (`ShmBuffer.textWidth`). The C and Python libraries draw the same
    /// pixels from the same table.
    @discardableResult
    public func drawText(_ text: String, x: Int, y: Int, scale: Int, color: UInt32) -> Int {
        guard scale >= 1 else { return 0 }
        var pen = x
        for c in text.unicodeScalars {
            let rows = fontRows[Self.glyph(c)]
            for (r, bits) in rows.enumerated() {
                for col in 0..<5 where bits & (0x10 >> col) != 0 {
                    fill(Rect(x: pen + col * scale, y: y + r * scale, width: scale, height: scale), color: color)
                }
            }
            pen += 6 * scale
        }
        return pen - x
    }

    /// The width in buffer pixels of `text` in the bitmap font at `scale`: 6 × `scale` a character.
    public static func textWidth(_ text: String, scale: Int) -> Int { scale >= 1 ? text.unicodeScalars.count * 6 * scale : 0 }

    /// A character's glyph in the font's table: printable ASCII, else "?".
    static func glyph(_ c: Unicode.Scalar) -> Int { (0x20...0x7E).contains(c.value) ? Int(c.value) - 0x20 : Int(UInt8(ascii: "?")) - 0x20 }

    /// A memfd of `width` × `height` pixels. With `seal` false the memfd is left unsealed, and
    /// `fileSize` overrides its size: only for the tests of the compositor's checks.
    package init(id: UInt32, width: Int, height: Int, format: FourCC = .xrgb8888, seal: Bool = true, fileSize: Int? = nil, name: String = "diptych-buffer") throws(SystemError) {
        let stride = width * 4
        let size = fileSize ?? stride * height
        let memfd = try FileDescriptor.memfd(name: name, size: max(size, 4))
        if seal { try memfd.addSeals([.shrink, .seal]) }
        mapping = try MemoryMapping(fd: memfd, length: max(size, 4), writable: true)
        layout = BufferLayout(offset: 0, width: UInt32(width), height: UInt32(height), stride: UInt32(stride), format: format)
        fd = SharedDescriptor(memfd)
        self.id = id
    }
}

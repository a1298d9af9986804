// SPDX-License-Identifier: MIT
// PNG files through libpng's simplified API (png_image_*), which reports errors without
// setjmp/longjmp, so no C frame ever jumps across Swift frames.

import CPNG
import CPixman
import DiptychLinux
import Glibc

/// A PNG file could not be written or read. `description` names the file.
public struct PNGError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// libpng's simplified-API format codes (the `PNG_FORMAT_*` macros are compound expressions).
private let pngFormatRGB: UInt32 = 0x02  // PNG_FORMAT_FLAG_COLOR
private let pngFormatBGRA: UInt32 = 0x13  // COLOR | BGR | ALPHA

private func libpngMessage(_ image: inout png_image) -> String {
    withUnsafeBytes(of: &image.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension PixelImage {
    /// Writes the image as an 8-bit RGB PNG, atomically (temporary file and rename), so an
    /// interrupted run never leaves a half-written PNG.
    ///
    /// - Parameter compact: compress hard (about 4× smaller and 4× slower on flat UI frames:
    ///   22 KB in 300 ms against 97 KB in 65 ms for a 2732×2048 split). Golden references use
    ///   it; captures default to speed.
    public func writePNG(to path: String, compact: Bool = false) throws(PNGError) {
        // Convert to packed R,G,B bytes with pixman: PIXMAN_b8g8r8 is 0xBBGGRR in a 24-bit
        // little-endian word, so its bytes are R, G, B.
        let rgbStride = (width * 3 + 3) & ~3
        let rgb = calloc(height, rgbStride)!
        defer { free(rgb) }
        let dst = pixman_image_create_bits(PIXMAN_b8g8r8, Int32(width), Int32(height), rgb.assumingMemoryBound(to: UInt32.self), Int32(rgbStride))!
        pixman_image_composite32(PIXMAN_OP_SRC, image, nil, dst, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
        pixman_image_unref(dst)

        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = pngFormatRGB
        png.flags = compact ? 0 : 0x02  // PNG_IMAGE_FLAG_FAST
        var size = 0
        guard png_image_write_to_memory(&png, nil, &size, 0, rgb, Int32(rgbStride), nil) != 0 else {
            throw PNGError(path: path, reason: "libpng: \(libpngMessage(&png))")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { raw in
            png_image_write_to_memory(&png, raw.baseAddress, &size, 0, rgb, Int32(rgbStride), nil)
        }
        guard ok != 0 else { throw PNGError(path: path, reason: "libpng: \(libpngMessage(&png))") }
        bytes.removeSubrange(size...)
        do {
            try Files.writeAtomically(path, bytes: bytes)
        } catch {
            throw PNGError(path: path, reason: error.description)
        }
    }

    /// Reads a PNG (any colour type libpng's simplified API reads) as an ARGB8888 image.
    public static func readPNG(from path: String) throws(PNGError) -> PixelImage {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&png, path) != 0 else {
            throw PNGError(path: path, reason: "cannot read PNG: \(libpngMessage(&png))")
        }
        guard png.width > 0, png.height > 0, png.width <= 16384, png.height <= 16384 else {
            png_image_free(&png)
            throw PNGError(path: path, reason: "PNG size \(png.width)x\(png.height) is out of range")
        }
        png.format = pngFormatBGRA
        let image = PixelImage(width: Int(png.width), height: Int(png.height), format: .argb8888)
        guard png_image_finish_read(&png, nil, image.bits, Int32(image.stride), nil) != 0 else {
            throw PNGError(path: path, reason: "cannot decode PNG: \(libpngMessage(&png))")
        }
        return image
    }
}

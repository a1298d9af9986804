// SPDX-License-Identifier: MIT
// Validation of client buffers before any pixel is touched, with overflow-checked arithmetic
// (the rules of wlroots' types/wlr_shm.c, plus the seal that makes a later shrink impossible).

extension BufferLayout {
    /// Checks a buffer against the file that holds it.
    ///
    /// - Parameters:
    ///   - fileSize: the memfd's size from fstat, in bytes.
    ///   - sealedAgainstShrinking: whether the memfd carries `F_SEAL_SHRINK`.
    ///   - expected: the pixel size the client was configured to, if it must match.
    /// - Throws: the first rule broken, named for the client.
    public func validate(fileSize: Int, sealedAgainstShrinking: Bool) throws(ProtocolError) {
        guard sealedAgainstShrinking else {
            throw ProtocolError(.unsealedBuffer, "the buffer's memfd is not sealed with F_SEAL_SHRINK")
        }
        // Only offset + stride × height is ever mapped, but a file far larger than any buffer
        // can span is refused outright.
        guard fileSize <= Wire.maxFileSize else {
            throw ProtocolError(.sizeOverflow, "the memfd is \(fileSize) bytes, over the \(Wire.maxFileSize) bytes a buffer's file may have")
        }
        guard format == .xrgb8888 || format == .argb8888 else {
            throw ProtocolError(.badFormat, "format \(format) (0x\(String(format.rawValue, radix: 16))) is not XRGB8888 or ARGB8888")
        }
        guard (1...UInt32(Wire.maxBufferSide)).contains(width), (1...UInt32(Wire.maxBufferSide)).contains(height) else {
            throw ProtocolError(.badDimensions, "\(width)x\(height) is outside 1...\(Wire.maxBufferSide) pixels per side")
        }
        guard stride % 4 == 0 else { throw ProtocolError(.badStride, "stride \(stride) is not a multiple of 4") }
        let (rowBytes, rowOverflow) = Int32(width).multipliedReportingOverflow(by: 4)
        guard !rowOverflow, Int64(stride) >= Int64(rowBytes) else {
            throw ProtocolError(.badStride, "stride \(stride) is less than width \(width) × 4 bytes")
        }
        // pixman addresses rows with an int stride and the whole image with int offsets: keep
        // offset + stride × height within Int32 so no later computation can wrap.
        let (span, o1) = Int32(clamping: Int64(stride)).multipliedReportingOverflow(by: Int32(height))
        let (end, o2) = span.addingReportingOverflow(Int32(clamping: Int64(offset)))
        guard stride <= UInt32(Int32.max), offset <= UInt32(Int32.max), !o1, !o2 else {
            throw ProtocolError(.sizeOverflow, "offset \(offset) + stride \(stride) × height \(height) overflows")
        }
        guard offset % 4 == 0 else { throw ProtocolError(.badStride, "offset \(offset) is not a multiple of 4") }
        guard Int(end) <= fileSize else {
            throw ProtocolError(.bufferTooSmall, "the memfd holds \(fileSize) bytes but offset + stride × height needs \(end)")
        }
    }
}

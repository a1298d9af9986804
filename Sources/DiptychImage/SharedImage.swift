// SPDX-License-Identifier: MIT
// Pixel images over shared memory mappings (client buffers and the buffers clients draw into).

import DiptychLinux

extension PixelImage {
    /// An image over a mapping at `offset`, keeping the mapping alive. The caller has validated
    /// the layout (see `BufferLayout.validate`): offset + stride × height ≤ the mapping's length.
    public convenience init(mapping: MemoryMapping, offset: Int, width: Int, height: Int, stride: Int, format: PixelFormat) {
        precondition(offset >= 0 && width > 0 && height > 0 && stride >= width * 4 && offset + stride * height <= mapping.length)
        let base = mapping.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        self.init(foreign: base, offset: offset, width: width, height: height, stride: stride, format: format, owner: mapping)
    }
}

// SPDX-License-Identifier: MIT
// The buffer a frame is drawn into, with its age: how many presents ago it last held the frame
// on screen. The renderer draws straight into it, repainting the damage of as many frames as it
// is old (the buffer-age scheme of EGL_EXT_buffer_age). Scanout memory is slow to read, so what
// must be read back (blending) is composed in a shadow image and copied in.

import DiptychCore

/// The buffer to draw the next frame into.
public struct FrameTarget {
    /// Where the frame goes.
    public var image: PixelImage
    /// How many frames old its contents are: 1 holds the frame on screen now, 2 the one before,
    /// 0 unknown (repaint everything).
    public var age: Int
    /// Where to compose what needs the target's pixels read back (blending), when reading the
    /// target itself is slow (scanout memory); nil when the target may be read.
    public var shadow: PixelImage?

    public init(image: PixelImage, age: Int, shadow: PixelImage? = nil) {
        self.image = image
        self.age = age
        self.shadow = shadow
    }
}

extension FrameTarget {
    /// What this buffer must repaint: the frame's `damage` (since the frame on screen) and that
    /// of the `age - 1` frames shown since the buffer was (`history`, oldest first); nil,
    /// everything, when any of those is unknown.
    public func repaintRegion(_ damage: Region?, history: [Region?]) -> Region? {
        guard var region = damage, age >= 1, history.count >= age - 1 else { return nil }
        for d in history.suffix(age - 1) {
            guard let d else { return nil }
            region.formUnion(d, collapsingPast: Region.damageRectangleLimit)
        }
        return region
    }
}

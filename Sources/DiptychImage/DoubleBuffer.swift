// SPDX-License-Identifier: MIT
// A shadow image and two output buffers (the shape of a KMS output with two dumb buffers):
// frames are composited into the shadow, and each present copies into the back buffer only
// what changed since that buffer was last shown, the union of the last two frames' damage.
// Reading scanout memory is slow, so the shadow is what the renderer draws into.

import CPixman
import DiptychCore

/// Two output buffers fed from one shadow image by damage.
public final class DoubleBuffer {
    /// What the renderer draws into.
    public let shadow: PixelImage
    /// The buffers shown in turn.
    public let buffers: [PixelImage]
    /// The buffer shown now.
    public private(set) var front = 1
    /// The damage of the last frame presented (nil: everything).
    private var previousDamage: Region?
    private var presented = 0

    public init(size: Size, makeBuffer: (Size) -> PixelImage = { PixelImage(width: $0.width, height: $0.height) }) {
        shadow = PixelImage(width: size.width, height: size.height)
        buffers = [makeBuffer(size), makeBuffer(size)]
    }

    /// Over two existing buffers of the shadow's size (scanout buffers), `front` on screen.
    public init(buffers: [PixelImage], front: Int) {
        precondition(buffers.count == 2 && buffers[0].width == buffers[1].width && buffers[0].height == buffers[1].height)
        shadow = PixelImage(width: buffers[0].width, height: buffers[0].height)
        self.buffers = buffers
        self.front = front
    }

    /// The last present was not shown (its flip failed): the front buffer stays on screen and
    /// the next present copies everything.
    public func presentFailed() {
        front = 1 - front
        invalidate()
    }

    /// Forgets what the buffers hold (an output that came back): the next presents copy all.
    public func invalidate() {
        presented = 0
        previousDamage = nil
    }

    /// Presents the shadow: copies into the back buffer the union of this frame's damage and
    /// the previous frame's (nil: everything, as for the first two frames), then makes it the
    /// front buffer. Returns the region copied.
    @discardableResult
    public func present(damage: Region?) -> Region {
        let full = Region(Rect(x: 0, y: 0, width: shadow.width, height: shadow.height))
        var copy: Region
        if presented < 2 || damage == nil || previousDamage == nil {
            copy = full
        } else {
            copy = damage!
            for r in previousDamage!.rects { copy.formUnion(r) }
        }
        let back = 1 - front
        for r in copy.rects {
            pixman_image_composite32(
                PIXMAN_OP_SRC, shadow.image, nil, buffers[back].image, Int32(r.x), Int32(r.y), 0, 0,
                Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        }
        front = back
        previousDamage = damage
        presented += 1
        return copy
    }
}

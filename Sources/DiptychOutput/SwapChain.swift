// SPDX-License-Identifier: MIT
// Output buffers shown in turn (the shape of a KMS output with two dumb buffers), each with its
// age (see `FrameTarget`).

import DiptychCore
import DiptychImage

/// Buffers shown in turn, with their ages.
public final class SwapChain {
    /// The buffers shown in turn.
    public let buffers: [PixelImage]
    /// The buffer shown now (or queued to be).
    public private(set) var front: Int
    /// Each buffer's age (see `FrameTarget.age`).
    public private(set) var ages: [Int]
    /// Scratch for blended regions, the size of a buffer.
    public let shadow: PixelImage

    /// Over existing buffers of one size (scanout buffers), `front` on screen; every age unknown.
    public init(buffers: [PixelImage], front: Int) {
        precondition(buffers.count >= 2 && buffers.allSatisfy { $0.width == buffers[0].width && $0.height == buffers[0].height })
        self.buffers = buffers
        self.front = front
        ages = Array(repeating: 0, count: buffers.count)
        shadow = PixelImage(width: buffers[0].width, height: buffers[0].height)
    }

    /// Two buffers in memory of `size`.
    public convenience init(size: Size) {
        self.init(buffers: (0..<2).map { _ in PixelImage(width: size.width, height: size.height) }, front: 1)
    }

    /// The buffer to be shown next.
    public var back: Int { (front + 1) % buffers.count }

    /// The next frame's target: the back buffer, its age, and the shadow.
    public func target() -> FrameTarget { FrameTarget(image: buffers[back], age: ages[back], shadow: shadow) }

    /// The back buffer was drawn and is now shown: it holds the newest frame (age 1) and every
    /// other buffer is one frame older.
    public func presented() {
        for i in ages.indices where ages[i] > 0 { ages[i] += 1 }
        ages[back] = 1
        front = back
    }

    /// The frame drawn into the back buffer was not shown: what it holds is no frame that was
    /// on screen, so it is repainted whole next time.
    public func presentFailed() { ages[back] = 0 }

    /// Forgets what every buffer holds (an output that came back): the next frames repaint all.
    public func invalidate() { ages = Array(repeating: 0, count: buffers.count) }
}

// SPDX-License-Identifier: MIT
// The pixels of a cross-fade and of a rotation's turn: the old frame kept, fitted to the panel
// after the change, the turn's reduced pictures, and the operations that draw them. When a
// fade runs and how far it is are the desk's (policy); what it draws is here.

import DiptychCore
import DiptychImage

/// The old frame fading out over the new one, or turning into it.
public struct CrossFadePictures {
    /// The old frame as it was on the panel (reduced `TurnPictures.reduction` times for a
    /// turn), in the old panel's pixels.
    public private(set) var old: PixelImage
    /// New output pixel to old output pixel (nil: the same pixel).
    public private(set) var transform: AffineTransform?
    /// A turn's reduced pictures, when the screen turns rather than fades.
    public private(set) var turn: TurnPictures?

    public init(old: PixelImage) { self.old = old }

    /// Keeps showing the old frame through `transform` (new pixel to old), as a fade or, with
    /// `turnInto` (the reduced panel's size), as the turn's old picture: the old frame as it
    /// sat on the panel redrawn in the new panel's orientation, once.
    public mutating func fit(transform: AffineTransform?, turnInto target: Size?) {
        self.transform = transform
        guard let target else { return }
        let picture = PixelImage(width: target.width, height: target.height)
        PixmanRenderer.replay([.composite(
            image: old, opaque: true, transform: transform, filter: .nearest, rects: [Rect(x: 0, y: 0, width: target.width, height: target.height)],
            sourceOffset: (0, 0))], into: picture)
        turn = TurnPictures(old: picture, fresh: PixelImage(width: target.width, height: target.height), frame: PixelImage(width: target.width, height: target.height))
    }

    /// The operation that draws the old frame at `alpha` over a panel of `panel` (a fade), or
    /// the turn's frame scaled up over it (a turn).
    public func operation(alpha: UInt8, panel: Size) -> RenderOperation {
        let all = Rect(x: 0, y: 0, width: panel.width, height: panel.height)
        if let t = turn {
            let m = AffineTransform(a: Double(t.frame.width) / Double(panel.width), b: 0, c: 0, d: Double(t.frame.height) / Double(panel.height), tx: 0, ty: 0)
            return .composite(image: t.frame, opaque: true, transform: m, filter: .nearest, rects: [all], sourceOffset: (0, 0))
        }
        return .composite(
            image: old, opaque: true, transform: transform, filter: .nearest, rects: [all], sourceOffset: (0, 0),
            mask: RenderMask(source: .constant(alpha)))
    }
}

/// A rotation's turn: the old frame and the new scene, reduced (`reduction` times smaller each
/// way), turned together about the screen's centre into a reduced frame that is then scaled up
/// over the output.
public struct TurnPictures {
    /// The old frame as it sat on the panel, reduced, in the new panel's orientation.
    public var old: PixelImage
    /// The new scene, drawn reduced each frame of the turn.
    public var fresh: PixelImage
    /// The reduced frame the two are turned into.
    public var frame: PixelImage
    public static let reduction = MotionMetrics.turnReduction

    /// Turns the old picture and the new (drawn into `fresh` by then) into `frame`: each at its
    /// angle (radians) and opacity.
    public func draw(old o: (angle: Double, opacity: UInt8), new n: (angle: Double, opacity: UInt8)) {
        Turning.draw([
            Turning.Layer(image: fresh, angle: n.angle, opacity: n.opacity),
            Turning.Layer(image: old, angle: o.angle, opacity: o.opacity),
        ], into: frame)
    }
}

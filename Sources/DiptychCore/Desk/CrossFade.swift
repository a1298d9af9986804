// SPDX-License-Identifier: MIT
// A rotation's or an emulation change's cross-fade as the desk decides it: when it began, how
// long it takes, whether the old frame turns into the new one, and how far it is at a time.
// Its pixels are the renderer's (`CrossFadePictures`), drawn `MotionMetrics.turnReduction`
// times smaller for a turn.


/// A cross-fade of the old orientation's last frame over the new one, or its turn into it:
/// when it began, how long it takes, and the angle a turn turns through.
package struct CrossFade {
    package var start: UInt64
    /// How long a fade takes (ms).
    package var duration = MotionMetrics.fadeMilliseconds
    /// When the screen turned: the angle the old picture turns through (radians, clockwise on
    /// the panel: ±π/2 or π), instead of a fade.
    package var turnAngle: Double?

    /// How the fading frame, of `old` pixels, is fitted to the output after a geometry change:
    /// the same pixels on a panel of the same size, turned a quarter when the panel turned
    /// with the screen (a headless output follows the logical screen); no fade (nil) for any
    /// other change of size. With `turning` (the change of the logical screen's angle on the
    /// panel, for a rotation) the old frame turns into the new one instead of fading over it:
    /// `turnInto` is then the reduced panel the turn is drawn in.
    package mutating func fit(old: Size, to panel: Size, turning: Double?) -> (transform: AffineTransform?, turnInto: Size?)? {
        // A turn's old frame is already reduced: compare it with the reduced panel.
        let k = turning == nil ? 1 : MotionMetrics.turnReduction
        let target = Size(width: max(1, panel.width / k), height: max(1, panel.height / k))
        var angle = turning, transform: AffineTransform?
        if old.width == target.height && old.height == target.width && old != target {
            // New pixel (x, y) shows old pixel (y, h − x): the old frame turned clockwise (as
            // it sat on the panel, which turned with the screen); it turns back by a quarter.
            transform = AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: Double(old.height))
            angle = turning.map { $0 - .pi / 2 }
        } else if old != target {
            return nil
        }
        guard var a = angle else { return (transform, nil) }
        // The shorter way round (a half turn stays a half turn).
        while a > .pi { a -= 2 * .pi }
        while a <= -.pi { a += 2 * .pi }
        if abs(a) < 0.01 { return nil }
        turnAngle = a
        return (transform, target)
    }

    /// How far a turn is at `now`: the old picture's angle and opacity, and the new picture's
    /// (nil when no turn runs, or its time is up: the frame that ends it draws the scene).
    package func turn(at now: UInt64) -> (old: (angle: Double, opacity: UInt8), new: (angle: Double, opacity: UInt8))? {
        guard let angle = turnAngle else { return nil }
        let elapsed = now >= start ? now - start : 0
        guard elapsed < MotionMetrics.turnMilliseconds else { return nil }
        let p = Spring.progress(elapsed: elapsed, duration: MotionMetrics.turnMilliseconds)
        // The two cross-fade across the middle of the turn.
        let q = max(0, min(1, (p - 0.3) / 0.4)), mix = q * q * (3 - 2 * q)
        return ((angle * p, UInt8(((1 - mix) * 255).rounded())), (angle * (p - 1), UInt8((mix * 255).rounded())))
    }

    /// The old frame's opacity in a frame at `now`, drawn over the new scene (easing from
    /// opaque to clear; a turn's frame is drawn opaque). Nil once it has run its course (the
    /// frame that follows repaints the output without it).
    package func alpha(at now: UInt64) -> UInt8? {
        let elapsed = now >= start ? now - start : 0
        guard elapsed < (turnAngle == nil ? duration : MotionMetrics.turnMilliseconds) else { return nil }
        if turnAngle != nil { return 255 }
        return UInt8(((1 - Spring.progress(elapsed: elapsed, duration: duration)) * 255).rounded())
    }
}

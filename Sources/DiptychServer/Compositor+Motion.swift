// SPDX-License-Identifier: MIT
// Motion the compositor owns: the cross-fade of a rotation (or of a change of
// emulated device) from the old orientation's last frame, and what frames record of the panes
// they showed. Pane settles are the shell's (`Motion.swift` in DiptychCore).

import DiptychCore
import DiptychImage
import DiptychRender

/// The last frame of the old orientation, fading out over the new one.
struct CrossFade {
    /// A copy of the output as it was, in the old panel's pixels.
    var image: PixelImage
    var start: UInt64
    /// New output pixel to old output pixel (nil: the same pixel).
    var transform: AffineTransform?
}

/// What a frame showed, in points: each pane's role, left edge and width, the divider, and
/// the Picture in Picture windows' frames.
public struct ShownPanes: Sendable {
    public var panes: [(role: Role, x: Int, width: Int)]
    public var divider: Int?
    public var pip: [Rect] = []

    public var json: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("panes", .array(panes.map { .object([("role", .string($0.role.rawValue)), ("x", .int($0.x)), ("width", .int($0.width))]) })),
            ("divider", divider.map { .int($0) } ?? .null),
        ]
        if !pip.isEmpty { fields.append(("pip", .array(pip.map(\.json)))) }
        return fields
    }
}

extension Compositor {
    /// Starts a cross-fade from what the output shows now; call before the geometry changes.
    func beginCrossFade() {
        guard frameCount > 0 else { return }
        fade = CrossFade(image: backend.lastFrame.copy(), start: now, transform: nil)
    }

    /// Fits the fading frame to the output after a geometry change: the same pixels on a
    /// panel of the same size, turned a quarter when the panel turned with the screen (a
    /// headless output follows the logical screen); no fade for any other change of size.
    func fitCrossFade() {
        guard let f = fade else { return }
        let old = Size(width: f.image.width, height: f.image.height), new = geometry.panel
        if old == new { return }
        if old.width == new.height && old.height == new.width {
            // New pixel (x, y) shows old pixel (y, h − x): the old frame turned clockwise.
            fade?.transform = AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: Double(old.height))
        } else {
            fade = nil
        }
    }

    /// The fade's operation for a frame at `now`, drawn over the new scene: the old frame at
    /// an alpha easing from opaque to clear. Nil once it has run its course (the frame that
    /// follows repaints the output without it).
    func fadeOperation() -> RenderOperation? {
        guard let f = fade else { return nil }
        let elapsed = now >= f.start ? now - f.start : 0
        guard elapsed < MotionMetrics.fadeMilliseconds else {
            fade = nil
            return nil
        }
        let p = Spring.progress(elapsed: elapsed, duration: MotionMetrics.fadeMilliseconds)
        let alpha = UInt8(((1 - p) * 255).rounded())
        let all = Rect(x: 0, y: 0, width: geometry.panel.width, height: geometry.panel.height)
        return .composite(
            image: f.image, opaque: true, transform: f.transform, filter: .nearest, rects: [all], sourceOffset: (0, 0),
            mask: RenderMask(source: .constant(alpha)))
    }

    /// Whether the screen is in motion at `now`: panes settling or following a finger, or a
    /// cross-fade.
    public var isInMotion: Bool {
        isAnimating || shell.isFollowingFinger || pip.isHeld
    }

    /// Whether something moves by itself at `now`: panes settling, or a cross-fade.
    public var isAnimating: Bool { fade != nil || isSettlingNow || pip.isSettling(at: now) }

    /// What moves at `now`: "fade" (a rotation's cross-fade), "settle" (panes coming to rest),
    /// "follow" (panes following a finger); nil when the screen is still.
    public var motionKind: String? {
        if fade != nil { return "fade" }
        if isSettlingNow || pip.isSettling(at: now) { return "settle" }
        if shell.isFollowingFinger || pip.isHeld { return "follow" }
        return nil
    }

    /// The panes as drawn now (`Shell.presentation(at:)`), the settle read from the shell's
    /// field: a method called on the stored shell runs on a copy of all of it, every frame.
    var presentedPanes: [PresentedPane] {
        if let m = shell.motion, m.isRunning(at: now) { return m.panes(at: now) }
        return shell.presentation
    }

    /// The panes and divider as drawn at `now`, in points.
    public var shownPanes: ShownPanes {
        let panes = presentedPanes.filter { session($0.app) != nil || ghostContent($0.app) != nil }
        return ShownPanes(
            panes: panes.map { ($0.role, $0.frame.x, $0.frame.width) },
            divider: PresentedPane.divider(between: panes, screen: shell.layout.screen)?.x, pip: pipFrames)
    }
}

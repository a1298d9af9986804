// SPDX-License-Identifier: MIT
// Motion as frames see it: the desk's (settles, a held or settling window, a rotation's
// cross-fade), and what frames record of the panes they showed.

import DiptychCore
import DiptychImage
import DiptychRender

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
    /// Begins a cross-fade from `picture` (what the output showed), for `milliseconds`.
    func beginFade(from picture: PixelImage, milliseconds: UInt64 = MotionMetrics.fadeMilliseconds) {
        desk.beginFade(at: now, milliseconds: milliseconds)
        main.fadePictures = CrossFadePictures(old: picture)
    }

    /// The fade's operation for the frame drawn now, if a rotation is fading (its pictures go
    /// when it ends).
    func fadeOperation() -> RenderOperation? {
        guard let alpha = desk.fadeAlpha(at: now), let pictures = main.fadePictures else {
            main.fadePictures = nil
            return nil
        }
        return pictures.operation(alpha: alpha, panel: geometry.panel)
    }

    /// The old orientation's last frame fading out, if a rotation is in progress.
    var fade: CrossFade? { desk.fade }

    /// Whether the screen is in motion now: panes settling or following a finger, a window
    /// held or settling, or a cross-fade.
    public var isInMotion: Bool { desk.isInMotion(at: now) }

    /// Whether something moves by itself now: panes or a window settling, or a cross-fade.
    public var isAnimating: Bool { desk.isAnimating(at: now) }

    /// What moves now: "fade" (a rotation's cross-fade), "settle" (panes coming to rest),
    /// "follow" (panes following a finger); nil when the screen is still.
    public var motionKind: String? { desk.motionKind(at: now) }

    /// The panes as drawn now.
    var presentedPanes: [PresentedPane] { desk.presentedPanes(at: now) }

    /// The panes and divider as drawn now, in points.
    public var shownPanes: ShownPanes {
        let panes = presentedPanes.filter { session($0.app) != nil || ghostContent($0.app) != nil }
        return ShownPanes(
            panes: panes.map { ($0.role, $0.frame.x, $0.frame.width) },
            divider: PresentedPane.divider(between: panes, screen: desk.shell.layout.screen)?.x, pip: pipFrames)
    }
}

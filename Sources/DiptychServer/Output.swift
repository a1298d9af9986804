// SPDX-License-Identifier: MIT
// One screen the compositor draws on: its backend, what changed on it since the frame on
// screen (a damage tracker in its own geometry), the damage of the frames shown lately (for a
// buffer older than one frame), and its frame count. The main screen and the second screen are
// two of them, drawn through the same two calls: `beginFrame` and `present`.

import DiptychCore
import DiptychImage

/// A screen. Confined to the compositor's thread.
final class Output {
    let backend: any OutputBackend
    /// What changed on it since the frame on screen, in its pixels.
    var damage: DamageTracker
    /// The damage of the frames presented lately, oldest first.
    private(set) var history: [Region?] = []
    /// What the frame being drawn repaints since the frame on screen (nil: everything).
    private(set) var drawing: Region?
    /// Frames presented on it.
    private(set) var frames: UInt64 = 0
    /// Something changed its picture since its last frame was drawn (frames are asked for,
    /// not polled: the live loop draws an output only when this is set and it is ready).
    var wantsFrame = true
    /// Frames of damage kept: as many as a swap chain has buffers, and one more.
    static let historyLength = 4

    init(backend: any OutputBackend, geometry: OutputGeometry) {
        self.backend = backend
        damage = DamageTracker(geometry: geometry)
    }

    /// The buffer the next frame goes into, and what of it to repaint: what `changed` since the
    /// frame on screen (nil: everything) and what that buffer lacks besides, by its age.
    func beginFrame(changed: Region?) -> (target: FrameTarget, repaint: Region?) {
        drawing = changed
        let target = backend.beginFrame()
        return (target, target.repaintRegion(changed, history: history))
    }

    /// Shows the frame drawn since `beginFrame`. A frame the output dropped leaves what it
    /// would have repainted to the next one.
    func present() -> PresentResult {
        let result = backend.present(damage: drawing)
        if case .presented = result {
            history.push(drawing, keeping: Self.historyLength)
            frames += 1
        } else {
            damage.keep(drawing)
        }
        return result
    }

    /// Milliseconds between its refreshes.
    var refreshMilliseconds: Double { 1_000_000 / Double(max(1, backend.refreshMillihertz)) }
}

// SPDX-License-Identifier: MIT
// The gestures of the profiling workloads that move things by touch, frame by frame: a Slide
// Over swiped in and out, the divider snapping between splits, the on-screen keyboard raised,
// typed on and dismissed.

import DiptychCore
import DiptychServer

/// The gestures of a motion workload, frame by frame, in points of the logical screen.
struct MotionChoreography {
    let workload: ProfileWorkload
    let compositor: Compositor
    let width: Double
    let compact: Double
    let splits: (twoThirds: Double, half: Double)

    init(_ workload: ProfileWorkload, compositor: Compositor) {
        self.workload = workload
        self.compositor = compositor
        let p = compositor.shell.profile
        width = Double(p.screenSize(.landscape).width)
        compact = Double(LayoutEngine.compactWidth(screenWidth: Int(width), profile: p))
        func x(_ a: Arrangement) -> Double { Double(LayoutEngine.shownLayout(profile: p, orientation: .landscape, arrangement: a).divider?.x ?? 0) }
        splits = (x(.split23), x(.split12))
    }

    /// Feeds frame `n`'s touches; returns whether there were any.
    func input(frame n: Int) -> Bool {
        switch workload {
        case .slideOverIn:
            // 64 frames: swipe in over 8 (following the finger), settle; drag out by the left
            // edge over 6, slide off.
            let f = n % 64
            let y = 500.0
            switch f {
            case 0: touch(.down, width - 4, y)
            case 1...8: touch(.motion, width - 4 - Double(f) * 45, y)
            case 9: touch(.up, width - 4 - 8 * 45, y)
            case 32: touch(.down, width - compact + 2, y)
            case 33...38: touch(.motion, width - compact + 2 + Double(f - 32) * 40, y)
            case 39: touch(.up, width - compact + 2 + 6 * 40, y)
            default: return false
            }
        case .snap:
            // 32 frames a way: grab the divider, drag it past the middle between the splits
            // over 6 frames, let go; it settles at the other split.
            let f = n % 64, y = 700.0
            let (from, to) = n % 64 < 32 ? (splits.twoThirds, splits.half) : (splits.half, splits.twoThirds)
            let release = from + (to - from) * 0.6
            switch f % 32 {
            case 0: touch(.down, from + 5, y)
            case 1...6: touch(.motion, from + 5 + (release - from) * Double(f % 32) / 6, y)
            case 7: touch(.up, release + 5, y)
            default: return false
            }
        default:
            return false
        }
        return true
    }

    private func touch(_ phase: TouchPhase, _ x: Double, _ y: Double) { compositor.touch(id: 1, phase: phase, x: x, y: y) }
}

/// The keyboard workload's gestures: notes' title tapped (the keyboard slides in); once it
/// has rested a frame, a key pressed and let go, then its dismiss key tapped (it slides out); once it is
/// gone, again.
struct KeyboardChoreography {
    let compositor: Compositor
    /// The key pressed last, its frame (screen points), and whether this frame pressed it.
    private(set) var pressedKey: Rect?
    private(set) var pressesNow = false
    private var step = 0
    /// Frames in a row the keyboard was at rest when its input was fed (the first such frame
    /// still draws the slide's last step).
    private var resting = 0

    init(compositor: Compositor) { self.compositor = compositor }

    /// Feeds a frame's touches; returns whether there were any.
    mutating func input() -> Bool {
        pressesNow = false
        resting = compositor.keyboardMoving ? 0 : resting + 1
        let resting = self.resting >= 2
        func key(_ label: String) -> Rect? { compositor.keyboardKeys.first { $0.label == label }?.frame }
        func tap(_ r: Rect, _ phase: TouchPhase) { touch(phase, Double(r.x) + Double(r.width) / 2, Double(r.y) + Double(r.height) / 2) }
        switch step {
        case 0 where resting && compositor.keyboardShown == nil:
            touch(.down, 200, 38)
        case 1:
            touch(.up, 200, 38)
        case 2 where resting && compositor.keyboardShown != nil:
            guard let q = key("q") ?? key("Q") else { return false }
            pressedKey = q
            pressesNow = true
            tap(q, .down)
        case 3:
            guard let q = pressedKey else { return false }
            tap(q, .up)
        case 4:
            guard let d = key("↓") else { return false }
            tap(d, .down)
            tap(d, .up)
        default:
            return false
        }
        step = (step + 1) % 5
        return true
    }

    private func touch(_ phase: TouchPhase, _ x: Double, _ y: Double) { compositor.touch(id: 2, phase: phase, x: x, y: y) }
}

// SPDX-License-Identifier: MIT
// When to compose a frame: at a deadline before the output's next vblank (a repaint window,
// as Weston's repaint-window and sway's max_render_time), so that a commit that arrives before
// the deadline is on screen at that vblank; or as soon as the output can take a frame. Pure:
// the times are given (monotonic nanoseconds).

/// How far ahead of the vblank frames are composed.
public enum RepaintWindow: Equatable, Sendable, CustomStringConvertible {
    /// As soon as a frame is wanted and the output can take it (no window).
    case off
    /// A fixed window, in nanoseconds.
    case fixed(UInt64)
    /// The recent 99th percentile of the frame's own work plus 1 ms, at least 1 ms.
    case auto

    /// `auto`, `off` or milliseconds (`2`, `1.5`).
    public init?(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "off", "0": self = .off
        default:
            guard let ms = Double(text), ms > 0, ms <= 100 else { return nil }
            self = .fixed(UInt64((ms * 1_000_000).rounded()))
        }
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .auto: "auto"
        case .fixed(let ns): "\(Double(ns) / 1_000_000) ms"
        }
    }
}

/// One output's repaint timing: its refresh period, the last vblank it presented at, the
/// window, and the recent cost of its frames (for the automatic window).
public struct RepaintSchedule: Sendable {
    /// Nanoseconds between vblanks.
    public var refresh: UInt64
    public var window: RepaintWindow
    /// The vblank at which the last frame reached the screen, if one did.
    public private(set) var lastPresentation: UInt64?
    /// The frame's own work (layout, composite, present), newest last, in nanoseconds.
    private var recentWork: [UInt64] = []
    /// Frames of work the automatic window looks at.
    public static let workSamples = 120
    /// The automatic window's floor, and the margin over the measured work.
    public static let minimumWindow: UInt64 = 1_000_000
    public static let margin: UInt64 = 1_000_000

    public init(refresh: UInt64, window: RepaintWindow) {
        self.refresh = max(1, refresh)
        self.window = window
    }

    /// A frame reached the screen at the vblank `time`.
    public mutating func presented(at time: UInt64) { lastPresentation = time }

    /// A frame's own work took `nanoseconds`.
    public mutating func worked(_ nanoseconds: UInt64) {
        if recentWork.count == Self.workSamples { recentWork.removeFirst() }
        recentWork.append(nanoseconds)
    }

    /// The window in effect, in nanoseconds (0: off). The automatic one never takes more than
    /// three quarters of a refresh.
    public var windowNanoseconds: UInt64 {
        switch window {
        case .off: return 0
        case .fixed(let ns): return min(ns, refresh)
        case .auto:
            let sorted = recentWork.sorted()
            let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, (sorted.count * 99 + 99) / 100 - 1)]
            return min(max(Self.minimumWindow, p99 + Self.margin), refresh * 3 / 4)
        }
    }

    /// The next vblank at or after `time`, on the grid of the last presentation (nil before
    /// the first).
    public func vblank(atOrAfter time: UInt64) -> UInt64? {
        guard let last = lastPresentation else { return nil }
        guard time > last else { return last }
        let periods = (time - last + refresh - 1) / refresh
        return last + periods * refresh
    }

    /// When to compose a frame wanted at `now`: the window before the first vblank whose
    /// deadline has not passed; `now` with the window off or before the first presentation.
    public func deadline(now: UInt64) -> UInt64 {
        let w = windowNanoseconds
        guard w > 0, let v = vblank(atOrAfter: now + w) else { return now }
        // A vblank the last frame is already shown at takes no other frame.
        let target = v == lastPresentation ? v + refresh : v
        return target - w
    }
}

// SPDX-License-Identifier: MIT
// What a frame did, for whoever records frames: the live loop's figures and `frames.json`,
// a scenario's and the profiler's records. They watch the one repaint path (as wlroots' output
// precommit, commit and present events); they do not drive its stages.

import DiptychCore
import DiptychOutput
import DiptychRender

/// One frame of the main screen as drawn: what it repainted and how long each stage took.
public struct FrameReport {
    /// What changed since the frame before (nil: everything).
    public var damage: Region?
    /// The pixman operations that drew it.
    public var operations: [RenderOperation]
    public var stats: RenderStats
    public var result: PresentResult
    /// The stages' bounds (monotonic ns): layout (the scene taken, its damage, its
    /// operations), composite, present (the second screen's frame included).
    public var layoutStart: UInt64, layoutEnd: UInt64, compositeStart: UInt64, compositeEnd: UInt64, presentEnd: UInt64
    /// What was moving ("follow", "settle", "fade"), the turn of a rotation in degrees, and
    /// the panes shown: filled in only while an observer watches.
    public var motion: String?
    public var turn: Double?
    public var shown: ShownPanes?
    /// The on-screen keyboard as drawn (nil: none), also only while an observer watches.
    public var keyboard: KeyboardRecord?

    /// Output pixels repainted.
    public var repaintedPixels: Int { stats.compositedPixels + stats.filledPixels }

    func milliseconds(_ a: UInt64, _ b: UInt64) -> Double { Double(b &- a) / 1_000_000 }
    public var layoutMilliseconds: Double { milliseconds(layoutStart, layoutEnd) }
    public var compositeMilliseconds: Double { milliseconds(compositeStart, compositeEnd) }
    public var presentMilliseconds: Double { milliseconds(compositeEnd, presentEnd) }
}

/// Watches the compositor's frames (`Compositor.frameObserver`). Confined to its thread.
public protocol FrameObserver: AnyObject {
    /// A frame is laid out and about to be drawn: what runs here is not the frame's time (a
    /// profiler's baselines on the same operations).
    func laidOut(_ frame: Compositor.Frame)
    /// The frame was drawn and presented.
    func presented(_ report: FrameReport)
}

extension FrameObserver {
    public func laidOut(_ frame: Compositor.Frame) {}
}

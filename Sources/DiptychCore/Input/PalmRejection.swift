// SPDX-License-Identifier: MIT
// Palm rejection with pen priority, as a pure state machine with time passed in, in
// the manner of libinput's pen/touch arbitration: while a pen is in proximity or down, and for a
// hold-off after it leaves, finger touches are cancelled and new ones are not delivered.

/// Decides which finger touches reach the shell while a pen is in use.
///
/// It needs no pairing between the pen and the touchscreen: any pen activity on the seat
/// counts, so a pen and a touchscreen that are separate devices still arbitrate.
public struct PalmRejection: Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case penPriority = "pen-priority"
        case off
    }

    /// What to do with one finger event.
    public enum Verdict: Equatable, Sendable {
        case deliver
        case swallow
    }

    public let mode: Mode
    /// How long after the pen leaves proximity fingers stay suppressed (ms).
    public let holdoff: UInt64
    /// A pen in proximity that sends nothing for this long (and is not touching) is taken to
    /// have left: some pens never report proximity-out (libinput times them out after 50 ms).
    public let penTimeout: UInt64

    public private(set) var penInProximity = false
    public private(set) var penDown = false
    private var lastPenEvent: UInt64 = 0
    private var penLeftAt: UInt64?
    /// Touches delivered (down forwarded) and not yet lifted.
    private var delivered: Set<Int32> = []
    /// Touches swallowed: they stay swallowed until they lift.
    private var swallowed: Set<Int32> = []

    public init(mode: Mode = .penPriority, holdoff: UInt64 = 90, penTimeout: UInt64 = 50) {
        self.mode = mode
        self.holdoff = holdoff
        self.penTimeout = penTimeout
    }

    /// Whether fingers are suppressed at `now`.
    public func penActive(at now: UInt64) -> Bool {
        guard mode == .penPriority else { return false }
        if penInProximity || penDown { return true }
        if let left = penLeftAt, now < left + holdoff { return true }
        return false
    }

    /// A finger event: deliver it, or swallow it.
    public mutating func touch(id: Int32, phase: TouchPhase, now: UInt64) -> Verdict {
        switch phase {
        case .down:
            swallowed.remove(id)
            delivered.remove(id)
            if penActive(at: now) {
                swallowed.insert(id)
                return .swallow
            }
            delivered.insert(id)
            return .deliver
        case .motion:
            return swallowed.contains(id) || !delivered.contains(id) ? .swallow : .deliver
        case .up, .cancel:
            if swallowed.remove(id) != nil { return .swallow }
            return delivered.remove(id) != nil ? .deliver : .swallow
        }
    }

    /// A pen event. Returns the finger touches to cancel now (in id order): every touch
    /// delivered before the pen arrived. They stay swallowed until they lift.
    public mutating func pen(phase: PenPhase, now: UInt64) -> [Int32] {
        lastPenEvent = now
        switch phase {
        case .proximityOut:
            penInProximity = false
            penDown = false
            penLeftAt = now
            return []
        case .down:
            penDown = true
            penInProximity = true
        case .up:
            penDown = false
            penInProximity = true
        case .proximityIn, .motion:
            penInProximity = true
        }
        guard mode == .penPriority, !delivered.isEmpty else { return [] }
        let cancelled = delivered.sorted()
        swallowed.formUnion(delivered)
        delivered.removeAll()
        return cancelled
    }

    /// When `tick` will next have something to do (a hovering pen's time-out), if ever.
    public var nextDeadline: UInt64? { penInProximity && !penDown ? lastPenEvent + penTimeout : nil }

    /// Times out a pen that stopped reporting while hovering. Returns true when the pen was
    /// taken out of proximity (the caller tells the app `proximityOut`).
    public mutating func tick(now: UInt64) -> Bool {
        guard penInProximity, !penDown, now >= lastPenEvent + penTimeout else { return false }
        penInProximity = false
        penLeftAt = lastPenEvent + penTimeout
        return true
    }
}

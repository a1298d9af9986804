// SPDX-License-Identifier: MIT
// Palm rejection timelines, step by step (libinput's pen/touch arbitration).

import DiptychCore
import Testing

/// One step of a timeline and what must come of it.
enum Step {
    case finger(UInt64, Int32, TouchPhase, PalmRejection.Verdict)
    case pen(UInt64, PenPhase, cancels: [Int32])
    case tick(UInt64, timesOut: Bool)
}

func replay(_ arbiter: inout PalmRejection, _ steps: [Step]) {
    for (i, step) in steps.enumerated() {
        switch step {
        case .finger(let t, let id, let phase, let expected):
            #expect(arbiter.touch(id: id, phase: phase, now: t) == expected, "step \(i): finger \(id) \(phase) at \(t)")
        case .pen(let t, let phase, let cancels):
            #expect(arbiter.pen(phase: phase, now: t) == cancels, "step \(i): pen \(phase) at \(t)")
        case .tick(let t, let timesOut):
            #expect(arbiter.tick(now: t) == timesOut, "step \(i): tick at \(t)")
        }
    }
}

struct PalmRejectionTests {
    @Test func theAcceptanceTimeline() {
        var a = PalmRejection()
        replay(&a, [
            .finger(0, 1, .down, .deliver),
            .finger(10, 1, .motion, .deliver),
            .pen(20, .proximityIn, cancels: [1]),  // the finger already delivered is cancelled
            .finger(30, 1, .motion, .swallow),  // and moves to nobody
            .pen(40, .down, cancels: []),
            .pen(50, .motion, cancels: []),
            .pen(60, .up, cancels: []),
            .pen(100, .proximityOut, cancels: []),
            .finger(189, 2, .down, .swallow),  // 89 ms after: still held off
            .finger(191, 3, .down, .deliver),  // 91 ms after: delivered
            .finger(200, 2, .motion, .swallow),  // a swallowed touch stays swallowed
            .finger(210, 2, .up, .swallow),
            .finger(220, 1, .up, .swallow),
            .finger(230, 3, .up, .deliver),
        ])
    }

    @Test func aFingerThatWentDownDuringThePenNeverArrives() {
        var a = PalmRejection()
        replay(&a, [
            .pen(0, .proximityIn, cancels: []),
            .finger(10, 5, .down, .swallow),
            .pen(20, .proximityOut, cancels: []),
            .finger(150, 5, .motion, .swallow),  // after the hold-off, still the same touch
            .finger(300, 5, .up, .swallow),
            .finger(310, 6, .down, .deliver),
        ])
    }

    @Test func offDeliversEverything() {
        var a = PalmRejection(mode: .off)
        replay(&a, [
            .finger(0, 1, .down, .deliver),
            .pen(5, .proximityIn, cancels: []),
            .pen(6, .down, cancels: []),
            .finger(7, 1, .motion, .deliver),
            .finger(8, 2, .down, .deliver),
            .finger(9, 2, .up, .deliver),
            .finger(10, 1, .up, .deliver),
        ])
        #expect(!a.penActive(at: 10))
    }

    @Test func holdOffIsConfigurable() {
        var a = PalmRejection(holdoff: 300)
        replay(&a, [
            .pen(0, .proximityIn, cancels: []),
            .pen(10, .proximityOut, cancels: []),
            .finger(309, 1, .down, .swallow),
            .finger(311, 2, .down, .deliver),
        ])
    }

    @Test func aPenThatNeverLeavesIsTimedOutButNotWhileTouching() {
        var a = PalmRejection()
        replay(&a, [
            .pen(0, .proximityIn, cancels: []),
            .tick(40, timesOut: false),
            .pen(45, .down, cancels: []),
            .tick(200, timesOut: false),  // touching: no timeout
            .pen(210, .up, cancels: []),
            .tick(259, timesOut: false),
            .tick(260, timesOut: true),  // 50 ms without events while hovering
            .tick(270, timesOut: false),
            .finger(349, 1, .down, .swallow),  // hold-off counts from the timeout (260 + 90)
            .finger(350, 2, .down, .deliver),
        ])
    }

    @Test func cancelFromLibinputIsForwarded() {
        var a = PalmRejection()
        replay(&a, [
            .finger(0, 1, .down, .deliver),
            .finger(5, 1, .cancel, .deliver),
            .finger(6, 1, .motion, .swallow),  // nothing after the end of the touch
        ])
    }

    @Test func severalFingersAreCancelledInOrder() {
        var a = PalmRejection()
        replay(&a, [
            .finger(0, 7, .down, .deliver),
            .finger(1, 3, .down, .deliver),
            .finger(2, 5, .down, .deliver),
            .finger(3, 5, .up, .deliver),
            .pen(4, .proximityIn, cancels: [3, 7]),
        ])
    }
}

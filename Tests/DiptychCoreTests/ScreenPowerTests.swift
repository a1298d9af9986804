// SPDX-License-Identifier: MIT
// Screen power's rules, with the time given: the idle timeout (held off by an app that keeps
// the screen awake), a blank schedule's periods (over midnight, over the week's end) and the
// wake that lasts a minute there, the operator's blank, and the waking gesture swallowed whole.

import DiptychCore
import Testing

struct ScreenPowerTests {
    let friday = WeekTime(weekday: 4, minute: 12 * 60)

    @Test func aScheduleReadsAsItIsWritten() throws {
        let s = try BlankSchedule(parsing: "Mon-Fri 20:00-07:00, Sat 18:00-09:00")
        #expect(s.contains(WeekTime(weekday: 0, minute: 20 * 60)))
        #expect(!s.contains(WeekTime(weekday: 0, minute: 19 * 60 + 59)))
        #expect(s.contains(WeekTime(weekday: 1, minute: 6 * 60 + 59)))  // Monday's night, on Tuesday
        #expect(!s.contains(WeekTime(weekday: 1, minute: 7 * 60)))
        #expect(s.contains(WeekTime(weekday: 5, minute: 3 * 60)))  // Friday's night, on Saturday
        #expect(s.contains(WeekTime(weekday: 6, minute: 8 * 60)))  // Saturday's, on Sunday
        #expect(!s.contains(WeekTime(weekday: 6, minute: 12 * 60)))
        // A range of days over the week's end, and a period ending at midnight.
        let weekend = try BlankSchedule(parsing: "Sun-Mon 00:00-24:00")
        #expect(weekend.contains(WeekTime(weekday: 6, minute: 0)) && weekend.contains(WeekTime(weekday: 0, minute: 1439)))
        #expect(!weekend.contains(WeekTime(weekday: 1, minute: 0)))
        for bad in ["", "Mon", "Funday 20:00-07:00", "Mon 25:00-07:00", "Mon 20:00", "Mon 20:0-07:00", "Mon-Tue-Wed 20:00-07:00"] {
            #expect(throws: ScheduleError.self, "\(bad)") { try BlankSchedule(parsing: bad) }
        }
    }

    @Test func aLocalDateHasItsWeekday() {
        #expect(WeekTime(localDateTime: "2026-11-27 19:59") == WeekTime(weekday: 4, minute: 19 * 60 + 59))  // a Friday
        #expect(WeekTime(localDateTime: "2024-02-29T00:00") == WeekTime(weekday: 3, minute: 0))  // a Thursday
        #expect(WeekTime(localDateTime: "1970-01-05 08:30") == WeekTime(weekday: 0, minute: 510))
        #expect(WeekTime(localDateTime: "2026-13-01 10:00") == nil && WeekTime(localDateTime: "tomorrow") == nil)
    }

    @Test func theIdleTimeoutBlanksUnlessSomethingKeepsItAwake() {
        var p = ScreenPower(idleTimeout: 30_000)
        #expect(p.update(now: 1000, local: friday, inhibited: false) == nil)
        #expect(p.nextDeadline(local: friday) == 31_000)
        #expect(p.update(now: 30_999, local: friday, inhibited: false) == nil)
        #expect(p.update(now: 31_000, local: friday, inhibited: false) == true && p.blanked == .idle)
        // The first input wakes it (swallowed); the next is an app's.
        let woke = p.input(now: 40_000), again = p.input(now: 40_100)
        #expect(woke && p.blanked == nil && !again)
        // A playing video holds it awake; the timeout counts from when it stopped.
        #expect(p.update(now: 80_000, local: friday, inhibited: true) == nil)
        #expect(p.update(now: 109_999, local: friday, inhibited: false) == nil)
        #expect(p.update(now: 110_000, local: friday, inhibited: false) == true)
    }

    @Test func aScheduledPeriodBlanksEvenAPlayingVideoAndAWakeThereLastsAMinute() {
        var p = ScreenPower(schedule: try! BlankSchedule(parsing: "Fri 20:00-07:00"))
        let before = WeekTime(weekday: 4, minute: 19 * 60 + 59), during = WeekTime(weekday: 4, minute: 20 * 60), after = WeekTime(weekday: 5, minute: 7 * 60)
        #expect(p.update(now: 0, local: before, inhibited: true) == nil)
        #expect(p.update(now: 60_000, local: during, inhibited: true) == true && p.blanked == .schedule)
        let woke = p.input(now: 70_000)
        #expect(woke)
        #expect(p.update(now: 129_999, local: during, inhibited: false) == nil)
        #expect(p.update(now: 130_000, local: during, inhibited: false) == true)
        // The period ends: the screen comes on by itself.
        #expect(p.update(now: 500_000, local: after, inhibited: false) == false && p.blanked == nil)
        #expect(p.update(now: 900_000, local: after, inhibited: false) == nil)
    }

    @Test func theOperatorsBlankLastsUntilInputOrWake() {
        var p = ScreenPower()
        let first = p.blank(), second = p.blank()
        #expect(!p.isActive && first && !second && p.blanked == .operator)
        #expect(p.update(now: 1_000_000, local: friday, inhibited: false) == nil && p.blanked == .operator)
        let woke = p.wake(now: 1_000_001), again = p.wake(now: 1_000_002)
        #expect(woke && !again)
    }

    /// The finger, pen, button or key that woke the screen is swallowed until it lifts; other
    /// input after the wake is not.
    @Test func theWakingGestureIsSwallowedWhole() {
        var g = WakeGesture()
        func pen(_ phase: PenPhase) -> PanelInput { .pen(phase: phase, x: 0, y: 0, pressure: 0, tiltX: 0, tiltY: 0) }
        let steps: [(input: PanelInput, woke: Bool, swallowed: Bool)] = [
            (.touch(id: 3, phase: .down, x: 1, y: 1), true, true), (.touch(id: 3, phase: .motion, x: 9, y: 9), false, true),
            (.touch(id: 4, phase: .down, x: 1, y: 1), false, false), (.touch(id: 3, phase: .up, x: 9, y: 9), false, true),
            (.touch(id: 3, phase: .down, x: 1, y: 1), false, false),
            (.key(code: 30, pressed: true), true, true), (.key(code: 30, pressed: false), false, true), (.key(code: 30, pressed: true), false, false),
            (.pointerMove(dx: 1, dy: 0), true, true), (.pointerMove(dx: 1, dy: 0), false, false),
            (pen(.proximityIn), true, true), (pen(.down), false, true), (pen(.up), false, true), (pen(.down), false, false),
        ]
        for (i, step) in steps.enumerated() {
            let swallowed = g.swallows(step.input, woke: step.woke)
            #expect(swallowed == step.swallowed, "step \(i): \(step.input)")
        }
    }
}

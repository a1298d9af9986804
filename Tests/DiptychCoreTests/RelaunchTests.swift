// SPDX-License-Identifier: MIT
// Supervision's back-off, with the time given: no test waits.

import DiptychCore
import Testing

struct RelaunchTests {
    @Test func theBackOffDoublesToItsCeilingAndStartsOverAfterALongRun() {
        var s = RelaunchSchedule(startedAt: 0)
        var now: UInt64 = 100
        var delays: [UInt64] = []
        for _ in 0..<9 {
            let d = s.ended(status: 1, at: now, policy: .onFailure)
            delays.append(d ?? 0)
            now += d ?? 0
            #expect(!s.takeDue(at: now - 1) && s.takeDue(at: now) && !s.takeDue(at: now))
            s.started(at: now)
            now += 10  // crashes again at once
        }
        #expect(delays == [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000])
        // A run of a minute or more: the next crash waits the first delay again.
        now += RelaunchSchedule.resetAfter
        #expect(s.ended(status: 139, at: now, policy: .onFailure) == 500)
        #expect(s.due == now + 500)
    }

    @Test func thePolicyDecidesWhetherItComesBack() {
        var s = RelaunchSchedule(startedAt: 0)
        #expect(s.ended(status: 0, at: 10, policy: .onFailure) == nil && s.due == nil)
        #expect(s.ended(status: 2, at: 10, policy: .never) == nil)
        #expect(s.ended(status: 0, at: 10, policy: .always) == 500)
        s.launchFailed(at: 600)
        #expect(s.due == 600 + RelaunchSchedule.maxDelay)
    }
}

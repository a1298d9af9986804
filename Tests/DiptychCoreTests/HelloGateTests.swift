// SPDX-License-Identifier: MIT
// The hello gate: how many connections may wait to say hello, and for how long, with the time
// given (no waiting in the test).

import DiptychCore
import Testing

struct HelloGateTests {
    @Test func theOldestGoesWhenTooManyWait() {
        var gate = HelloGate(limit: 3, timeout: 2000)
        #expect(gate.connected(1, at: 0) == nil && gate.connected(2, at: 10) == nil && gate.connected(3, at: 20) == nil)
        #expect(gate.connected(4, at: 30) == 1)
        #expect(gate.ids == [2, 3, 4])
        // One that said hello no longer counts.
        gate.left(3)
        #expect(gate.connected(5, at: 40) == nil && gate.ids == [2, 4, 5])
    }

    @Test func aConnectionWaitsAtMostTheTimeout() {
        var gate = HelloGate(limit: 16, timeout: 2000)
        _ = gate.connected(7, at: 100)
        _ = gate.connected(8, at: 900)
        #expect(gate.nextDeadline == 2100)
        #expect(gate.overdue(at: 2099).isEmpty)
        #expect(gate.overdue(at: 2100) == [7])
        #expect(gate.nextDeadline == 2900 && gate.ids == [8])
        #expect(gate.overdue(at: 10_000) == [8] && gate.nextDeadline == nil)
    }
}

// SPDX-License-Identifier: MIT
// The compositor's live loop ahead of the apps: round-robin realtime scheduling where the
// system grants it (the unit's `CPUSchedulingPolicy=rr`, or CAP_SYS_NICE), the apps it launches
// reset to normal scheduling (reset-on-fork); and a bound: a loop that took more than half a
// second of CPU within its current second rests for the next second, sleeping after each turn
// as long as that turn worked, so that it takes at most half of its core while it rests and a
// realtime loop can never starve the machine. Resting needs no privilege (the loop stays
// realtime, it only waits), so the unit grants no realtime limit the apps could inherit.

import Glibc

/// The live loop's scheduling, and its bound.
public final class RealtimeLoop {
    /// How the loop is scheduled now, for `status` (`"rr"`, `"rr (resting)"` or `"normal"`).
    public var scheme: String { why != nil ? "normal" : restingUntil != nil ? "rr (resting)" : "rr" }
    /// Why it is not realtime (nil: it is).
    public private(set) var why: String? = "not taken"
    /// How many times it rested (took more than its budget).
    public private(set) var rests = 0
    private let priority: Int32
    private var windowStart: UInt64 = 0
    private var cpuAtWindowStart: UInt64 = 0
    private var cpuAtLastTurn: UInt64 = 0
    private var restingUntil: UInt64?

    /// Linux's SCHED_RESET_ON_FORK (not exported to Swift): children start at normal scheduling.
    static let resetOnFork: Int32 = 0x40000000

    /// The most CPU time the loop may take in a second while realtime (ns).
    public static let budgetPerSecond: UInt64 = 500_000_000
    /// The longest pause after one turn while resting (ns): the loop still answers within it.
    public static let longestPause: UInt64 = 50_000_000

    public init(priority: Int32 = 10) { self.priority = priority }

    /// Asks for round-robin scheduling with reset-on-fork (at the unit's priority when the
    /// unit gave it). Whether it runs realtime now (read back from the kernel).
    @discardableResult
    public func take() -> Bool {
        let given = sched_getscheduler(0)
        var p = sched_param(sched_priority: priority)
        if given == SCHED_RR || given == SCHED_FIFO { _ = sched_getparam(0, &p) }
        let asked = sched_setscheduler(0, SCHED_RR | Self.resetOnFork, &p) == 0
        let failure = errno
        if asked && sched_getscheduler(0) == SCHED_RR | Self.resetOnFork {
            why = nil
            windowStart = MonotonicClock.nanoseconds
            cpuAtWindowStart = ThreadClock.nanoseconds
            cpuAtLastTurn = cpuAtWindowStart
            return true
        }
        why = "realtime scheduling refused (\(String(cString: strerror(asked ? EPERM : failure)))): the unit's CPUSchedulingPolicy=rr (or CAP_SYS_NICE) grants it"
        return false
    }

    /// Back to normal scheduling.
    public func release() {
        var p = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &p)
        restingUntil = nil
        why = "released"
    }

    /// Called each turn of the loop at `now` (ns): past its budget within a second, the loop
    /// rests for a second (said by `scheme`), each turn followed by a pause as long as it.
    public func turn(now: UInt64) {
        guard why == nil else { return }
        let cpu = ThreadClock.nanoseconds
        defer { cpuAtLastTurn = ThreadClock.nanoseconds }
        if let until = restingUntil {
            if now >= until {
                restingUntil = nil
                (windowStart, cpuAtWindowStart) = (now, cpu)
            } else {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(min(cpu &- cpuAtLastTurn, Self.longestPause)))
                _ = nanosleep(&pause, nil)
            }
            return
        }
        let used = cpu &- cpuAtWindowStart, elapsed = now &- windowStart
        // (A turn longer than the window is held to the budget for the time it took.)
        if used > Self.budgetPerSecond * max(1, elapsed / 1_000_000_000) {
            rests += 1
            restingUntil = now + 1_000_000_000
        } else if elapsed >= 1_000_000_000 {
            // Once a second: a process of the same user may have taken realtime away.
            let policy = sched_getscheduler(0) & ~Self.resetOnFork
            if policy != SCHED_RR && policy != SCHED_FIFO { why = "realtime scheduling was taken away from the loop (policy \(policy))" }
            (windowStart, cpuAtWindowStart) = (now, cpu)
        }
    }
}

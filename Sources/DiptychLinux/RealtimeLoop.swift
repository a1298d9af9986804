// SPDX-License-Identifier: MIT
// The compositor's live loop ahead of the apps: round-robin realtime scheduling where the
// system grants it (the unit's `CPUSchedulingPolicy=rr` with `LimitRTPRIO=`, or CAP_SYS_NICE),
// the apps it launches reset to normal scheduling (reset-on-fork); and a bound: a loop that took
// more than half of the last second of CPU goes back to normal scheduling for the next second,
// so a realtime loop can never starve the machine. (Coming back to realtime after a rest needs
// the same grant again: `LimitRTPRIO=` or CAP_SYS_NICE, not only the unit's starting policy.)

import Glibc

/// The live loop's scheduling, and its bound.
public final class RealtimeLoop {
    /// How the loop is scheduled now, for `status` (`"rr"`, `"normal"`, or `"rr (resting)"`).
    public private(set) var scheme = "normal"
    /// Why it is not realtime (nil: it is).
    public private(set) var why: String?
    private let priority: Int32
    private var windowStart: UInt64 = 0
    private var cpuAtWindowStart: UInt64 = 0
    private var restingUntil: UInt64?
    /// How many times it rested (took more than its budget).
    public private(set) var rests = 0

    /// Linux's SCHED_RESET_ON_FORK (not exported to Swift): children start at normal scheduling.
    static let resetOnFork: Int32 = 0x40000000

    /// The most CPU time the loop may take in a second while realtime (ns).
    public static let budgetPerSecond: UInt64 = 500_000_000

    public init(priority: Int32 = 10) { self.priority = priority }

    /// Asks for round-robin scheduling with reset-on-fork (kept when the unit already gave it).
    /// Whether it runs realtime now.
    @discardableResult
    public func take() -> Bool {
        let policy = sched_getscheduler(0)
        if policy == SCHED_RR || policy == SCHED_FIFO {
            // (Given by the unit: the apps must not inherit it.)
            var p = sched_param(sched_priority: max(priority, sched_get_priority_min(SCHED_RR)))
            _ = sched_setscheduler(0, SCHED_RR | Self.resetOnFork, &p)
            scheme = "rr"
            why = nil
            return true
        }
        var p = sched_param(sched_priority: priority)
        if sched_setscheduler(0, SCHED_RR | Self.resetOnFork, &p) == 0 {
            scheme = "rr"
            why = nil
            return true
        }
        why = "realtime scheduling refused (\(String(cString: strerror(errno)))): the unit's CPUSchedulingPolicy=rr with LimitRTPRIO=\(priority) grants it"
        scheme = "normal"
        return false
    }

    /// Back to normal scheduling.
    public func release() {
        var p = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, SCHED_OTHER, &p)
        scheme = "normal"
    }

    /// Called each turn of the loop at `now` (ns): past its budget in the last second, a
    /// realtime loop rests at normal scheduling for a second (said by `scheme`).
    public func turn(now: UInt64) {
        guard why == nil else { return }
        if let until = restingUntil {
            guard now >= until else { return }
            restingUntil = nil
            var p = sched_param(sched_priority: priority)
            if sched_setscheduler(0, SCHED_RR | Self.resetOnFork, &p) == 0 {
                scheme = "rr"
            } else {
                scheme = "normal"
                why = "realtime scheduling not granted again after a rest (\(String(cString: strerror(errno)))): LimitRTPRIO=\(priority) grants it"
            }
            windowStart = now
            cpuAtWindowStart = Self.threadCPU()
            return
        }
        if now >= windowStart + 1_000_000_000 {
            windowStart = now
            cpuAtWindowStart = Self.threadCPU()
            return
        }
        if Self.threadCPU() - cpuAtWindowStart > Self.budgetPerSecond {
            var p = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, SCHED_OTHER | Self.resetOnFork, &p)
            scheme = "rr (resting)"
            rests += 1
            restingUntil = now + 1_000_000_000
        }
    }

    /// This thread's CPU time (ns).
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

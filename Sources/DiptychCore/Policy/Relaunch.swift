// SPDX-License-Identifier: MIT
// When a launched app that went away is started again: exponential back-off (0.5 s doubling to
// 30 s, starting over once a run lasted a minute), as a value with the time given to it, so the
// policy is tested without waiting.

/// When a launched app that went away is started again.
public enum RelaunchPolicy: String, CaseIterable, Sendable {
    /// When it exits with a status other than 0, or is killed by a signal.
    case onFailure = "on-failure"
    case always
    case never
}

/// One launched app's runs, as supervision schedules them. Pure: every entry point takes the
/// time (monotonic milliseconds).
public struct RelaunchSchedule: Equatable, Sendable {
    /// The first back-off, its ceiling, and the run after which it starts over (ms).
    public static let firstDelay: UInt64 = 500
    public static let maxDelay: UInt64 = 30_000
    public static let resetAfter: UInt64 = 60_000

    /// When the current run started.
    public private(set) var startedAt: UInt64
    /// Relaunches since it last ran for `resetAfter`.
    public private(set) var failures = 0
    /// When it is to be started again, if it is.
    public private(set) var due: UInt64?

    public init(startedAt: UInt64) { self.startedAt = startedAt }

    /// It was started (again) at `now`.
    public mutating func started(at now: UInt64) {
        startedAt = now
        due = nil
    }

    /// It ended at `now` with `status` (128 + n: killed by signal n): the delay before it is
    /// started again, or nil when `policy` lets it go.
    public mutating func ended(status: Int32, at now: UInt64, policy: RelaunchPolicy) -> UInt64? {
        guard policy == .always || (policy == .onFailure && status != 0) else { return nil }
        if now >= startedAt + Self.resetAfter { failures = 0 }
        let delay = min(Self.maxDelay, Self.firstDelay << UInt64(min(failures, 16)))
        failures += 1
        due = now + delay
        return delay
    }

    /// The operator ended it to have it start again (`ctl restart`): due at once, not counted
    /// as a failure, whatever the policy.
    public mutating func restarted(at now: UInt64) { due = now }

    /// Whether a relaunch is due at `now` (taken: asked again, false until the next end).
    public mutating func takeDue(at now: UInt64) -> Bool {
        guard let due, now >= due else { return false }
        self.due = nil
        return true
    }

    /// Starting it failed at `now`: tried again after the ceiling.
    public mutating func launchFailed(at now: UInt64) { due = now + Self.maxDelay }
}

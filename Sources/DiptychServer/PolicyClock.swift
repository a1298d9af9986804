// SPDX-License-Identifier: MIT
// The clock the compositor's time-keeping policies read (the hello gate, the connection budget,
// the supervision's back-off, the log limiter): the monotonic clock, unless a test has set it,
// which then moves only when the test moves it. So those policies are tested at the test's
// speed, not by sleeping on the wall clock.

import DiptychLinux

/// Milliseconds for the policies. Confined to the compositor's thread.
public final class PolicyClock {
    private var manual: UInt64?

    public init() {}

    /// Now, in monotonic milliseconds (or the test's time once set).
    public var milliseconds: UInt64 { manual ?? MonotonicClock.milliseconds }

    /// From now on the clock reads `milliseconds` and moves only by `advance`.
    public func set(_ milliseconds: UInt64) { manual = milliseconds }

    /// Moves a set clock on (setting it to the monotonic clock first if it was not set).
    public func advance(by milliseconds: UInt64) { manual = (manual ?? MonotonicClock.milliseconds) + milliseconds }
}

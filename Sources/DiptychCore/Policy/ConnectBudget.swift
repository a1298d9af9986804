// SPDX-License-Identifier: MIT
// How often one user's processes may connect: a token bucket per peer uid (`burst` at once,
// refilled at `perSecond`), so a process that connects and closes as fast as it can costs the
// compositor a bounded amount a second. A value with the time given to it, tested without
// waiting. Uids that have been idle long enough to be full again are forgotten, so the table
// holds only the users connecting now.

public struct ConnectBudget: Sendable {
    public let burst: Int
    public let perSecond: Int
    /// Each uid's tokens (in thousandths) and when they were last counted (ms).
    private var buckets: [UInt32: (milliTokens: Int, at: UInt64)] = [:]

    public init(burst: Int, perSecond: Int) {
        precondition(burst > 0 && perSecond > 0)
        // (Capped, so that the arithmetic in thousandths never overflows.)
        self.burst = min(burst, 1_000_000)
        self.perSecond = min(perSecond, 1_000_000)
    }

    /// Takes one connection's token for `uid` at `now`: false when it has none left.
    public mutating func take(_ uid: UInt32, at now: UInt64) -> Bool {
        var tokens = level(uid, at: now)
        guard tokens >= 1000 else {
            buckets[uid] = (tokens, now)
            return false
        }
        tokens -= 1000
        buckets[uid] = (tokens, now)
        forgetFull(at: now)
        return true
    }

    /// When `uid` has a token again (`now` if it has one).
    public func nextToken(_ uid: UInt32, at now: UInt64) -> UInt64 {
        let tokens = level(uid, at: now)
        guard tokens < 1000 else { return now }
        // perSecond tokens a second is perSecond thousandths a millisecond.
        return now + UInt64((1000 - tokens + perSecond - 1) / perSecond)
    }

    /// The uids with a bucket that is not full.
    public var tracked: Int { buckets.count }

    private func level(_ uid: UInt32, at now: UInt64) -> Int {
        guard let b = buckets[uid] else { return burst * 1000 }
        let gained = Int(min(now &- b.at, UInt64(burst) * 1000)) * perSecond
        return min(burst * 1000, b.milliTokens + gained)
    }

    private mutating func forgetFull(at now: UInt64) {
        guard buckets.count > 8 else { return }
        buckets = buckets.filter { level($0.key, at: now) < burst * 1000 }
    }
}

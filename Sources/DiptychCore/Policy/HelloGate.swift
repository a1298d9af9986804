// SPDX-License-Identifier: MIT
// What a connection that has not said hello may cost: at most `limit` of them wait at once
// (the oldest is let go for a newer one), each for at most `timeout` milliseconds. A value with
// the time given to it, so the policy is tested without waiting.

public struct HelloGate: Sendable {
    public let limit: Int
    public let timeout: UInt64
    /// The connections waiting, oldest first, with the time each came.
    private var waiting: [(id: UInt64, since: UInt64)] = []

    public init(limit: Int, timeout: UInt64) {
        self.limit = limit
        self.timeout = timeout
    }

    /// Connection `id` came at `now`; the oldest waiting, when one must go to make room.
    public mutating func connected(_ id: UInt64, at now: UInt64) -> UInt64? {
        waiting.append((id, now))
        guard waiting.count > limit else { return nil }
        return waiting.removeFirst().id
    }

    /// Connection `id` said hello, or went away: it no longer waits.
    public mutating func left(_ id: UInt64) { waiting.removeAll { $0.id == id } }

    /// The connections whose time ran out at `now`, oldest first (they no longer wait).
    public mutating func overdue(at now: UInt64) -> [UInt64] {
        let late = waiting.filter { now >= $0.since + timeout }.map(\.id)
        if !late.isEmpty { waiting.removeAll { now >= $0.since + timeout } }
        return late
    }

    /// The connections waiting, oldest first.
    public var ids: [UInt64] { waiting.map(\.id) }

    /// When the oldest one's time runs out, if one waits.
    public var nextDeadline: UInt64? { waiting.first.map { $0.since + timeout } }
}

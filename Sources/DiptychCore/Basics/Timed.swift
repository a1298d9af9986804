// SPDX-License-Identifier: MIT
// An owner of state with work of its own to do at a time it knows: the loop sleeps until the
// earliest of its owners' deadlines.

/// Something that has something to do at a time of its own (a deadline on the clock its owner
/// keeps, in milliseconds), or nothing pending (nil).
public protocol Timed {
    var nextDeadline: UInt64? { get }
}

extension Sequence where Element == any Timed {
    /// The earliest deadline of them, if any has one.
    public var earliestDeadline: UInt64? { compactMap(\.nextDeadline).min() }
}

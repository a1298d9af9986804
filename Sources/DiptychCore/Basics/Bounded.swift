// SPDX-License-Identifier: MIT
// Lists kept to the last few entries (a frame's damage history, recent pictures, the latest
// protocol errors, unacked serials): a kiosk runs for months, and each of them is bounded.

extension Array {
    /// Appends `element`, dropping the oldest past `limit`.
    @inlinable public mutating func push(_ element: Element, keeping limit: Int) {
        if limit > 0, count >= limit { removeFirst(count - limit + 1) }
        append(element)
    }
}

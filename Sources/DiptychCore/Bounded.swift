// SPDX-License-Identifier: MIT
// Lists kept to the last few entries (a frame's damage history, recent pictures, the latest
// protocol errors): a kiosk runs for months, and each of them is bounded.

extension Array {
    /// Appends `element`, dropping the oldest past `limit`: the rest move down in place (no
    /// reference is retained or released for the move, as `removeFirst`'s general path does).
    @inlinable public mutating func push(_ element: Element, keeping limit: Int) {
        guard count >= limit, limit > 0 else {
            append(element)
            return
        }
        withUnsafeMutableBufferPointer { b in
            let base = b.baseAddress!
            base.deinitialize(count: 1)
            base.moveInitialize(from: base + 1, count: b.count - 1)
            (base + b.count - 1).initialize(to: element)
        }
    }
}

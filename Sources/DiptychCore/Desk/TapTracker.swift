// SPDX-License-Identifier: MIT
// Which contacts were taps, as the on-screen keyboard's show rule counts them.


/// A finger's or the pen's contact with an app that moved at most `GestureMetrics.tapSlop` points before
/// lifting: a tap (a scroll raises no keyboard; nor a mouse's click, which comes with a desk's
/// keyboard).
package struct TapTracker {
    /// Where each finger (by touch id) and the pen touched down, while down.
    private var starts: [Int64: (x: Double, y: Double)] = [:]
    private static let penKey = Int64.min

    /// The app the last tap among `effects` ended in, if one did.
    package mutating func tapEnded(in effects: [ShellEffect]) -> AppID? {
        var ended: AppID?
        for e in effects {
            switch e {
            case .touch(_, let id, .down, let x, let y): starts[Int64(id)] = (x, y)
            case .pen(_, .down, let x, let y, _, _, _): starts[Self.penKey] = (x, y)
            case .touch(let app, let id, .up, let x, let y): if tapped(Int64(id), x, y) { ended = app }
            case .pen(let app, .up, let x, let y, _, _, _): if tapped(Self.penKey, x, y) { ended = app }
            case .touch(_, let id, .cancel, _, _): starts[Int64(id)] = nil
            default: break
            }
        }
        return ended
    }

    private mutating func tapped(_ key: Int64, _ x: Double, _ y: Double) -> Bool {
        guard let s = starts.removeValue(forKey: key) else { return false }
        return abs(x - s.x) <= GestureMetrics.tapSlop && abs(y - s.y) <= GestureMetrics.tapSlop
    }
}

// SPDX-License-Identifier: MIT
// Repeated log lines held to a few per kind and window, so that no client (and no failing
// system call in a loop) can fill the log: what was held back is counted and said once when the
// next window opens.

/// Rate limits for log lines by kind. Keys are the compositor's own fixed strings, never what
/// a client sent, so the table stays small.
final class LogLimiter {
    /// Lines of one kind let through per window.
    static let perWindow = 5
    /// The window, in milliseconds.
    static let window: UInt64 = 10_000

    private var kinds: [String: (start: UInt64, count: Int, held: Int)] = [:]

    /// Whether a line of `kind` may be written at `now` (monotonic ms), and how many of its
    /// kind were held back in the window that just closed (to be said with it).
    func allow(_ kind: String, now: UInt64) -> (allowed: Bool, held: Int) {
        var k = kinds[kind] ?? (now, 0, 0)
        var held = 0
        if now >= k.start + Self.window {
            held = k.held
            k = (now, 0, 0)
        }
        k.count += 1
        let allowed = k.count <= Self.perWindow
        if !allowed { k.held += 1 }
        kinds[kind] = k
        return (allowed, held)
    }
}

// SPDX-License-Identifier: MIT
// Waiting on conditions, not clocks: the one helper the tests poll with, and the notification
// socket a service manager gives (a compositor says READY=1 there once it serves).

import DiptychLinux
import Glibc

/// Whether `condition` holds within `seconds`: looked at once at once, then after 1 ms, doubling
/// up to every 20 ms, and once more at the end.
public func eventually(seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = MonotonicClock.milliseconds + UInt64(seconds * 1000)
    var pause: UInt32 = 1000
    while MonotonicClock.milliseconds < deadline {
        if try condition() { return true }
        usleep(pause)
        pause = min(pause * 2, 20_000)
    }
    return try condition()
}

/// A datagram socket bound at `path`, as systemd's notification socket (`$NOTIFY_SOCKET`).
public final class NotifySocket {
    public let fd: Int32
    public let path: String

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw SystemError("the path \(path) is too long for a socket") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard r == 0 else {
            let e = SystemError("bind \(path)")
            close(fd)
            throw e
        }
    }

    /// The messages that arrive within `milliseconds`, or until one contains `until`.
    public func messages(within milliseconds: Int, until: String? = nil) -> [String] {
        var out: [String] = []
        let deadline = MonotonicClock.milliseconds + UInt64(milliseconds)
        while MonotonicClock.milliseconds < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let now = MonotonicClock.milliseconds
            guard now < deadline, poll(&p, 1, Int32(deadline - now)) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { out.append(String(decoding: buffer[..<n], as: UTF8.self)) }
            if let until, out.last?.contains(until) == true { break }
        }
        return out
    }

    /// Waits up to `milliseconds` for a message holding `line` (a line of it) while `alive()`:
    /// whether it came.
    public func wait(for line: String, milliseconds: Int, while alive: () -> Bool) -> Bool {
        let deadline = MonotonicClock.milliseconds + UInt64(milliseconds)
        while MonotonicClock.milliseconds < deadline && alive() {
            // In slices, to see a process that exits without saying it.
            let now = MonotonicClock.milliseconds
            let slice = Int(min(100, deadline > now ? deadline - now : 0))
            if messages(within: slice, until: line).contains(where: { $0.split(separator: "\n").contains(Substring(line)) }) { return true }
        }
        return false
    }

    deinit { close(fd) }
}

// SPDX-License-Identifier: MIT
// epoll, timerfd and signalfd: the pieces of a single-threaded event loop.

import CLinuxShims
import Glibc

/// Readiness reported for a registered descriptor.
public struct Readiness: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = Readiness(rawValue: 1)
    public static let writable = Readiness(rawValue: 2)
    public static let hangUp = Readiness(rawValue: 4)
}

/// An epoll instance. Confined to the thread that uses it; not Sendable.
public final class Epoll {
    private let fd: FileDescriptor

    public init() throws(SystemError) {
        fd = FileDescriptor(taking: try retrying("epoll_create1") { dp_epoll_create() })
    }

    /// Watches `descriptor` for readability (and writability if asked); `token` identifies it.
    public func add(_ descriptor: Int32, token: UInt64, writable: Bool = false) throws(SystemError) {
        try retrying("epoll_ctl ADD") { dp_epoll_add(fd.rawValue, descriptor, writable ? 3 : 1, token) }
    }

    /// Changes the interest of a watched descriptor.
    public func modify(_ descriptor: Int32, token: UInt64, writable: Bool) throws(SystemError) {
        try retrying("epoll_ctl MOD") { dp_epoll_modify(fd.rawValue, descriptor, writable ? 3 : 1, token) }
    }

    /// Stops watching. Safe to call for a descriptor that is about to be closed.
    public func remove(_ descriptor: Int32) {
        _ = dp_epoll_remove(fd.rawValue, descriptor)
    }

    /// Waits up to `timeoutMilliseconds` (nil: forever) and returns the ready tokens.
    public func wait(timeoutMilliseconds: Int?) throws(SystemError) -> [(token: UInt64, readiness: Readiness)] {
        var tokens = [UInt64](repeating: 0, count: 64)
        var ready = [UInt32](repeating: 0, count: 64)
        let timeout = timeoutMilliseconds.map { Int32(clamping: max(0, $0)) } ?? -1
        let n = dp_epoll_wait(fd.rawValue, &tokens, &ready, 64, timeout)
        if n < 0 {
            if errno == EINTR { return [] }
            throw SystemError("epoll_wait")
        }
        return (0..<Int(n)).map { (tokens[$0], Readiness(rawValue: ready[$0])) }
    }
}

/// A monotonic timer descriptor.
public struct TimerDescriptor: ~Copyable {
    public let fd: FileDescriptor

    public init() throws(SystemError) {
        fd = FileDescriptor(taking: try retrying("timerfd_create") { dp_timerfd_create() })
    }

    /// Fires once after `nanoseconds` (0 disarms), then every `interval` nanoseconds if given.
    public func arm(nanoseconds: UInt64, interval: UInt64 = 0) throws(SystemError) {
        try retrying("timerfd_settime") { dp_timerfd_arm(fd.rawValue, nanoseconds, interval) }
    }

    /// Fires once at the monotonic time `nanoseconds` (a time already past fires at once; 0
    /// disarms), then every `interval` nanoseconds if given.
    public func arm(atNanoseconds nanoseconds: UInt64, interval: UInt64 = 0) throws(SystemError) {
        try retrying("timerfd_settime") { dp_timerfd_arm_at(fd.rawValue, nanoseconds, interval) }
    }

    /// Clears the expirations and returns how many there were.
    public func acknowledge() -> UInt64 { dp_timerfd_read(fd.rawValue) }
}

/// A signal the loop handles.
public enum Signal: Int32, Sendable {
    /// The terminal or ssh session that started the process went away.
    case hangUp = 1
    case interrupt = 2
    case terminate = 15
    case child = 17
    /// Read the configuration again (`systemctl reload`).
    case userOne = 10
}

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 (and SIGCHLD if asked) and reports them through a
/// descriptor, so no Swift code runs in signal context. Also ignores SIGPIPE.
///
/// No SIGBUS handler is installed: that signal is a synchronous fault and could not go through
/// a descriptor. It is not needed because a client's buffer is mapped only after its memfd is
/// sealed against shrinking (seals read before its size), so the pages the compositor reads
/// stay backed for as long as it maps them.
public struct SignalDescriptor: ~Copyable {
    public let fd: FileDescriptor

    public let includeChild: Bool

    public init(includeChild: Bool) throws(SystemError) {
        self.includeChild = includeChild
        fd = FileDescriptor(taking: try retrying("signalfd") { dp_signalfd_standard(includeChild ? 1 : 0) })
    }

    /// Whether the descriptor `fd` of such a SignalDescriptor reports SIGUSR1 from now on
    /// (unheard, SIGUSR1s stay pending as one and wake no one: a flood of them costs nothing
    /// until they are heard again).
    public static func hear(userOne: Bool, fd: Int32, includeChild: Bool) {
        _ = dp_signalfd_hear_usr1(fd, includeChild ? 1 : 0, userOne ? 1 : 0)
    }

    /// The next pending signal, or nil.
    public func next() -> Signal? {
        let s = dp_signalfd_read(fd.rawValue)
        return s == 0 ? nil : Signal(rawValue: s)
    }
}

/// Monotonic time.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    public static var nanoseconds: UInt64 { dp_monotonic_ns() }
    /// Milliseconds since an arbitrary fixed point.
    public static var milliseconds: UInt64 { dp_monotonic_ns() / 1_000_000 }
}

/// The CPU time the calling thread has run.
public enum ThreadClock {
    /// Nanoseconds of CPU time: what the thread executed, not the time another process ran
    /// on its CPU meanwhile.
    public static var nanoseconds: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// The wall clock in the local time zone (the status bar's clock).
public enum WallClock {
    /// Minutes since local midnight, and milliseconds until the next minute begins; the
    /// weekday (0 Monday … 6 Sunday).
    public static var localMinute: (minutes: Int, untilNext: UInt64, weekday: Int) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = ts.tv_sec
        var parts = tm()
        localtime_r(&t, &parts)
        let intoMinute = UInt64(parts.tm_sec) * 1000 + UInt64(ts.tv_nsec / 1_000_000)
        return (Int(parts.tm_hour) * 60 + Int(parts.tm_min), 60_000 - min(intoMinute, 59_999), (Int(parts.tm_wday) + 6) % 7)
    }
}

/// Ignores SIGPIPE for the whole process: a peer that went away must never kill us.
public func ignoreBrokenPipes() { dp_ignore_sigpipe() }

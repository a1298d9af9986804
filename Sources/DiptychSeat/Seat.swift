// SPDX-License-Identifier: MIT
// The seat: the card and the input devices are opened through libseat (logind,
// seatd or its built-in backend), so the compositor runs as an ordinary user of the seat, the
// VT is in graphics mode with its keyboard kept from the shell behind it, and a VT switch
// reaches us as the seat being disabled and enabled again.

import CSeat
import DiptychLinux
import Glibc

/// Why the seat could not be had or a device could not be opened through it.
public struct SeatError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A libseat session. Confined to the compositor's thread; watch `descriptor` and call
/// `dispatch` when it is readable.
public final class Seat: DeviceOpener {
    private var handle: OpaquePointer?
    private let listener: UnsafeMutablePointer<libseat_seat_listener>
    /// Device ids by descriptor, to close them through the seat.
    private var devices: [Int32: Int32] = [:]
    /// Whether the session is active (its VT is the one shown).
    public private(set) var active = false
    /// The seat's name (e.g. seat0).
    public private(set) var name = ""
    /// Called when the session is disabled (a switch to another VT): stop drawing and reading
    /// input; the seat is given up (acknowledged) when it returns.
    public var onDisable: () -> Void = {}
    /// Called when the session is active again: take the devices back and repaint.
    public var onEnable: () -> Void = {}

    /// Opens the seat and waits (up to `timeoutMilliseconds`) until it is active.
    ///
    /// - Throws: `SeatError` naming what is missing (no seat manager, not allowed on it).
    public init(timeoutMilliseconds: Int = 5000) throws {
        listener = .allocate(capacity: 1)
        listener.initialize(to: libseat_seat_listener(
            enable_seat: { _, data in
                guard let data else { return }
                let seat = Unmanaged<Seat>.fromOpaque(data).takeUnretainedValue()
                seat.active = true
                seat.onEnable()
            },
            disable_seat: { _, data in
                guard let data else { return }
                let seat = Unmanaged<Seat>.fromOpaque(data).takeUnretainedValue()
                seat.active = false
                seat.onDisable()
                if let h = seat.handle { libseat_disable_seat(h) }
            }))
        errno = 0
        // On a failure from here on the instance is whole: deinit frees the listener.
        guard let h = libseat_open_seat(listener, Unmanaged.passUnretained(self).toOpaque()) else {
            let e = errno
            throw SeatError(
                "no seat available (\(String(cString: strerror(e)))): run the compositor in a logind session, or start seatd and add this user to its group (see the README, Kiosk session)")
        }
        handle = h
        name = String(cString: libseat_seat_name(h))
        func giveUp(_ why: String) -> SeatError {
            libseat_close_seat(h)
            handle = nil
            return SeatError(why)
        }
        let deadline = MonotonicClock.milliseconds + UInt64(timeoutMilliseconds)
        while !active {
            if MonotonicClock.milliseconds >= deadline {
                throw giveUp("the seat \(name) did not become active within \(timeoutMilliseconds) ms: is this session's VT the one shown?")
            }
            if libseat_dispatch(h, 100) < 0 && errno != EINTR {
                throw giveUp("the seat \(name) failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    deinit {
        if let h = handle {
            for (fd, id) in devices {
                libseat_close_device(h, id)
                close(fd)
            }
            libseat_close_seat(h)
        }
        listener.deallocate()
    }

    /// The descriptor to watch for the seat's events.
    public var descriptor: Int32 { handle.map { libseat_get_fd($0) } ?? -1 }

    /// Handles the seat's pending events (enable, disable).
    public func dispatch() {
        guard let h = handle else { return }
        _ = libseat_dispatch(h, 0)
    }

    /// Opens a device node through the seat (close-on-exec, non-blocking).
    public func openDevice(_ path: String) -> Int32 {
        guard let h = handle else { return -ENODEV }
        var fd: Int32 = -1
        let id = libseat_open_device(h, path, &fd)
        guard id >= 0, fd >= 0 else { return -(errno == 0 ? EACCES : errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        devices[fd] = id
        return fd
    }

    /// Asks the seat to switch to session (VT) `session`: Ctrl+Alt+Fn. The seat manager decides;
    /// the compositor is told through `onDisable` when it happens.
    public func switchSession(_ session: Int) {
        if let h = handle { _ = libseat_switch_session(h, Int32(session)) }
    }

    /// Closes a device the seat opened.
    public func closeDevice(_ fd: Int32) {
        if let h = handle, let id = devices.removeValue(forKey: fd) { libseat_close_device(h, id) }
        close(fd)
    }
}

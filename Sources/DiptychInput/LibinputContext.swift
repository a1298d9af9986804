// SPDX-License-Identifier: MIT
// A libinput context on the path backend: devices are added by path, and libinput opens them
// through our callbacks (it never opens device nodes itself).

import CLibinput
import CUdev
import DiptychLinux
import Glibc

/// Why libinput could not be set up or a device could not be added.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Owns a libinput context: the path backend (devices added by path) or the udev backend
/// (every input device of a seat). Confined to one thread; not Sendable.
///
/// libinput calls back into `openRestricted`/`closeRestricted` to open device nodes, so a
/// seat manager (or plain `open` as root on a kiosk) stays in our hands.
public final class LibinputContext {
    private let context: OpaquePointer
    private let interface: UnsafeMutablePointer<libinput_interface>
    private let udev: OpaquePointer?

    private static func makeInterface() -> UnsafeMutablePointer<libinput_interface> {
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, flags, _ in
                guard let path else { return -EINVAL }
                let fd = open(path, flags | O_CLOEXEC)
                return fd < 0 ? -errno : fd
            },
            close_restricted: { fd, _ in close(fd) }))
        return interface
    }

    /// A path-backend context with no devices; add them with `addDevice`.
    public init() throws {
        interface = Self.makeInterface()
        udev = nil
        guard let li = libinput_path_create_context(interface, nil) else {
            interface.deallocate()
            throw InputError(message: "libinput_path_create_context failed")
        }
        context = li
    }

    /// A udev-backend context holding every input device of `seat` (as `--input udev`).
    ///
    /// - Throws: `InputError` when udev is unavailable or the seat cannot be assigned.
    public init(seat: String) throws {
        interface = Self.makeInterface()
        guard let u = udev_new() else {
            interface.deallocate()
            throw InputError(message: "udev_new failed: udev is not available")
        }
        guard let li = libinput_udev_create_context(interface, nil, u) else {
            udev_unref(u)
            interface.deallocate()
            throw InputError(message: "libinput_udev_create_context failed")
        }
        guard libinput_udev_assign_seat(li, seat) == 0 else {
            libinput_unref(li)
            udev_unref(u)
            interface.deallocate()
            throw InputError(message: "libinput cannot assign seat '\(seat)'")
        }
        udev = u
        context = li
    }

    deinit {
        // libinput holds its own udev reference; drop ours after the context.
        libinput_unref(context)
        if let udev { udev_unref(udev) }
        interface.deallocate()
    }

    /// The descriptor to poll; call `dispatch()` when it is readable.
    public var descriptor: Int32 { libinput_get_fd(context) }

    /// Adds the evdev device at `path` (e.g. /dev/input/event3).
    ///
    /// - Throws: `InputError` naming the path when libinput cannot use it.
    public func addDevice(_ path: String) throws {
        guard libinput_path_add_device(context, path) != nil else {
            throw InputError(message: "\(path): libinput cannot use this as an input device")
        }
    }

    /// Reads pending kernel events into libinput's queue and returns how many events are
    /// queued, discarding them (the translation into touch and pen events comes with the input
    /// backend).
    public func drain() -> Int {
        libinput_dispatch(context)
        var count = 0
        while let event = libinput_get_event(context) {
            libinput_event_destroy(event)
            count += 1
        }
        return count
    }
}

// SPDX-License-Identifier: MIT
// A libinput context on the path backend: devices are added by path, and libinput opens them
// through our callbacks (it never opens device nodes itself).

import CLibinput
import CUdev
import DiptychCore
import DiptychLinux
import Glibc

/// Why libinput could not be set up or a device could not be added.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
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

    /// Who opens devices for libinput (a seat), if not plain `open`: retained here, handed to
    /// the callbacks as libinput's user data.
    private let openerBox: Unmanaged<OpenerBox>?

    /// The opener, boxed so that a C callback can reach it through one pointer.
    final class OpenerBox {
        let opener: any DeviceOpener
        init(_ opener: any DeviceOpener) { self.opener = opener }
    }

    private static func makeInterface() -> UnsafeMutablePointer<libinput_interface> {
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, flags, data in
                guard let path else { return -EINVAL }
                if let data { return Unmanaged<OpenerBox>.fromOpaque(data).takeUnretainedValue().opener.openDevice(String(cString: path)) }
                let fd = open(path, flags | O_CLOEXEC)
                return fd < 0 ? -errno : fd
            },
            close_restricted: { fd, data in
                if let data { Unmanaged<OpenerBox>.fromOpaque(data).takeUnretainedValue().opener.closeDevice(fd) } else { close(fd) }
            }))
        return interface
    }

    /// A path-backend context with no devices; add them with `addDevice`.
    public init(opener: (any DeviceOpener)? = nil) throws {
        interface = Self.makeInterface()
        udev = nil
        openerBox = opener.map { Unmanaged.passRetained(OpenerBox($0)) }
        guard let li = libinput_path_create_context(interface, openerBox?.toOpaque()) else {
            openerBox?.release()
            interface.deallocate()
            throw InputError(message: "libinput_path_create_context failed")
        }
        context = li
    }

    /// A udev-backend context holding every input device of `seat` (as `--input udev`).
    ///
    /// - Throws: `InputError` when udev is unavailable or the seat cannot be assigned.
    public init(seat: String, opener: (any DeviceOpener)? = nil) throws {
        interface = Self.makeInterface()
        openerBox = opener.map { Unmanaged.passRetained(OpenerBox($0)) }
        guard let u = udev_new() else {
            interface.deallocate()
            openerBox?.release()
            throw InputError(message: "udev_new failed: udev is not available")
        }
        guard let li = libinput_udev_create_context(interface, openerBox?.toOpaque(), u) else {
            openerBox?.release()
            udev_unref(u)
            interface.deallocate()
            throw InputError(message: "libinput_udev_create_context failed")
        }
        guard libinput_udev_assign_seat(li, seat) == 0 else {
            libinput_unref(li)
            openerBox?.release()
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
        openerBox?.release()
    }

    /// Stops reading devices (the session went to another VT): libinput closes them.
    public func suspend() { libinput_suspend(context) }

    /// Opens the devices again after `suspend`.
    public func resume() { _ = libinput_resume(context) }

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

    /// Discards every queued event; returns how many there were.
    public func drain() -> Int { read().count }

    /// When set, devices that have a calibration matrix get the identity, so the caller's own
    /// calibration (`--touch-calibration`) is not stacked on the udev default.
    public var overridesCalibration = false

    /// Reads pending kernel events and returns them as `RawInput` values, coordinates
    /// normalised to 0…1 of each device's area, times in microseconds.
    ///
    /// The corresponding C functions are `libinput_dispatch` and `libinput_get_event`.
    public func read() -> [RawInput] {
        libinput_dispatch(context)
        var out: [RawInput] = []
        while let event = libinput_get_event(context) {
            defer { libinput_event_destroy(event) }
            if let raw = translate(event) { out.append(raw) }
        }
        return out
    }

    private func translate(_ event: OpaquePointer) -> RawInput? {
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED, LIBINPUT_EVENT_DEVICE_REMOVED:
            let device = libinput_event_get_device(event)
            let name = libinput_device_get_name(device).map { String(cString: $0) } ?? "?"
            if type == LIBINPUT_EVENT_DEVICE_ADDED {
                if overridesCalibration, libinput_device_config_calibration_has_matrix(device) != 0 {
                    var identity: [Float] = [1, 0, 0, 0, 1, 0]
                    _ = libinput_device_config_calibration_set_matrix(device, &identity)
                }
                return .deviceAdded(name: name)
            }
            return .deviceRemoved(name: name, sysname: libinput_device_get_sysname(device).map { String(cString: $0) } ?? "")
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            let t = libinput_event_get_touch_event(event)
            let slot = libinput_event_touch_get_seat_slot(t)
            let x = libinput_event_touch_get_x_transformed(t, 1), y = libinput_event_touch_get_y_transformed(t, 1)
            let time = libinput_event_touch_get_time_usec(t)
            return type == LIBINPUT_EVENT_TOUCH_DOWN
                ? .touchDown(slot: slot, x: x, y: y, time: time) : .touchMotion(slot: slot, x: x, y: y, time: time)
        case LIBINPUT_EVENT_TOUCH_UP:
            let t = libinput_event_get_touch_event(event)
            return .touchUp(slot: libinput_event_touch_get_seat_slot(t), time: libinput_event_touch_get_time_usec(t))
        case LIBINPUT_EVENT_TOUCH_CANCEL:
            let t = libinput_event_get_touch_event(event)
            return .touchCancel(slot: libinput_event_touch_get_seat_slot(t), time: libinput_event_touch_get_time_usec(t))
        case LIBINPUT_EVENT_TOUCH_FRAME:
            let t = libinput_event_get_touch_event(event)
            return .touchFrame(time: libinput_event_touch_get_time_usec(t))
        case LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY, LIBINPUT_EVENT_TABLET_TOOL_TIP, LIBINPUT_EVENT_TABLET_TOOL_AXIS:
            let t = libinput_event_get_tablet_tool_event(event)
            let x = libinput_event_tablet_tool_get_x_transformed(t, 1), y = libinput_event_tablet_tool_get_y_transformed(t, 1)
            let p = libinput_event_tablet_tool_get_pressure(t)
            let tx = libinput_event_tablet_tool_get_tilt_x(t), ty = libinput_event_tablet_tool_get_tilt_y(t)
            let time = libinput_event_tablet_tool_get_time_usec(t)
            if type == LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY {
                let entering = libinput_event_tablet_tool_get_proximity_state(t) == LIBINPUT_TABLET_TOOL_PROXIMITY_STATE_IN
                let eraser = libinput_tablet_tool_get_type(libinput_event_tablet_tool_get_tool(t)) == LIBINPUT_TABLET_TOOL_TYPE_ERASER
                return .tabletProximity(entering: entering, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, tool: eraser ? .eraser : .pen, time: time)
            }
            if type == LIBINPUT_EVENT_TABLET_TOOL_TIP {
                let down = libinput_event_tablet_tool_get_tip_state(t) == LIBINPUT_TABLET_TOOL_TIP_DOWN
                return .tabletTip(down: down, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, time: time)
            }
            return .tabletAxis(x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, time: time)
        case LIBINPUT_EVENT_TABLET_TOOL_BUTTON:
            let t = libinput_event_get_tablet_tool_event(event)
            // BTN_STYLUS and BTN_STYLUS2 (linux/input-event-codes.h); other buttons are not the pen's.
            let button: PenButtons
            switch libinput_event_tablet_tool_get_button(t) {
            case 0x14B: button = .primary
            case 0x14C: button = .secondary
            default: return nil
            }
            let pressed = libinput_event_tablet_tool_get_button_state(t) == LIBINPUT_BUTTON_STATE_PRESSED
            return .tabletButton(button, pressed: pressed, time: libinput_event_tablet_tool_get_time_usec(t))
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            let k = libinput_event_get_keyboard_event(event)
            // A keyboard one types on has letter keys (KEY_A, KEY_Z); a power button or a
            // remote does not.
            let device = libinput_event_get_device(event)
            let letters = libinput_device_keyboard_has_key(device, 30) == 1 && libinput_device_keyboard_has_key(device, 44) == 1
            return .key(
                code: libinput_event_keyboard_get_key(k), pressed: libinput_event_keyboard_get_key_state(k) == LIBINPUT_KEY_STATE_PRESSED,
                time: libinput_event_keyboard_get_time_usec(k), keyboard: letters ? libinput_device_get_sysname(device).map { String(cString: $0) } : nil)
        case LIBINPUT_EVENT_POINTER_MOTION:
            let p = libinput_event_get_pointer_event(event)
            return .pointerMotion(dx: libinput_event_pointer_get_dx(p), dy: libinput_event_pointer_get_dy(p), time: libinput_event_pointer_get_time_usec(p))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            let p = libinput_event_get_pointer_event(event)
            return .pointerAbsolute(
                x: libinput_event_pointer_get_absolute_x_transformed(p, 1), y: libinput_event_pointer_get_absolute_y_transformed(p, 1),
                time: libinput_event_pointer_get_time_usec(p))
        case LIBINPUT_EVENT_POINTER_BUTTON:
            let p = libinput_event_get_pointer_event(event)
            return .pointerButton(
                code: libinput_event_pointer_get_button(p), pressed: libinput_event_pointer_get_button_state(p) == LIBINPUT_BUTTON_STATE_PRESSED,
                time: libinput_event_pointer_get_time_usec(p))
        case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL, LIBINPUT_EVENT_POINTER_SCROLL_FINGER, LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
            let p = libinput_event_get_pointer_event(event)
            func value(_ axis: libinput_pointer_axis) -> Double {
                guard libinput_event_pointer_has_axis(p, axis) != 0 else { return 0 }
                // A wheel's clicks in v120 units, 15 points a click; fingers and continuous
                // devices in pixels already.
                return type == LIBINPUT_EVENT_POINTER_SCROLL_WHEEL
                    ? libinput_event_pointer_get_scroll_value_v120(p, axis) / 120 * 15 : libinput_event_pointer_get_scroll_value(p, axis)
            }
            let source: ScrollSource = type == LIBINPUT_EVENT_POINTER_SCROLL_WHEEL ? .wheel : type == LIBINPUT_EVENT_POINTER_SCROLL_FINGER ? .finger : .continuous
            return .pointerScroll(
                dx: value(LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL), dy: value(LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL), source: source,
                time: libinput_event_pointer_get_time_usec(p))
        default:
            return nil
        }
    }
}

extension LibinputContext: InputSource {}

// SPDX-License-Identifier: MIT
// Kernel input devices made with uinput (a touchscreen and a pen), for tests that drive real
// libinput: scenario input is written to the devices and read back through libinput.

import CUinput
import DiptychInput
import DiptychCore
import DiptychLinux
import Glibc

/// A uinput touchscreen, pen, keyboard and mouse (absolute, as QEMU's tablet) whose axes span
/// the panel in pixels, so a panel coordinate written is the coordinate libinput reports. Owns
/// the uinput descriptors.
public final class UinputInjector {
    public let touchNode: String
    public let penNode: String
    public let keyboardNode: String
    public let mouseNode: String
    private let touchFD: Int32
    private let penFD: Int32
    private let keyboardFD: Int32
    private let mouseFD: Int32
    private var activeSlots: Set<Int32> = []
    private var trackingID: Int32 = 1

    // Event codes from linux/input-event-codes.h.
    static let synReport: Int32 = 0, evSyn: Int32 = 0, evKey: Int32 = 1, evAbs: Int32 = 3
    static let btnTouch: Int32 = 0x14A, btnToolPen: Int32 = 0x140
    static let absX: Int32 = 0, absY: Int32 = 1, absPressure: Int32 = 0x18, absTiltX: Int32 = 0x1A, absTiltY: Int32 = 0x1B
    static let mtSlot: Int32 = 0x2F, mtX: Int32 = 0x35, mtY: Int32 = 0x36, mtTracking: Int32 = 0x39
    static let evRel: Int32 = 2, relWheel: Int32 = 8, relHWheel: Int32 = 6

    /// Creates the devices (needs /dev/uinput) and their udev database entries.
    public init(panel: Size) throws {
        var node = [CChar](repeating: 0, count: 128)
        let t = dp_uinput_create(0, Int32(panel.width), Int32(panel.height), 10, &node, 128)
        guard t >= 0 else { throw InputError(message: "cannot create a uinput touchscreen: \(SystemError("uinput"))") }
        touchFD = t
        touchNode = String(decoding: node.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let p = dp_uinput_create(1, Int32(panel.width), Int32(panel.height), 10, &node, 128)
        guard p >= 0 else {
            close(t)
            throw InputError(message: "cannot create a uinput pen: \(SystemError("uinput"))")
        }
        penFD = p
        penNode = String(decoding: node.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let k = dp_uinput_create(2, 0, 0, 0, &node, 128)
        guard k >= 0 else {
            close(t)
            close(p)
            throw InputError(message: "cannot create a uinput keyboard: \(SystemError("uinput"))")
        }
        keyboardFD = k
        keyboardNode = String(decoding: node.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let m = dp_uinput_create(3, Int32(panel.width), Int32(panel.height), 10, &node, 128)
        guard m >= 0 else {
            close(t)
            close(p)
            close(k)
            throw InputError(message: "cannot create a uinput mouse: \(SystemError("uinput"))")
        }
        mouseFD = m
        mouseNode = String(decoding: node.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every device's node.
    public var nodes: [String] { [touchNode, penNode, keyboardNode, mouseNode] }

    /// One proximity in and out, so libinput learns that this pen reports proximity-out and
    /// does not time it out (its quirk for pens that never do). Drain libinput afterwards.
    public func announcePen() {
        emit(penFD, Self.evKey, Self.btnToolPen, 1)
        emit(penFD, Self.evSyn, Self.synReport, 0)
        emit(penFD, Self.evKey, Self.btnToolPen, 0)
        emit(penFD, Self.evSyn, Self.synReport, 0)
    }

    deinit {
        close(touchFD)
        close(penFD)
        close(keyboardFD)
        close(mouseFD)
    }

    private func emit(_ fd: Int32, _ type: Int32, _ code: Int32, _ value: Int32) { _ = dp_uinput_emit(fd, type, code, value) }

    /// Writes one scenario input as an evdev packet. A `cancel` is written as a lift (uinput
    /// cannot make the kernel cancel a touch).
    public func inject(_ input: PanelInput) {
        switch input {
        case .touch(let id, let phase, let x, let y):
            let slot = id % 10
            emit(touchFD, Self.evAbs, Self.mtSlot, slot)
            switch phase {
            case .down:
                emit(touchFD, Self.evAbs, Self.mtTracking, trackingID)
                trackingID += 1
                emit(touchFD, Self.evAbs, Self.mtX, Int32(x.rounded()))
                emit(touchFD, Self.evAbs, Self.mtY, Int32(y.rounded()))
                if activeSlots.isEmpty { emit(touchFD, Self.evKey, Self.btnTouch, 1) }
                activeSlots.insert(slot)
                emit(touchFD, Self.evAbs, Self.absX, Int32(x.rounded()))
                emit(touchFD, Self.evAbs, Self.absY, Int32(y.rounded()))
            case .motion:
                emit(touchFD, Self.evAbs, Self.mtX, Int32(x.rounded()))
                emit(touchFD, Self.evAbs, Self.mtY, Int32(y.rounded()))
                emit(touchFD, Self.evAbs, Self.absX, Int32(x.rounded()))
                emit(touchFD, Self.evAbs, Self.absY, Int32(y.rounded()))
            case .up, .cancel:
                emit(touchFD, Self.evAbs, Self.mtTracking, -1)
                activeSlots.remove(slot)
                if activeSlots.isEmpty { emit(touchFD, Self.evKey, Self.btnTouch, 0) }
            }
            emit(touchFD, Self.evSyn, Self.synReport, 0)
        case .pen(let phase, let x, let y, let pressure, let tiltX, let tiltY, _, _):
            // The injected pen is always the pen end with no button held (its uinput device
            // declares only BTN_TOOL_PEN).
            emit(penFD, Self.evAbs, Self.absX, Int32(x.rounded()))
            emit(penFD, Self.evAbs, Self.absY, Int32(y.rounded()))
            emit(penFD, Self.evAbs, Self.absPressure, Int32((pressure * 4095).rounded()))
            emit(penFD, Self.evAbs, Self.absTiltX, Int32(tiltX.rounded()))
            emit(penFD, Self.evAbs, Self.absTiltY, Int32(tiltY.rounded()))
            switch phase {
            case .proximityIn: emit(penFD, Self.evKey, Self.btnToolPen, 1)
            case .down: emit(penFD, Self.evKey, Self.btnTouch, 1)
            case .up: emit(penFD, Self.evKey, Self.btnTouch, 0)
            case .proximityOut: emit(penFD, Self.evKey, Self.btnToolPen, 0)
            case .motion: break
            }
            emit(penFD, Self.evSyn, Self.synReport, 0)
        case .key(let code, let pressed, _):
            emit(keyboardFD, Self.evKey, Int32(code), pressed ? 1 : 0)
            emit(keyboardFD, Self.evSyn, Self.synReport, 0)
        case .pointer(.motion(let x, let y)):
            emit(mouseFD, Self.evAbs, Self.absX, Int32(x.rounded()))
            emit(mouseFD, Self.evAbs, Self.absY, Int32(y.rounded()))
            emit(mouseFD, Self.evSyn, Self.synReport, 0)
        case .pointer(.button(let code, let pressed)):
            emit(mouseFD, Self.evKey, Int32(code), pressed ? 1 : 0)
            emit(mouseFD, Self.evSyn, Self.synReport, 0)
        case .pointer(.scroll(let dx, let dy, _)):
            // Wheel clicks of 15 points; the kernel's wheel counts up, a scroll's dy down.
            if dy != 0 { emit(mouseFD, Self.evRel, Self.relWheel, Int32(-(dy / 15).rounded())) }
            if dx != 0 { emit(mouseFD, Self.evRel, Self.relHWheel, Int32((dx / 15).rounded())) }
            emit(mouseFD, Self.evSyn, Self.synReport, 0)
        case .pointerMove:
            // The mouse is absolute: a scenario gives positions.
            break
        }
    }
}

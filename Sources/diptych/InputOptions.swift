// SPDX-License-Identifier: MIT
// Input options shared by `run` and `record`: where input comes from, and its calibration.

import ArgumentParser
import DiptychCore
import DiptychKeyboard
import DiptychInput
import DiptychLinux
import DiptychSeat
import DiptychServer
import Glibc

struct InputOptions: ParsableArguments {
    @Option(help: "Input devices: udev (every device of seat0) or a comma-separated list of device nodes, e.g. /dev/input/event3,/dev/input/event5.")
    var input: String?

    @Option(help: "libinput's 2x3 calibration matrix a,b,c,d,e,f for touchscreens (default: the device's LIBINPUT_CALIBRATION_MATRIX).")
    var touchCalibration: String?

    @Option(help: "The keymap as RULES:MODEL:LAYOUT:VARIANT:OPTIONS (any part empty; a bare name is the layout, e.g. de or ::fr:azerty); unset parts from XKB_DEFAULT_RULES, _MODEL, _LAYOUT, _VARIANT, _OPTIONS; default us.")
    var keymap: String?

    @Option(help: "Key repeat as RATE,DELAY: repeats a second after DELAY ms (default 25,600; 0,0 for none).")
    var `repeat`: String = "25,600"

    /// The keymap's names, checked: a usage error naming a layout (or variant, option) that
    /// xkbcommon does not know.
    func keymapNames() throws -> KeymapNames {
        guard let keymap else { return KeymapNames() }
        let names = KeymapNames(parsing: keymap)
        do { _ = try Keyboard(names: names) } catch { throw UsageError("--keymap: \(error)") }
        return names
    }

    /// `--repeat`'s value.
    func keyRepeat() throws -> KeyRepeat {
        guard let r = KeyRepeat(parsing: `repeat`) else { throw UsageError("bad --repeat '\(`repeat`)': expected RATE,DELAY, e.g. 25,600 (rate 0-1000 a second, delay 0-10000 ms)") }
        return r
    }

    /// The calibration to apply, or a usage error naming the string.
    func calibration() throws -> Calibration {
        guard let touchCalibration else { return .identity }
        do { return try Calibration.parse(touchCalibration) } catch { throw UsageError(error.description) }
    }

    /// Whether the system has an input device node (`/dev/input/event*`).
    static func hasInputDevice() -> Bool {
        guard let dir = opendir("/dev/input") else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("event") { return true }
        }
        return false
    }

    /// Opens the input devices, or a usage error naming the node that cannot be used.
    func open(seat: (any DeviceOpener)? = nil) throws -> LibinputContext? {
        guard let input else { return nil }
        _ = try calibration()
        let context: LibinputContext
        if input == "udev" {
            do { context = try LibinputContext(seat: (seat as? Seat)?.name ?? "seat0", opener: seat) } catch { throw RuntimeFailure("--input udev: \(error)") }
            // Said once: a panel whose touchscreen is missing looks like a frozen kiosk.
            if !Self.hasInputDevice() {
                Files.writeStandardError("diptych: warning: --input udev: no input device (nothing in /dev/input): touch, pen, keys and pointer do nothing until one is plugged in\n")
            }
        } else {
            let paths = input.split(separator: ",").map(String.init)
            guard !paths.isEmpty else { throw UsageError("--input: give udev or device nodes") }
            for p in paths where !Files.exists(p) { throw UsageError("--input: device node \(p) does not exist") }
            do { context = try LibinputContext(opener: seat) } catch { throw RuntimeFailure("--input: \(error)") }
            for p in paths {
                do { try context.addDevice(p) } catch { throw UsageError("--input: \(error)") }
            }
        }
        context.overridesCalibration = touchCalibration != nil
        return context
    }
}

// SPDX-License-Identifier: MIT
// Input options shared by `run` and `record`: where input comes from, and its calibration.

import ArgumentParser
import DiptychCore
import DiptychInput
import DiptychLinux
import DiptychSeat

struct InputOptions: ParsableArguments {
    @Option(help: "Input devices: udev (every device of seat0) or a comma-separated list of device nodes, e.g. /dev/input/event3,/dev/input/event5.")
    var input: String?

    @Option(help: "libinput's 2x3 calibration matrix a,b,c,d,e,f for touchscreens (default: the device's LIBINPUT_CALIBRATION_MATRIX).")
    var touchCalibration: String?

    /// The calibration to apply, or a usage error naming the string.
    func calibration() throws -> Calibration {
        guard let touchCalibration else { return .identity }
        do { return try Calibration.parse(touchCalibration) } catch { throw UsageError(error.description) }
    }

    /// Opens the input devices, or a usage error naming the node that cannot be used.
    func open(seat: (any DeviceOpener)? = nil) throws -> LibinputContext? {
        guard let input else { return nil }
        _ = try calibration()
        let context: LibinputContext
        if input == "udev" {
            do { context = try LibinputContext(seat: (seat as? Seat)?.name ?? "seat0", opener: seat) } catch { throw RuntimeFailure("--input udev: \(error)") }
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

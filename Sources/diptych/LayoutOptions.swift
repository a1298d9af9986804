// SPDX-License-Identifier: MIT
// Options shared by the commands that lay out a screen.

import ArgumentParser
import DiptychCore

struct DeviceOptions: ParsableArguments {
    @Option(help: "The device profile: \(DeviceProfile.validChoices).")
    var device: String = "ipad-pro"

    @Option(help: "landscape or portrait.")
    var orientation: String = "landscape"

    @Option(help: "Override the profile's compact pane width, in points.")
    var compactWidth: Int?

    @Option(help: "Override the divider width, in points.")
    var dividerWidth: Int?

    @Option(help: "Override the narrowest pane width, in points, that is regular.")
    var regularMinWidth: Int?

    /// The profile with overrides, and the orientation, or a usage error naming the choices.
    func resolve() throws -> (DeviceProfile, Orientation) {
        do {
            let profile = try DeviceProfile.named(device).overriding(
                compactWidth: compactWidth, dividerWidth: dividerWidth, regularMinWidth: regularMinWidth)
            return (profile, try Orientation.named(orientation))
        } catch let e as ProfileError {
            throw UsageError(e.description)
        } catch let e as LayoutError {
            throw UsageError(e.description)
        }
    }
}

func parseArrangement(_ name: String, orientation: Orientation) throws -> Arrangement {
    do {
        let a = try Arrangement.named(name)
        if a == .split12 && orientation == .portrait { throw LayoutError.splitHalfInPortrait }
        return a
    } catch {
        throw UsageError("\(error)")
    }
}

/// The panel: resolution-scaling emulation and output rotation (SPEC §6).
struct OutputOptions: ParsableArguments {
    @Option(help: "Emulate the device on a panel of WxH pixels (uniform scale, centred).")
    var emulateOn: String?

    @Option(help: "Rotate the output on the panel: 0, 90, 180 or 270 degrees clockwise.")
    var rotate: Int = 0

    func resolve() throws -> (Size?, OutputRotation) {
        guard let r = OutputRotation(rawValue: rotate) else { throw UsageError("bad --rotate \(rotate): valid rotations are 0, 90, 180, 270") }
        guard let e = emulateOn else { return (nil, r) }
        guard let size = Scenario.size(e) else { throw UsageError("bad --emulate-on '\(e)': expected a panel size WxH in pixels, e.g. 2048x1536") }
        return (size, r)
    }
}

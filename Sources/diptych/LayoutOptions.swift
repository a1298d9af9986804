// SPDX-License-Identifier: MIT
// Options shared by the commands that lay out a screen.

import ArgumentParser
import DiptychCore
import DiptychServer

struct DeviceOptions: ParsableArguments {
    @Option(help: "The device profile: \(DeviceProfile.validChoices), or native (run on a DRM panel: the panel's own size, scale 2 at 190 dpi or more). Default: native for run on a DRM panel, else ipad-pro.")
    var device: String?

    @Option(help: "The orientation of the apps' screen: landscape or portrait (default: landscape; with device native, the one that fills the panel).")
    var orientation: Orientation = .landscape

    @Option(help: "Override the profile's compact pane width, in points.")
    var compactWidth: Int?

    @Option(help: "Override the divider width, in points.")
    var dividerWidth: Int?

    @Option(help: "Override the narrowest pane width, in points, that is regular.")
    var regularMinWidth: Int?

    /// The profile with overrides, and the orientation, or a usage error naming the choices.
    /// `panel`: the DRM panel's mode and physical size, where `native` (its default) means it;
    /// nil refuses `native`.
    func resolve(panel: (size: Size, millimetres: Size?)? = nil) throws -> (DeviceProfile, Orientation) {
        do {
            var base: DeviceProfile, turned = orientation
            if let panel, device == nil || device == "native" {
                (base, turned) = DeviceProfile.native(panel: panel.size, millimetres: panel.millimetres)
            } else if device == "native" {
                throw UsageError("--device native is the panel's own size: only run on a DRM panel has one (use a profile, or WxH@S)")
            } else {
                base = try DeviceProfile.named(device ?? "ipad-pro")
            }
            let profile = try base.overriding(compactWidth: compactWidth, dividerWidth: dividerWidth, regularMinWidth: regularMinWidth)
            return (profile, turned)
        } catch let e as UsageError {
            throw e
        } catch {
            throw UsageError("\(error)")
        }
    }
}

/// `arrangement`, refused with a usage error where the orientation does not allow it.
func checkArrangement(_ a: Arrangement, orientation: Orientation) throws -> Arrangement {
    if a == .split12 && orientation == .portrait { throw UsageError(LayoutError.splitHalfInPortrait.description) }
    return a
}

/// The panel: resolution-scaling emulation and output rotation.
struct OutputOptions: ParsableArguments {
    @Option(help: "Emulate the device on a panel of WxH pixels (uniform scale, centred).")
    var emulateOn: String?

    @Option(help: "Rotate the output on the panel, in degrees clockwise: 0, 90, 180 or 270, or normal, right, inverted, left (default: 0); touch follows.")
    var rotate: OutputRotation = .none

    @Option(help: "Draw the status bar: on or off (default: on).")
    var statusBar: Switch = .on

    @Option(help: "The status bar's title at its left (default: the device's name, e.g. iPad; none for a WxH@S device; '' for none).")
    var statusBarTitle: String?

    @Option(help: "The status bar's battery: auto (the system's, from /sys/class/power_supply; none when there is no battery), none, or a charge from 0 to 100 (default: auto for a live run, none for render and scenarios, whose pictures must not depend on the machine).")
    var battery: String?

    /// The battery the status bar shows; `live` for a live run (default auto), else none.
    func batterySource(live: Bool = false) throws -> BatterySource {
        switch battery ?? (live ? "auto" : "none") {
        case "auto": return .system
        case "none": return .none
        default:
            guard let n = Int(battery ?? ""), (0...100).contains(n) else {
                throw UsageError("bad --battery '\(battery ?? "")': expected auto, none, or a charge from 0 to 100")
            }
            return .fixed(n)
        }
    }

    @Option(help: "A second screen of WxH pixels (headless; on DRM a second connected connector is used): render also writes X.screen2.png.")
    var secondScreen: String?

    /// The second screen's size, if one was asked for.
    func secondScreenSize() throws -> Size? {
        guard let s = secondScreen else { return nil }
        guard let size = Size(parsing: s) else {
            throw UsageError("bad --second-screen '\(s)': expected a screen size WxH in pixels, e.g. 1920x1080")
        }
        return size
    }

    func resolve() throws -> (Size?, OutputRotation) {
        guard let e = emulateOn else { return (nil, rotate) }
        guard let size = Size(parsing: e) else { throw UsageError("bad --emulate-on '\(e)': expected a panel size WxH in pixels, e.g. 2048x1536") }
        return (size, rotate)
    }
}

/// An `on|off` option.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
    var isOn: Bool { self == .on }
}

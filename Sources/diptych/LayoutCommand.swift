// SPDX-License-Identifier: MIT
// `diptych layout`: prints pane frames, the divider and size classes.

import ArgumentParser
import DiptychCore

struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: "Print the layout of an arrangement on a device.")

    @OptionGroup var device: DeviceOptions

    @Option(help: "The arrangement: full, slide-over, split-2/3 or split-1/2 (split-1/2 in landscape only).")
    var arrangement: Arrangement

    @Flag(help: "Print JSON (keys in the Profiling and CommandLine articles of the documentation).")
    var json = false

    func run() throws {
        try reportingErrors {
            let (profile, orientation) = try device.resolve()
            let a = try checkArrangement(arrangement, orientation: orientation)
            let layout = try LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: a)
            print(json ? layout.json.serialized : layout.text)
        }
    }
}

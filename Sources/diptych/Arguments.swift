// SPDX-License-Identifier: MIT
// Typed command-line values: each choice is an enum, so `--help` lists the choices and a bad
// value is refused by the parser, naming them (exit status 2).

import ArgumentParser
import DiptychCore
import DiptychHarness
import DiptychServer

extension Orientation: ExpressibleByArgument {}
extension Arrangement: ExpressibleByArgument {}
extension PalmRejection.Mode: ExpressibleByArgument {}
extension PresentMode: ExpressibleByArgument {}
extension OutputRotation: ExpressibleByArgument {
    public init?(argument: String) {
        guard let r = OutputRotation.named(argument) else { return nil }
        self = r
    }
    public static var allValueStrings: [String] { ["0", "90", "180", "270", "normal", "right", "inverted", "left"] }
}
extension ProfileWorkload: ExpressibleByArgument {}
extension RelaunchPolicy: ExpressibleByArgument {}

/// Where `run` draws.
enum BackendChoice: String, CaseIterable, ExpressibleByArgument {
    case headless
    case drm
}

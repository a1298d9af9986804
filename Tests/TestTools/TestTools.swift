// SPDX-License-Identifier: MIT
// `diptych-test-tools`: what the tests and the VM test need beside the compositor (KMS state, an
// image comparison, a uinput touchscreen, the soak run), kept out of the production binary.

import ArgumentParser
import DiptychLinux
import Glibc

@main
struct TestTools: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diptych-test-tools",
        abstract: "Tools for Diptych's tests and VM test.",
        subcommands: [PlayCommand.self, KMSStateCommand.self, CompareCommand.self, UinputTapCommand.self, SoakCommand.self, SpinCommand.self])
}

/// What the tools report: the message, printed as "diptych-test-tools: message", and the exit
/// status (2 for bad usage, 1 for a failure).
struct ToolFailure: Error {
    var message: String
    var status: Int32
}

func UsageError(_ message: String) -> ToolFailure { ToolFailure(message: message, status: 2) }
func RuntimeFailure(_ message: String) -> ToolFailure { ToolFailure(message: message, status: 1) }

func reportingErrors(_ body: () throws -> Void) throws {
    do { try body() } catch {
        let failure = error as? ToolFailure ?? ToolFailure(message: "\(error)", status: 1)
        Files.writeStandardError("diptych-test-tools: \(failure.message)\n")
        throw ExitCode(failure.status)
    }
}

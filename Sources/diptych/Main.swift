// SPDX-License-Identifier: MIT
// `diptych`: the command line. Parsing and process set-up only; the work lives in the libraries.

import ArgumentParser
import DiptychLinux
import DiptychRender
import Glibc
import Logging

@main
struct Diptych: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diptych",
        abstract: "An iPad-style two-app multitasking compositor for Linux consoles and kiosks.",
        discussion: """
            Exit status: 0 success, 2 bad usage or bad input file, 1 runtime failure.
            Set DIPTYCH_LOG_LEVEL (trace, debug, info, notice, warning, error) for more or less logging.
            Set DIPTYCH_KERNEL (scalar, sse2, ssse3, avx2, avx512, neon) to draw emulation with that path of
            the area-average kernel instead of the fastest this CPU runs (the pictures are the same).
            """,
        subcommands: [LayoutCommand.self, RenderCommand.self, RunCommand.self, CtlCommand.self, RecordCommand.self, ProfileCommand.self])

    /// Runs the command, mapping usage errors to exit status 2 as the contract says.
    static func main() {
        bootstrapLogging()
        chooseKernel()
        do {
            let arguments: [String]
            do { arguments = try ConfigOption.expand(Array(CommandLine.arguments.dropFirst())) } catch {
                Files.writeStandardError("diptych: \(error)\n")
                Glibc.exit(2)
            }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if let usage = error as? UsageError {
                Files.writeStandardError(ConfigOption.located("diptych: \(usage.description)", Array(CommandLine.arguments.dropFirst())) + "\n")
                Glibc.exit(2)
            }
            if exitCode(for: error) == .validationFailure {
                // A value from --config's file is named by its file, line and key.
                Files.writeStandardError(ConfigOption.located(fullMessage(for: error), Array(CommandLine.arguments.dropFirst())) + "\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }

    /// DIPTYCH_KERNEL: the area-average kernel's path for every frame (troubleshooting: the
    /// pictures are the same on every path); a value this CPU cannot run is bad usage.
    static func chooseKernel() {
        guard let value = Files.environment(BoxKernel.environmentVariable), !value.isEmpty else { return }
        do {
            BoxKernel.force(try BoxKernel.named(value))
        } catch {
            Files.writeStandardError("diptych: \(error)\n")
            Glibc.exit(2)
        }
    }

    static func bootstrapLogging() {
        let level = Files.environment("DIPTYCH_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// A usage or input-file error: printed as "diptych: message" with exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// A runtime failure: printed as "diptych: message" with exit status 1.
struct RuntimeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}

/// Runs a command body, printing our own errors with the right exit status.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let e as UsageError {
        // (A value from --config's file: named by its file, line and key.)
        Files.writeStandardError(ConfigOption.located("diptych: \(e.description)", Array(CommandLine.arguments.dropFirst())) + "\n")
        throw ExitCode(2)
    } catch let e as RuntimeFailure {
        Files.writeStandardError("diptych: \(e.description)\n")
        throw ExitCode(1)
    } catch let e as ExitCode {
        throw e
    } catch {
        Files.writeStandardError("diptych: \(error)\n")
        throw ExitCode(1)
    }
}

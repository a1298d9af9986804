// SPDX-License-Identifier: MIT
// `diptych profile`: per-stage frame times with baselines from the same run.

import ArgumentParser
import DiptychCore
import DiptychLinux
import DiptychServer
import Logging

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Measure frame times per stage, against pixman alone and memcpy in the same run.",
        discussion: """
            Stages: input, layout, composite, present (total is their sum: the compositor's own work; \
            the apps' time is reported apart). Baselines, on the same scene in the same run: pixman alone \
            replaying the same composite operations, and memcpy of one output frame.
            """)

    @Option(help: "A scenario file to profile.")
    var scenario: String?

    @Option(help: "A built-in workload (default: split-static).")
    var workload: ProfileWorkload?

    @Option(help: "memory (default) or scanout: present into two buffers shown in turn, as the DRM backend does (built-in workloads).")
    var present: PresentMode = .memory

    @Option(help: "Frames to measure (built-in workloads).")
    var frames: Int = 300

    @Flag(help: "Print JSON (keys in the Profiling and CommandLine articles of the documentation).")
    var json = false

    @Option(help: "Write a Chrome trace-event file (opens in Perfetto).")
    var trace: String?

    @Option(help: "Write frame times as a PNG plot.")
    var plot: String?

    func run() throws {
        try reportingErrors {
            if scenario != nil && workload != nil { throw UsageError("give --scenario or --workload, not both") }
            guard (1...100_000).contains(frames) else { throw UsageError("--frames must be from 1 to 100000") }
            if let trace { try checkWritableDirectory(of: trace, what: "--trace") }
            if let plot { try checkWritableDirectory(of: plot, what: "--plot") }
            let logger = Logger(label: "diptych.profile")
            let result: ProfileResult
            if let path = scenario {
                let bytes: [UInt8]
                do { bytes = try Files.read(path) } catch { throw UsageError("cannot read the scenario: \(error)") }
                let parsed: Scenario
                do { parsed = try Scenario.parse(String(decoding: bytes, as: UTF8.self), file: path) } catch { throw UsageError("\(error)") }
                let dir = try Files.makeTemporaryDirectory("diptych-profile")
                defer { Files.removeTree(dir) }
                do {
                    result = try Profiler.run(scenario: parsed, file: path, outputDirectory: dir, tracing: trace != nil, logger: logger) { app, log in
                        Apps.launch(app, eventLog: log)
                    }
                } catch { throw RuntimeFailure("\(path): \(error)") }
            } else {
                let w = workload ?? .splitStatic
                let name = w.rawValue
                do {
                    result = try Profiler.run(w, frames: frames, present: present, tracing: trace != nil, logger: logger) { app in
                        Apps.launch(try AppCommandLine(parsing: app), eventLog: nil).arguments
                    }
                } catch { throw RuntimeFailure("profile \(name): \(error)") }
            }
            if let trace { try Files.writeAtomically(trace, bytes: Array(result.traceJSON.utf8)) }
            if let plot { try result.plot().writePNG(to: plot) }
            print(json ? result.json.serialized : result.text)
        }
    }
}

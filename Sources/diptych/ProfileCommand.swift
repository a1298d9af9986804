// SPDX-License-Identifier: MIT
// `diptych profile`: per-stage frame times with baselines from the same run.

import ArgumentParser
import DiptychCore
import DiptychDRM
import DiptychLinux
import DiptychHarness
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

    @Option(help: "A built-in workload: split-static (default), divider-drag, emulated, slide-over-in, snap, pip, latency, client, keyboard or memory (the Profiling guide says what each measures).")
    var workload: ProfileWorkload?

    @Option(help: "memory (default) or scanout: present into two buffers shown in turn, as the DRM backend does (built-in workloads).")
    var present: PresentMode = .memory

    @Option(help: "Frames to measure (built-in workloads).")
    var frames: Int = 300

    @Option(help: "latency and client: the simulated vblank's rate in Hz.")
    var refresh: Double = 60

    @Option(help: "With --workload latency: none, or busy (the pen's app in Split View beside an app that burns every core, measured after the same run beside a quiet one).")
    var neighbour: String = "none"

    @Option(help: ArgumentHelp("client: the app to measure, as --primary takes it (a command line, shell-style quoting).", valueName: "command"))
    var app: String?

    @Flag(help: "client: the app as the secondary in a compact Split View pane beside notes (default: full screen).")
    var compact = false

    @Option(help: "client: seconds to measure, after a second's warm-up.")
    var seconds: Double = 5

    @Option(help: ArgumentHelp("client: a file whose first 8 bytes count the app's heap allocations (Tests/Tools/malloc-count.c keeps one).", valueName: "path"))
    var allocationCounter: String?

    @Option(help: "latency: how long the app takes to draw a dot, in ms.")
    var drawMs: Double = 1

    @Option(help: "latency: the pen's event rate in Hz.")
    var penHz: Double = 240

    @Option(help: "latency: the repaint window (milliseconds, auto or off), measured against as soon as ready; client: the window in effect.")
    var repaintWindow: String = "auto"

    @Option(help: ArgumentHelp("latency: draw on this DRM card's first connected connector instead of a headless output with a simulated vblank.", valueName: "path"))
    var card: String?

    @Option(help: "latency: with --card, the display mode WxH or WxH@Hz (default: the connector's preferred mode).")
    var mode: String?

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
            guard ["none", "busy"].contains(neighbour) else { throw UsageError("bad --neighbour '\(neighbour)': expected none or busy") }
            if neighbour != "none" && workload != .latency { throw UsageError("--neighbour is the latency workload's") }
            if workload != .client && (app != nil || compact || allocationCounter != nil) {
                throw UsageError("--app, --compact and --allocation-counter are the client workload's")
            }
            if workload == .latency {
                try runLatency(logger: logger)
                return
            }
            if workload == .client {
                try runClient(logger: logger)
                return
            }
            if workload == .memory {
                if trace != nil || plot != nil || present != .memory || card != nil || mode != nil || frames != 300 {
                    throw UsageError("--trace, --plot, --present, --card, --mode and --frames do not apply to the memory workload")
                }
                let result: MemoryBenchResult
                do {
                    result = try MemoryBenchmark.run(rounds: 3, logger: logger) { demo in
                        Apps.launch(try AppCommandLine(parsing: demo), eventLog: nil, ephemeral: true).arguments
                    }
                } catch { throw RuntimeFailure("profile memory: \(error)") }
                print(json ? result.json.serialized : result.text)
                return
            }
            let result: ProfileResult
            if let path = scenario {
                let bytes: [UInt8]
                do { bytes = try Files.read(path, limit: Scenario.fileLimit) } catch { throw UsageError("cannot read the scenario: \(error)") }
                let parsed: Scenario
                do { parsed = try Scenario.parse(String(decoding: bytes, as: UTF8.self), file: path) } catch { throw UsageError("\(error)") }
                let dir = try Files.makeTemporaryDirectory("diptych-profile")
                defer { Files.removeTree(dir) }
                do {
                    result = try Profiler.run(scenario: parsed, file: path, outputDirectory: dir, tracing: trace != nil, logger: logger) { app, log in
                        Apps.launch(app, eventLog: log, ephemeral: true)
                    }
                } catch { throw RuntimeFailure("\(path): \(error)") }
            } else {
                let w = workload ?? .splitStatic
                let name = w.rawValue
                do {
                    result = try Profiler.run(w, frames: frames, present: present, tracing: trace != nil, logger: logger) { app in
                        Apps.launch(try AppCommandLine(parsing: app), eventLog: nil, ephemeral: true).arguments
                    }
                } catch { throw RuntimeFailure("profile \(name): \(error)") }
            }
            if let trace { try Files.writeAtomically(trace, bytes: Array(result.traceJSON.utf8)) }
            if let plot { try result.plot().writePNG(to: plot) }
            print(json ? result.json.serialized : result.text)
        }
    }

    /// `--workload client`: whether an app keeps up with frameDone, and its allocations a frame.
    func runClient(logger: Logger) throws {
        guard let app else { throw UsageError("--workload client needs --app (the command line of the app to measure)") }
        if trace != nil || plot != nil || present != .memory || card != nil || mode != nil {
            throw UsageError("--trace, --plot, --present, --card and --mode do not apply to the client workload (it runs headless)")
        }
        let mhz = try RunCommand.refreshMillihertz(refresh)
        let window = try RunCommand.repaintWindow(repaintWindow)
        guard seconds.isFinite, (0.5...600).contains(seconds) else { throw UsageError("bad --seconds \(seconds): expected 0.5 to 600") }
        if let path = allocationCounter, !Files.exists(path) { throw UsageError("--allocation-counter: \(path) does not exist") }
        let arguments: [String]
        do { arguments = Apps.launch(try AppCommandLine(parsing: app), eventLog: nil, ephemeral: true).arguments } catch { throw UsageError("--app: \(error)") }
        let result: ClientBenchResult
        do {
            result = try ClientBenchmark.run(
                app: arguments, label: app, refreshHz: Double(mhz) / 1000, window: window, compact: compact, seconds: seconds, allocationCounter: allocationCounter, logger: logger
            ) { demo in Apps.launch(try AppCommandLine(parsing: demo), eventLog: nil, ephemeral: true).arguments }
        } catch { throw RuntimeFailure("profile client: \(error)") }
        print(json ? result.json.serialized : result.text)
    }

    /// `--workload latency`: pen to screen through a real app, with the repaint window and as
    /// soon as ready in the same run.
    func runLatency(logger: Logger) throws {
        if trace != nil || plot != nil || present != .memory { throw UsageError("--trace, --plot and --present do not apply to the latency workload") }
        let window = try RunCommand.repaintWindow(repaintWindow)
        let mhz = try RunCommand.refreshMillihertz(refresh)
        guard drawMs.isFinite, (0...50).contains(drawMs) else { throw UsageError("bad --draw-ms \(drawMs): expected 0 to 50") }
        guard penHz.isFinite, (1...2000).contains(penHz) else { throw UsageError("bad --pen-hz \(penHz): expected 1 to 2000") }
        var requested: ModeRequest?
        if let mode {
            guard let m = ModeRequest.parse(mode) else { throw UsageError("bad --mode '\(mode)': expected WxH or WxH@Hz") }
            requested = m
        }
        if let card, !Files.exists(card) { throw UsageError("--card: \(card) does not exist") }
        let drm: DRMBackend?
        do { drm = try card.map { try DRMBackend(device: try LibdrmDevice(path: $0, opener: nil), requestedMode: requested, logger: logger) } } catch {
            throw RuntimeFailure("\(card ?? ""): \(error)")
        }
        defer { drm?.restore() }
        let result: LatencyResult
        do {
            let command = { (app: String) throws -> [String] in Apps.launch(try AppCommandLine(parsing: app), eventLog: nil, ephemeral: true).arguments }
            var r = try LatencyProfiler.run(
                refreshHz: Double(mhz) / 1000, drawMilliseconds: drawMs, penHz: penHz, window: window, frames: frames, backend: drm,
                neighbour: neighbour == "busy" ? "pattern:#336699 --animate" : nil, logger: logger, command: command)
            if neighbour == "busy" {
                // The same in the same split, the neighbour now burning every core.
                let b = try LatencyProfiler.run(
                    refreshHz: Double(mhz) / 1000, drawMilliseconds: drawMs, penHz: penHz, window: window, frames: frames, backend: drm,
                    neighbour: "pattern:#336699 --animate --burn", penOnly: true, logger: logger, command: command)
                r.busy = LatencyResult.BusyNeighbour(latency: b.latency, asap: b.asap, windowMilliseconds: b.windowMilliseconds, neighbourFramesPerSecond: b.neighbourFramesPerSecond)
            }
            result = r
        } catch { throw RuntimeFailure("profile latency: \(error)") }
        print(json ? result.json.serialized : result.text)
    }
}

// SPDX-License-Identifier: MIT
// `diptych-test-tools play`: a scenario on a DRM card as `diptych run --scenario` plays it, for
// the VM test: its touch and pen steps can go through uinput devices and libinput, and before
// each capture the host can be asked to read the screen back.

import ArgumentParser
import DiptychCore
import DiptychDRM
import DiptychHarness
import DiptychInput
import DiptychLinux
import Glibc
import Logging

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a scenario on a DRM card (the VM test), printing its captures.")

    @Argument(help: "The scenario file.")
    var scenario: String

    @Option(help: "The DRM card.")
    var card: String = "/dev/dri/card0"

    @Option(help: "The display mode WxH or WxH@Hz.")
    var mode: String?

    @Option(help: "Output folder: captures, event logs, frames.json.")
    var out: String

    @Flag(help: "Play the scenario's touch and pen steps through uinput devices and libinput.")
    var inputViaUinput = false

    @Option(help: "Before each capture, write DIR/NAME.ready and wait for DIR/NAME.done (a host reading the screen back).")
    var captureSync: String?

    @Option(help: "How long an app's round trip is waited for, in ms (an emulated CPU is many times slower).")
    var roundTripTimeoutMs = 5000

    func run() throws {
        try reportingErrors {
            let text = String(decoding: try Files.read(scenario), as: UTF8.self)
            let parsed: Scenario
            do { parsed = try Scenario.parse(text, file: scenario) } catch { throw UsageError("\(error)") }
            let requested = try mode.map { m in
                guard let r = ModeRequest.parse(m) else { throw UsageError("bad --mode '\(m)'") }
                return r
            }
            try Files.makeDirectories(out)
            let logger = Logger(label: "diptych.scenario")
            let drm = try DRMBackend(device: try LibdrmDevice(path: card), requestedMode: requested, logger: logger)
            defer { drm.restore() }
            var second: DRMBackend?
            if let size = parsed.secondScreen {
                second = try DRMBackend(card: drm.card, requestedMode: ModeRequest.parse("\(size.width)x\(size.height)"), logger: logger)
            }
            defer { second?.restore() }
            // The demo apps beside this program, as `diptych` launches them.
            let beside = CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            let player = ScenarioPlayer(scenario: parsed, outputDirectory: out, logger: logger) { app, log in
                guard let demo = app.demoApp else { return (app.arguments, false) }
                return ([beside + "/diptych-demo", demo.description, "--event-log", log] + app.arguments.dropFirst(), true)
            }
            player.backend = drm
            player.secondBackend = second
            player.roundTripTimeoutMilliseconds = roundTripTimeoutMs
            var injector: UinputInjector?
            if inputViaUinput {
                let devices = try UinputInjector(panel: drm.size)
                injector = devices
                player.inputFilter = try Self.throughLibinput(devices, panel: drm.size)
            }
            defer { _ = injector }
            if let sync = captureSync {
                player.captureHook = { name, screen in
                    // The host reads back the head the file names (0: the main screen).
                    try Files.writeAtomically("\(sync)/\(name).ready", bytes: Array("\(screen - 1)".utf8))
                    let deadline = MonotonicClock.milliseconds + 120_000
                    while !Files.exists("\(sync)/\(name).done") {
                        if MonotonicClock.milliseconds > deadline { throw RuntimeFailure("no \(sync)/\(name).done within 120 s") }
                        usleep(10_000)
                    }
                }
            }
            for c in try player.play() { print(c) }
            Files.writeStandardError("diptych: \(drm.flipsCompleted) page flips completed (\(drm.api)), \(drm.flipFailures) failed\n")
            if let second {
                Files.writeStandardError("diptych: second screen \(second.connector.name) \(second.mode): \(second.flipsCompleted) page flips completed (\(second.api)), \(second.flipFailures) failed\n")
            }
        }
    }

    /// Each input step written to the uinput devices (touchscreen, pen, keyboard, mouse) and
    /// read back through libinput (the touch slots given the scenario's ids again).
    static func throughLibinput(_ devices: UinputInjector, panel: Size) throws -> (PanelInput) -> [PanelInput] {
        let context = try LibinputContext()
        for node in devices.nodes { try context.addDevice(node) }
        var translator = InputTranslator(panel: panel)
        _ = context.read()
        devices.announcePen()
        usleep(100_000)
        _ = context.read()
        return { input in
            devices.inject(input)
            var out: [PanelInput] = []
            let deadline = MonotonicClock.milliseconds + 2000
            while out.isEmpty && MonotonicClock.milliseconds < deadline {
                var pfd = pollfd(fd: context.descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&pfd, 1, 100)
                for raw in context.read() { out += translator.translate(raw) }
            }
            if case .touch(let id, _, _, _) = input {
                out = out.map { e in
                    if case .touch(_, let phase, let x, let y) = e { return .touch(id: id, phase: phase, x: x, y: y) }
                    return e
                }
            }
            return out
        }
    }
}

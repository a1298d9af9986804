// SPDX-License-Identifier: MIT
// Plays a scenario in virtual time with real app processes: the same scenario gives the same
// event logs and the same PNGs on every run.

import DiptychCore
import DiptychServer
import DiptychLinux
import DiptychImage
import DiptychOutput
import DiptychRender
import Logging

/// Plays a scenario: launches the apps, feeds the steps through the same shell code that
/// libinput events use, and writes captures, the apps' event logs and `frames.json`.
///
/// Determinism: time is virtual, advancing 16 ms per frame. At every frame the compositor
/// makes a round trip with each app (`sync`), so everything an app sent in answer to that
/// frame's events is handled before the frame is drawn, however the processes are scheduled.
public final class ScenarioPlayer {
    public let scenario: Scenario
    public let outputDirectory: String
    /// The scenario's file, for errors.
    public var file = "scenario"
    /// Virtual milliseconds per frame.
    public static let frameInterval = Compositor.virtualFrameInterval
    /// Real time allowed for an app to start, or to answer one round trip.
    public var startTimeoutMilliseconds = 20_000
    public var roundTripTimeoutMilliseconds = 5000
    /// Time the baselines and keep trace events (for `profile --scenario`).
    public var baselines = false
    public var tracing = false
    /// Tint repainted regions in the captures.
    public var debugDamage = false
    /// Draw the status bar, with this title (nil: the device's) and battery.
    public var statusBar = true
    /// iOS's Reduce Motion (`--reduce-motion`).
    public var reduceMotion = false
    public var statusBarTitle: String?
    public var battery: BatterySource = .none
    /// Called with each capture's name and screen (1 or 2) once its frame is on the output (a
    /// host may read the screen back then).
    public var captureHook: ((String, Int) throws -> Void)?
    /// The second screen's output (a KMS connector); nil gives a headless one of the
    /// scenario's `secondScreen` size.
    public var secondBackend: (any OutputBackend)?
    /// When set, touch, pen, key and pointer steps go through it (real devices and libinput in a VM test),
    /// and what it returns is what the compositor gets.
    public var inputFilter: ((PanelInput) throws -> [PanelInput])?
    /// The output to play on; nil for a headless output.
    public var backend: (any OutputBackend)?
    /// The frames' records after `play()`.
    public private(set) var driver: FrameDriver?
    let logger: Logger
    let command: (_ app: AppCommandLine, _ eventLog: String) throws -> (arguments: [String], logsItself: Bool)

    /// - Parameter command: the command line that runs an app, given the scenario's app and
    ///   its event log's path, and whether the app writes that log itself (the demo apps do;
    ///   for any other app the compositor logs what it sends it).
    public init(
        scenario: Scenario, outputDirectory: String, logger: Logger,
        command: @escaping (_ app: AppCommandLine, _ eventLog: String) throws -> (arguments: [String], logsItself: Bool)
    ) {
        self.scenario = scenario
        self.outputDirectory = outputDirectory
        self.logger = logger
        self.command = command
    }

    /// Plays the whole scenario. Returns the paths of the captures written.
    @discardableResult
    public func play() throws -> [String] {
        var configuration = CompositorConfiguration(
            profile: scenario.profile, orientation: scenario.orientation, arrangement: scenario.arrangement,
            listen: false, multitasking: scenario.multitasking)
        configuration.palmRejection = scenario.palmRejection
        configuration.emulateOn = scenario.emulateOn
        configuration.debugDamage = debugDamage
        configuration.reduceMotion = reduceMotion
        configuration.statusBar = statusBar
        configuration.statusBarTitle = statusBarTitle
        configuration.battery = battery
        configuration.penHoldoff = scenario.penHoldoff
        if secondBackend == nil { configuration.secondScreen = scenario.secondScreen }
        let compositor = try Compositor(configuration: configuration, backend: backend, logger: logger)
        // Every key a step names is on the keymap, before anything starts.
        for (i, step) in scenario.steps.enumerated() {
            if case .key(let name, _) = step.action, compositor.keycode(forKeysymNamed: name) == nil {
                throw ScenarioError(file: file, field: "steps[\(i)].key.key", reason: "no key of the keymap (\(compositor.keymapNames)) gives the keysym '\(name)'")
            }
        }
        if let secondBackend, scenario.secondScreen != nil { try compositor.attachSecondScreen(secondBackend) }
        defer { compositor.shutdown() }
        compositor.admitsAtHello = false
        for (role, app) in [(Role.primary, scenario.primary), (.secondary, scenario.secondary)] {
            guard let app else { continue }
            let log = "\(outputDirectory)/events-\(role.rawValue).jsonl"
            Files.remove(log)
            let launch = try command(app, log)
            try compositor.launch(launch.arguments, role: role, label: app.description, eventLog: launch.logsItself ? nil : log)
        }
        compositor.virtualTime = 0
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: startTimeoutMilliseconds)

        var captures: [String] = []
        let driver = FrameDriver(compositor: compositor)
        driver.baselines = baselines
        driver.tracing = tracing
        self.driver = driver
        var next = 0
        var waiting = false
        var t: UInt64 = 0
        let end = (scenario.steps.last?.at ?? 0) + 10_000
        while true {
            var pendingCaptures: [(name: String, screen: Int)] = []
            try driver.frame(at: t, roundTripTimeout: roundTripTimeoutMilliseconds) {
                var applied = false
                if waiting && compositor.isSettled { waiting = false }
                while !waiting, next < scenario.steps.count, scenario.steps[next].at <= t {
                    switch scenario.steps[next].action {
                    case .touch(let id, let phase, let x, let y):
                        try feed(.touch(id: id, phase: phase, x: x, y: y), compositor)
                        applied = true
                    case .pen(let phase, let x, let y, let p, let tx, let ty, let tool, let buttons):
                        try feed(.pen(phase: phase, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, tool: tool, buttons: buttons), compositor)
                        applied = true
                    case .rotate(let o):
                        compositor.rotate(to: o)
                    case .rotateOutput(let r):
                        compositor.rotateOutput(r)
                    case .emulate(let name):
                        compositor.emulate(try DeviceProfile.named(name))
                    case .capture(let name, let screen):
                        // The frame captured shows the steps before it, none after.
                        pendingCaptures.append((name, screen))
                        next += 1
                        return applied
                    case .wait:
                        waiting = !compositor.isSettled
                    case .key(let name, let state):
                        if let code = compositor.keycode(forKeysymNamed: name) { try feed(.key(code: code, pressed: state == .pressed), compositor) }
                        applied = true
                    case .pointer(let step):
                        try feed(.pointer(step), compositor)
                        applied = true
                    }
                    next += 1
                }
                return applied
            }
            if !pendingCaptures.isEmpty { try compositor.waitUntilOutputReady(timeoutMilliseconds: 2000) }
            if pendingCaptures.contains(where: { $0.screen == 2 }) { try compositor.waitUntilSecondScreenReady() }
            for (name, screen) in pendingCaptures {
                try captureHook?(name, screen)
                let path = "\(outputDirectory)/\(name)"
                if screen == 2 {
                    guard let image = compositor.secondScreenOutput, compositor.secondScreenConnected else {
                        throw CompositorError("capture \(name): the second screen is not connected")
                    }
                    try image.writePNG(to: path)
                } else {
                    try compositor.output.writePNG(to: path)
                }
                captures.append(path)
            }
            // After the last step, the frames run on until what moves has come to rest.
            if next >= scenario.steps.count && !waiting && !compositor.isAnimating { break }
            if t >= end { throw CompositorError("the scenario did not settle within 10 s of virtual time after its last step") }
            t += Self.frameInterval
        }
        // Let the apps log the last frame's events before the connections close.
        try compositor.roundTrip(timeoutMilliseconds: roundTripTimeoutMilliseconds)
        try Files.writeAtomically("\(outputDirectory)/frames.json", bytes: Array((driver.framesJSON.serialized + "\n").utf8))
        return captures
    }

    private func feed(_ input: PanelInput, _ compositor: Compositor) throws {
        guard let inputFilter else {
            compositor.panelInput(input)
            return
        }
        for e in try inputFilter(input) { compositor.panelInput(e) }
    }
}

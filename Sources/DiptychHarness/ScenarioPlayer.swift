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
        configuration.keyboardLanguages = scenario.keyboardLanguages
        configuration.emulateOn = scenario.emulateOn
        configuration.debugDamage = debugDamage
        configuration.reduceMotion = reduceMotion
        configuration.statusBar = statusBar
        configuration.statusBarTitle = statusBarTitle
        configuration.battery = battery
        configuration.penHoldoff = scenario.penHoldoff
        configuration.clock = scenario.clock
        configuration.idleTimeout = scenario.idleTimeout
        configuration.blankSchedule = scenario.blankSchedule
        configuration.blank = .black
        if secondBackend == nil { configuration.secondScreen = scenario.secondScreen }
        let compositor = try Compositor(configuration: configuration, backend: backend, logger: logger)
        // Every key a step names is on the keymap, before anything starts.
        for (i, step) in scenario.steps.enumerated() {
            if case .key(let name, _) = step.action, compositor.keycode(forKeysymNamed: name) == nil,
                name.count != 1 || compositor.keycode(typing: Character(name)) == nil {
                throw ScenarioError(file: file, field: "steps[\(i)].key.key", reason: "no key of the keymap (\(compositor.keymapNames)) gives the keysym '\(name)'")
            }
            if case .type(let text, .hardware) = step.action, let c = text.first(where: { compositor.keycode(typing: $0) == nil }) {
                throw ScenarioError(file: file, field: "steps[\(i)].type", reason: "no key of the keymap (\(compositor.keymapNames)) types '\(c)'")
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
        // The apps ready (a web page loaded and drawn) before the first frame.
        try compositor.waitUntilAppsAreReady(timeoutMilliseconds: max(roundTripTimeoutMilliseconds, Compositor.readyTimeoutMilliseconds))

        var captures: [String] = []
        let driver = FrameDriver(compositor: compositor)
        driver.baselines = baselines
        driver.tracing = tracing
        self.driver = driver
        var next = 0
        var waiting = false
        var typing: Typing?
        var shiftHeld = false
        var t: UInt64 = 0
        // (A type step takes as long as its keys take: the 10 s count from its last key, as
        // long as it takes at most two seconds a character.)
        var end = (scenario.steps.last?.at ?? 0) + 10_000
        while true {
            var pendingCaptures: [(name: String, screen: Int)] = []
            try driver.frame(at: t, roundTripTimeout: roundTripTimeoutMilliseconds) {
                var applied = false
                if waiting && compositor.isSettled { waiting = false }
                // A type step types on until its last key is up; later steps wait for it.
                if typing != nil {
                    try type(&typing, at: t, step: next - 1, compositor)
                    if typing != nil { return true }
                    // (Its last key went up this frame: what it did is seen after the round trip.)
                    applied = true
                }
                while !waiting, typing == nil, next < scenario.steps.count, scenario.steps[next].at <= t {
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
                        // Input of this frame is seen by the apps in its round trip: what it
                        // sets moving (a navigation's keyboard going) shows from the next frame.
                        waiting = applied || !compositor.isSettled
                    case .waitFor(let roles):
                        try compositor.waitUntilAppsAreReady(roles, timeoutMilliseconds: max(roundTripTimeoutMilliseconds, Compositor.readyTimeoutMilliseconds))
                    case .key(let name, let state):
                        try pressKey(name, state, &shiftHeld, compositor)
                        applied = true
                    case .pointer(let step):
                        try feed(.pointer(step), compositor)
                        applied = true
                    case .type(let text, let via):
                        end = max(end, t + UInt64(text.count) * 2000 + 10_000)
                        typing = Typing(characters: Array(text), via: via, nextAt: t)
                        next += 1
                        try type(&typing, at: t, step: next - 1, compositor)
                        return true
                    case .press(let key):
                        typing = Typing(characters: [], press: key, via: .keyboard, nextAt: t)
                        next += 1
                        try type(&typing, at: t, step: next - 1, compositor)
                        return true
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
            if next >= scenario.steps.count && !waiting && typing == nil && !compositor.isAnimating { break }
            if t >= end { throw CompositorError("the scenario did not settle within 10 s of virtual time after its last step") }
            t += Self.frameInterval
        }
        // Let the apps log the last frame's events before the connections close.
        try compositor.roundTrip(timeoutMilliseconds: roundTripTimeoutMilliseconds)
        try Files.writeAtomically("\(outputDirectory)/frames.json", bytes: Array((driver.framesJSON.serialized + "\n").utf8))
        return captures
    }

    /// A `type` step in progress: the characters, the one typed next, and the key held down
    /// (released at `upAt`); or a `press` step's one key.
    struct Typing {
        var characters: [Character]
        var press: KeyboardPress?
        var via: TypeVia
        /// How many keys it taps.
        var count: Int { press == nil ? characters.count : 1 }
        var index = 0
        var nextAt: UInt64
        var down: (x: Double, y: Double, upAt: UInt64, types: Bool)?
        /// A key held for its popup: the item to slide to once it shows.
        var holding: Int?
        var hardware: (code: UInt32, shift: Bool, upAt: UInt64)?
        var keyboardShown = false
    }

    /// How long a typed key is held, and from one key's press to the next (ms).
    static let keyHeld: UInt64 = 40
    static let keyPitch: UInt64 = 80

    /// Types on at virtual time `t`: a key's release when its time came, else the next key's
    /// press; nil once the last key is up.
    private func type(_ typing: inout Typing?, at t: UInt64, step: Int, _ compositor: Compositor) throws {
        guard var ty = typing else { return }
        defer { typing = ty.index >= ty.count && ty.down == nil && ty.hardware == nil ? nil : ty }
        let id: Int32 = 0x7E57
        switch ty.via {
        case .keyboard:
            if let d = ty.down {
                // A key held for its popup: once it shows, the finger slides to the item.
                if let item = ty.holding, compositor.keyboardPopup != nil {
                    guard let at = compositor.keyboardPopupItemCenter(item) else {
                        throw CompositorError("steps[\(step)]: type: the popup of the key held has no item \(item)")
                    }
                    compositor.touch(id: id, phase: .motion, x: at.x, y: at.y)
                    ty.down = (at.x, at.y, t + Self.keyHeld, d.types)
                    ty.holding = nil
                    return
                }
                guard t >= d.upAt else { return }
                if ty.holding != nil { throw CompositorError("steps[\(step)]: type: the key held showed no popup") }
                compositor.touch(id: id, phase: .up, x: d.x, y: d.y)
                ty.down = nil
                if d.types { ty.index += 1 }
                return
            }
            guard ty.index < ty.count, t >= ty.nextAt else { return }
            let what = ty.press.map { "press: \($0.rawValue)" } ?? "type"
            if !ty.keyboardShown {
                // The app's text input comes on its own time: the virtual clock waits (5 s at
                // most) for the keyboard, then typing starts once it has slid in.
                try compositor.roundTrip(timeoutMilliseconds: roundTripTimeoutMilliseconds)
                guard try compositor.run(timeoutMilliseconds: 5000, until: {
                    compositor.takeTextInput()
                    return compositor.keyboardShown != nil
                }) else {
                    throw CompositorError("steps[\(step)]: \(what): the on-screen keyboard did not show within 5 s (no field of the focused app takes text)")
                }
                ty.keyboardShown = true
            }
            guard !compositor.keyboardMoving else { return }
            if let press = ty.press {
                guard let center = compositor.keyboardKeyCenter(press.action) else {
                    throw CompositorError("steps[\(step)]: \(what): the keyboard showing has no \(press.rawValue) key\(press == .next || press == .previous ? " (the field has no such neighbour: hasNext/hasPrevious)" : "")")
                }
                compositor.touch(id: id, phase: .down, x: center.x, y: center.y)
                ty.down = (center.x, center.y, t + Self.keyHeld, true)
                ty.nextAt = t + Self.keyPitch
                return
            }
            guard let tap = compositor.keyboardNextTap(for: ty.characters[ty.index]) else {
                throw CompositorError("steps[\(step)]: type: '\(ty.characters[ty.index])' is on no key of the keyboard showing")
            }
            compositor.touch(id: id, phase: .down, x: tap.x, y: tap.y)
            // A character in a key's popup: the key is held until the popup shows (as a
            // person holds it), then the finger slides to it and lifts.
            let held = tap.item == nil ? Self.keyHeld : KeyboardPopup.holdMilliseconds + 2 * Self.frameInterval
            ty.down = (tap.x, tap.y, t + held, tap.types)
            ty.holding = tap.item
            ty.nextAt = t + held + Self.keyPitch
        case .hardware:
            let shift = compositor.keycode(forKeysymNamed: "Shift_L")
            if let h = ty.hardware {
                guard t >= h.upAt else { return }
                compositor.key(h.code, pressed: false)
                if h.shift, let s = shift { compositor.key(s, pressed: false) }
                ty.hardware = nil
                ty.index += 1
                return
            }
            guard ty.index < ty.characters.count, t >= ty.nextAt, let k = compositor.keycode(typing: ty.characters[ty.index]) else { return }
            if k.shift, let s = shift { compositor.key(s, pressed: true) }
            compositor.key(k.code, pressed: true)
            ty.hardware = (k.code, k.shift, t + Self.keyHeld)
            ty.nextAt = t + Self.keyPitch
        }
    }

    /// A `key` step: a keysym name, or one character typed as it is typed (a character that
    /// needs Shift gets a `Shift_L` press before and a release after, unless Shift is held).
    private func pressKey(_ name: String, _ state: KeyState, _ shiftHeld: inout Bool, _ compositor: Compositor) throws {
        let shift = compositor.keycode(forKeysymNamed: "Shift_L")
        if name == "Shift_L" || name == "Shift_R" { shiftHeld = state == .pressed }
        if name.count == 1, let k = compositor.keycode(typing: Character(name)) {
            let around = k.shift && !shiftHeld ? shift : nil
            if let s = around, state == .pressed { try feed(.key(code: s, pressed: true), compositor) }
            try feed(.key(code: k.code, pressed: state == .pressed), compositor)
            if let s = around, state == .released { try feed(.key(code: s, pressed: false), compositor) }
            return
        }
        if let code = compositor.keycode(forKeysymNamed: name) { try feed(.key(code: code, pressed: state == .pressed), compositor) }
    }

    private func feed(_ input: PanelInput, _ compositor: Compositor) throws {
        guard let inputFilter else {
            compositor.panelInput(input)
            return
        }
        for e in try inputFilter(input) { compositor.panelInput(e) }
    }
}

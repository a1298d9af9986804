// SPDX-License-Identifier: MIT
// `diptych run`: the compositor, until SIGINT, SIGTERM or SIGHUP.

import ArgumentParser
import DiptychCore
import DiptychDRM
import DiptychInput
import DiptychLinux
import DiptychSeat
import DiptychHarness
import DiptychServer
import Glibc
import Logging

extension CursorMode: ExpressibleByArgument {}
extension BlankMode: ExpressibleByArgument {}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the compositor until SIGINT, SIGTERM or SIGHUP.")

    @Option(help: "A configuration file (INI: a [kiosk] section of key = value lines, each key a flag of run's, e.g. rotate = 90, multitasking = false); flags given beat it, and a scenario's keys beat it.")
    var config: String?

    @OptionGroup var device: DeviceOptions

    @Option(help: "Where to draw: drm (a DRM/KMS panel) or headless (default: drm when a usable card is found, else headless).")
    var backend: BackendChoice?

    @Option(help: "The DRM card (default: the first card with a connected connector).")
    var card: String?

    @Option(help: "The display mode WxH or WxH@Hz (default: the connector's preferred mode).")
    var mode: String?

    /// The seat the card and the input devices are opened through, when the DRM
    /// backend may be used. As root without a seat manager the devices are opened directly
    /// (said once); anyone else gets an error naming what is missing.
    func openSeat(logger: Logger) throws -> Seat? {
        _ = try requestedMode()
        if backend == .headless { return nil }
        if card == nil && !Files.isDirectory("/dev/dri") {
            if backend == .drm {
                throw RuntimeFailure("no usable DRM card: looked for /dev/dri/card* with KMS connectors and CRTCs, found none (/dev/dri does not exist); use --backend headless")
            }
            Files.writeStandardError("diptych: no usable DRM card in /dev/dri; using the headless backend\n")
            return nil
        }
        do {
            let seat = try Seat()
            logger.info("seat opened", metadata: ["seat": "\(seat.name)"])
            return seat
        } catch {
            if getuid() == 0 {
                logger.warning("no seat; opening the card and input devices directly as root", metadata: ["reason": "\(error)"])
                return nil
            }
            // Without --backend drm a missing seat is not fatal: the card is tried as the user
            // may open it, else the headless backend is used (and said so).
            if backend == nil {
                Files.writeStandardError("diptych: \(error)\n")
                return nil
            }
            throw RuntimeFailure("\(error)")
        }
    }

    /// Opens the DRM output when asked for or when a card is usable; nil for headless.
    func requestedMode() throws -> ModeRequest? {
        try mode.map { m -> ModeRequest in
            guard let r = ModeRequest.parse(m) else { throw UsageError("bad --mode '\(m)': expected WxH or WxH@Hz, e.g. 1920x1080@60") }
            return r
        }
    }

    func openBackend(logger: Logger, seat: Seat? = nil) throws -> DRMBackend? {
        let requested = try requestedMode()
        if backend == .headless { return nil }
        if card == nil && !Files.isDirectory("/dev/dri") && backend != .drm { return nil }
        if let card, !Files.exists(card) { throw UsageError("--card: \(card) does not exist") }
        let cards = card.map { [$0] } ?? DRMProbe.usableCards(opener: seat)
        guard let path = cards.first else {
            if backend == .drm {
                throw RuntimeFailure("no usable DRM card: looked for /dev/dri/card* with KMS connectors and CRTCs, found none; use --backend headless")
            }
            Files.writeStandardError("diptych: no usable DRM card in /dev/dri; using the headless backend\n")
            return nil
        }
        do {
            return try DRMBackend(device: try LibdrmDevice(path: path, opener: seat), requestedMode: requested, logger: logger)
        } catch {
            throw RuntimeFailure("\(path): \(error)")
        }
    }

    /// The second screen on the DRM card: another connected connector, in the mode `size`
    /// (its preferred one without), or nil when there is none.
    static func openSecondScreen(after drm: DRMBackend, size: Size?, logger: Logger) -> DRMBackend? {
        let request = size.flatMap { ModeRequest.parse("\($0.width)x\($0.height)") }
        do { return try DRMBackend(device: drm.device, requestedMode: request, logger: logger, secondTo: drm) } catch {
            logger.debug("no second screen", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    @Option(help: "The arrangement to start in: full, slide-over, split-2/3 or split-1/2 (split-1/2 shows as split-2/3 in portrait; default: split-2/3 with a secondary, else full).")
    var arrangement: Arrangement?

    @Option(help: "The primary app: a demo app (notes, markets, tv, pattern:#RRGGBB, with demo flags), a web page (web:URL), or any app's command line (shell-style quoting); with --scenario, it replaces the scenario's.")
    var primary: String?

    @Option(help: "The secondary app, as --primary.")
    var secondary: String?

    @Option(help: "Play this scenario in virtual time and exit.")
    var scenario: String?

    @Option(help: "Relaunch a launched app that exits: on-failure (a status other than 0, or a signal), always, or never (default: on-failure; never with a scenario).")
    var relaunch: RelaunchPolicy?

    @Option(help: "Output folder: a scenario's captures, event logs and frames.json; without a scenario, the last frame as frame.png when stopping.")
    var out: String?

    @Flag(help: "Keep every client full screen (Settings > Multitasking off).")
    var noMultitasking = false

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var vncOptions: VNCOptions

    @Option(help: "Palm rejection: pen-priority (fingers are cancelled and held off while a pen is in use) or off (default: pen-priority).")
    var palmRejection: PalmRejection.Mode = .penPriority

    @Option(help: "How long fingers stay held off after the pen leaves, in ms.")
    var penHoldoffMs: Int = 90

    @Option(help: "Headless: the simulated vblank's rate in Hz (a panel runs at its mode's; default 60).")
    var refresh: Double = 60

    @Option(help: "Compose each frame this many ms before the vblank it is shown at: a number, auto (the recent p99 of a frame's own work plus 1 ms, at least 1 ms) or off (as soon as the output can take one).")
    var repaintWindow: String = "auto"

    @Option(help: "The keyboard's languages, xkb layout names separated by commas (us, gb, de, fr, es, it, pt, nl, se, no, dk, fi, ch): the on-screen keyboard's, and the hardware keymap's unless --keymap names a layout; the first types first; the globe key and Ctrl+Space switch (default: us on screen, the hardware keymap from XKB_DEFAULT_LAYOUT).")
    var keyboardLayouts: String?

    @Option(help: "When the pointer's cursor shows: auto (once a pointer moves, hidden after 3 s still or at a touch), hidden, or always (from the start, at the screen's centre) (default: auto).")
    var cursor: CursorMode = .auto

    @Option(help: "Blank the screen after this many seconds without input (default: never); a playing Picture in Picture window or an app holding idleInhibit keeps it on.")
    var idleTimeout: Int?

    @Option(help: "When the screen is blank, in local time, e.g. 'Mon-Fri 20:00-07:00, Sat 18:00-09:00' (an end before its start is the next day); a touch wakes it for the idle timeout or a minute.")
    var blankSchedule: String?

    @Option(help: "How a blank screen is dark: dpms (the output turned off) or black (a black frame, for panels that ignore DPMS) (default: dpms).")
    var blank: BlankMode = .dpms

    /// `--idle-timeout` and `--blank-schedule`, checked.
    func screenPower() throws -> (idle: UInt64?, schedule: BlankSchedule?) {
        if let t = idleTimeout, !(1...86_400 * 7).contains(t) { throw UsageError("--idle-timeout must be from 1 to 604800 seconds") }
        let schedule: BlankSchedule?
        do { schedule = try blankSchedule.map { try BlankSchedule(parsing: $0) } } catch { throw UsageError("--blank-schedule: \(error)") }
        return (idleTimeout.map { UInt64($0) * 1000 }, schedule)
    }

    @Option(help: "Restart a launched app whose process tree holds more than this many MB (PSS, sampled every minute and when it leaves the screen), at its next moment off screen or within a minute.")
    var memoryLimit: Int?

    @Option(help: "--memory-limit for the primary app alone.")
    var memoryLimitPrimary: Int?

    @Option(help: "--memory-limit for the secondary app alone.")
    var memoryLimitSecondary: Int?

    @Option(help: "The control socket for diptych ctl (default: the app socket's path + .ctl).")
    var ctlSocket: String?

    @Option(help: "A group whose members may use the control socket too (default: only this user and root).")
    var ctlGroup: String?

    @Flag(help: "Tint the regions each frame repaints (a debugging aid).")
    var debugDamage = false

    @Flag(help: "iOS's Reduce Motion: settles, rotation and Picture in Picture growing or shrinking become short cross-fades.")
    var reduceMotion = false

    func palmSettings() throws -> (PalmRejection.Mode, UInt64) {
        guard (0...10_000).contains(penHoldoffMs) else { throw UsageError("--pen-holdoff-ms must be from 0 to 10000") }
        return (palmRejection, UInt64(penHoldoffMs))
    }

    /// `--repaint-window`'s value.
    static func repaintWindow(_ text: String) throws -> RepaintWindow {
        guard let w = RepaintWindow(parsing: text) else { throw UsageError("bad --repaint-window '\(text)': expected auto, off, or milliseconds from 0 to 100") }
        return w
    }

    /// `--refresh`'s value in millihertz.
    static func refreshMillihertz(_ hz: Double) throws -> Int {
        guard hz.isFinite, (1...1000).contains(hz) else { throw UsageError("bad --refresh \(hz): expected a rate from 1 to 1000 Hz") }
        return Int((hz * 1000).rounded())
    }

    func run() throws {
        // Same-user processes may not read the compositor's memory or descriptors (/proc/PID).
        ProcessPrivacy.closeToSameUser()
        if let scenario {
            try reportingErrors { try play(scenario) }
            return
        }
        try reportingErrors {
            // The apps' orphans re-parent to the compositor (a double fork cannot leave its
            // tree: the control socket knows its apps by their ancestry).
            Orphans.adopt()
            // (native is checked once the panel is known.)
            let (_, given) = try device.resolve(panel: device.device == "native" ? (Size(width: 2048, height: 1536), nil) : nil)
            let wanted = noMultitasking ? Arrangement.full : (arrangement ?? (secondary == nil ? .full : .split23))
            _ = try checkArrangement(wanted, orientation: given)
            if let out { try checkDirectory(out, what: "--out") }
            let (palmMode, holdoff) = try palmSettings()
            let calibration = try inputOptions.calibration()
            let keymap = try inputOptions.keymapNames()
            let keyRepeat = try inputOptions.keyRepeat()
            _ = try outputOptions.resolve()
            let battery = try outputOptions.batterySource(live: true)
            let window = try Self.repaintWindow(repaintWindow)
            let refreshMillihertz = try Self.refreshMillihertz(refresh)
            let power = try screenPower()
            let memoryLimits = try memoryLimits()
            let languages = try keyboardLanguages()
            let vnc = try vncOptions.settings()
            // (Every value is checked before anything starts: a group that is not there too.)
            if let name = ctlGroup, getgrnam(name) == nil { throw UsageError("--ctl-group: no group '\(name)'") }

            let signals = try SignalDescriptor(includeChild: true)
            let logger = Logger(label: "diptych.run")
            let seat = try openSeat(logger: logger)
            let input = try inputOptions.open(seat: seat)
            let drm = try openBackend(logger: logger, seat: seat)
            defer { drm?.restore() }
            // On a panel the device is its own size unless another is asked for.
            let (profile, orientation) = try device.resolve(panel: drm.map { ($0.size, $0.connector.millimetres) })
            // A half-and-half split asked for on a panel that turned out portrait shows ⅔.
            let a = wanted == .split12 && orientation == .portrait ? .split23 : wanted
            // A second connected connector is the second screen (its CRTC put back first).
            let secondSize = try outputOptions.secondScreenSize()
            var second = drm.flatMap { Self.openSecondScreen(after: $0, size: secondSize, logger: logger) }
            defer { second?.restore() }
            let compositor: Compositor
            do {
                var configuration = CompositorConfiguration(profile: profile, orientation: orientation, arrangement: a, multitasking: !noMultitasking)
                configuration.palmRejection = palmMode
                configuration.penHoldoff = holdoff
                configuration.debugDamage = debugDamage
                configuration.reduceMotion = reduceMotion
                configuration.cursor = cursor
                configuration.keyboardLanguages = languages
                (configuration.idleTimeout, configuration.blankSchedule) = power
                configuration.blank = blank
                configuration.memoryLimits = memoryLimits
                // (Tests sample more often than every minute.)
                if let ms = Files.environment("DIPTYCH_MEMORY_SAMPLE_MS").flatMap({ UInt64($0) }), ms >= 100 { configuration.memorySampleInterval = ms }
                configuration.statusBar = outputOptions.statusBar.isOn
                configuration.statusBarTitle = outputOptions.statusBarTitle
                configuration.battery = battery
                (configuration.emulateOn, configuration.outputRotation) = try outputOptions.resolve()
                if drm == nil {
                    configuration.secondScreen = secondSize
                    configuration.headlessRefreshMillihertz = refreshMillihertz
                }
                configuration.repaintWindow = window
                configuration.relaunch = relaunch ?? .onFailure
                configuration.keymap = keymap
                configuration.keyRepeat = keyRepeat
                compositor = try Compositor(configuration: configuration, backend: drm, logger: logger)
                if let second { try compositor.attachSecondScreen(second) }
                if let vnc { try compositor.startVNC(vnc) }
            } catch {
                throw RuntimeFailure("cannot start the compositor: \(error)")
            }
            if let drm {
                // One plugged in later is found at its hotplug event.
                compositor.hooks.secondScreen = {
                    guard second == nil else { return nil }
                    second = Self.openSecondScreen(after: drm, size: secondSize, logger: logger)
                    return second
                }
            }
            defer { compositor.shutdown() }
            if let out { Files.remove("\(out)/frame.png") }
            useCgroups(compositor, limits: memoryLimits, logger: logger)
            // Who comes first for the CPU: the loop, at realtime priority where the system grants
            // it (the unit's CPUSchedulingPolicy=rr), and the app the user acts on (said once).
            let realtime = RealtimeLoop()
            if !realtime.take() { logger.notice("the loop runs unprivileged, at normal priority: \(realtime.why ?? "")") }
            compositor.shareCPU()
            logger.info("the apps share the CPU: \(compositor.cpuShare.why)", metadata: ["cpu.apps": "\(compositor.cpuShare.scheme)"])
            for (role, cmd) in [(Role.primary, primary), (.secondary, secondary)] {
                guard let cmd else { continue }
                let live = Apps.live(try Apps.parse(cmd, option: "--\(role.rawValue)"), role: role, out: out)
                try compositor.launch(live.arguments, role: role, label: live.label, eventLog: live.eventLog)
            }
            Files.writeStandardError("diptych: listening on \(compositor.socketPath ?? "-"); SIGINT, SIGTERM or SIGHUP stops, SIGUSR1 reads --config again\n")
            let manager = ServiceManager()
            let reload = try ConfigReload(given: Array(CommandLine.arguments.dropFirst()), compositor: compositor, out: out, manager: manager, logger: logger)
            let (signalFD, signalsOfChildren) = (signals.fd.rawValue, signals.includeChild)
            reload.hearSignals = { SignalDescriptor.hear(userOne: $0, fd: signalFD, includeChild: signalsOfChildren) }
            var stop = false
            // (Weak: the watch is the compositor's own, and it must go away at the end of `run`,
            // removing its socket.)
            compositor.watch(signals.fd.rawValue) { [weak compositor] in
                while let signal = signals.next() {
                    // A child ended: the apps' orphans the compositor adopted are reaped now
                    // (launched apps are looked at after every turn).
                    if signal == .child { compositor?.reapOrphans(); continue }
                    guard signal == .userOne else { stop = true; continue }
                    reload.signalled()
                }
            }
            if let input { try compositor.addInput(input, calibration: calibration) }
            if let seat {
                // A VT switch: away, no frames and no input (a finger on the screen is lifted);
                // back, the card is taken again, the mode set and the whole frame repainted.
                seat.onDisable = {
                    logger.info("session disabled (VT switch away): frames and input stop")
                    compositor.liftAllTouches()
                    compositor.releaseAllKeys()
                    drm?.suspend()
                    input?.suspend()
                }
                seat.onEnable = {
                    input?.resume()
                    if let drm { compositor.handle(drm.resume()) }
                    compositor.redrawAll()
                    logger.info("session enabled again: repainting")
                }
                compositor.watch(seat.descriptor) { seat.dispatch() }
                compositor.hooks.switchVT = { seat.switchSession($0) }
            }
            let repaint = RepaintLoop(compositor: compositor)
            repaint.realtime = realtime
            // Frame records only for --out's frames.json; the figures are kept anyway.
            repaint.frames.keepsRecords = out != nil
            // Without its control socket the kiosk still runs (said once): ctl is for operators.
            let control: ControlServer?
            do { control = try startControl(compositor, repaint: repaint, reload: reload, logger: logger) } catch let e as UsageError { throw e } catch {
                Files.writeStandardError("diptych: no control socket (diptych ctl will not reach this compositor): \(error)\n")
                control = nil
            }
            if let control { Files.writeStandardError("diptych: control socket \(control.path) (diptych ctl)\n") }
            // systemd's Type=notify: ready once the output and the sockets are up; the watchdog
            // pinged from the loop (a wedged loop misses it).
            manager.notify("READY=1\nSTATUS=serving on \(compositor.socketPath ?? "-")")
            defer { manager.notify("STOPPING=1") }
            let watchdog = try Self.startWatchdog(manager, compositor)
            try repaint.run { withExtendedLifetime((control, watchdog)) { stop } }
            if let out {
                compositor.drawFrame()
                try compositor.output.writePNG(to: "\(out)/frame.png")
                try Files.writeAtomically("\(out)/frames.json", bytes: Array((repaint.frames.framesJSON.serialized + "\n").utf8))
            }
        }
    }

    /// Plays a scenario file: everything is checked before anything starts or is written.
    func play(_ path: String) throws {
        let bytes: [UInt8]
        do { bytes = try Files.read(path, limit: Scenario.fileLimit) } catch { throw UsageError("cannot read the scenario: \(error)") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw UsageError("\(path): not UTF-8 text") }
        var scenario: Scenario
        do { scenario = try Scenario.parse(text, file: path) } catch { throw UsageError(error.description) }
        if let size = try outputOptions.secondScreenSize() { scenario.secondScreen = size }
        // --primary and --secondary play the scenario with other apps (paths from here, not
        // from the scenario's folder).
        if let primary { scenario.primary = try Apps.parse(primary, option: "--primary") }
        if let secondary { scenario.secondary = try Apps.parse(secondary, option: "--secondary") }
        for (role, app) in [("primary", scenario.primary), ("secondary", scenario.secondary)] {
            if let app { try Apps.check(app, what: "\(path): field '\(role)'") }
        }
        let battery = try outputOptions.batterySource()
        let dir = out ?? "out"
        do { try Files.makeDirectories(dir) } catch { throw UsageError("--out: cannot create \(dir): \(error)") }
        let logger = Logger(label: "diptych.scenario")
        let seat = try openSeat(logger: logger)
        let drm = try openBackend(logger: logger, seat: seat)
        defer { drm?.restore() }
        var second: DRMBackend?
        if let drm, let size = scenario.secondScreen {
            second = Self.openSecondScreen(after: drm, size: size, logger: logger)
            if second == nil {
                throw RuntimeFailure("\(path): the scenario has a second screen of \(size) but the card has no other connected connector with that mode")
            }
        }
        defer { second?.restore() }
        let player = ScenarioPlayer(scenario: scenario, outputDirectory: dir, logger: logger) { app, log in
            Apps.launch(app, eventLog: log, ephemeral: true)
        }
        player.file = path
        player.debugDamage = debugDamage
        player.reduceMotion = reduceMotion
        player.statusBar = outputOptions.statusBar.isOn
        player.statusBarTitle = outputOptions.statusBarTitle
        player.battery = battery
        player.backend = drm
        player.secondBackend = second
        let captures: [String]
        do { captures = try player.play() } catch let error as ScenarioError { throw UsageError(error.description) } catch { throw RuntimeFailure("\(path): \(error)") }
        for c in captures { print(c) }
        if let drm { Files.writeStandardError("diptych: \(drm.flipsCompleted) page flips completed (\(drm.api)), \(drm.flipFailures) failed\n") }
        if let second { Files.writeStandardError("diptych: second screen \(second.connector.name) \(second.mode): \(second.flipsCompleted) page flips completed (\(second.api)), \(second.flipFailures) failed\n") }
    }

    /// Pings the service manager's watchdog from the loop, every half its timeout or minute,
    /// whichever is sooner (nil: no watchdog asked for).
    static func startWatchdog(_ manager: ServiceManager, _ compositor: Compositor) throws -> Watchdog? {
        guard let interval = manager.watchdogInterval else { return nil }
        return try Watchdog(manager, compositor, milliseconds: min(interval, 60_000))
    }
}

/// The service manager's watchdog, pinged by a timer the compositor's loop watches.
final class Watchdog {
    private let timer: TimerDescriptor

    init(_ manager: ServiceManager, _ compositor: Compositor, milliseconds: UInt64) throws {
        timer = try TimerDescriptor()
        try timer.arm(nanoseconds: milliseconds * 1_000_000, interval: milliseconds * 1_000_000)
        manager.notify("WATCHDOG=1")
        compositor.watch(timer.fd.rawValue) { [weak self] in
            _ = self?.timer.acknowledge()
            manager.notify("WATCHDOG=1")
        }
    }
}

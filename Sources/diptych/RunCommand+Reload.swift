// SPDX-License-Identifier: MIT
// Reading `run --config FILE` again (`diptych ctl reload`, SIGUSR1, the unit's ExecReload=):
// the keys whose values changed are applied live where they can be (the apps are replaced,
// the device, orientation, rotation, arrangement, cursor and screen power change at once);
// the others are said to need a restart. A file that is wrong changes nothing. Flags given on
// the command line keep beating the file.

import ArgumentParser
import DiptychCore
import DiptychLinux
import DiptychServer
import Logging

/// The configuration `run` applied last, to be read again.
final class ConfigReload {
    /// `run`'s arguments as given (before the file's keys were added).
    let given: [String]
    /// The file's keys in effect when it was read last.
    private var settings: [String: String]
    /// (Weak: the compositor's signal watch holds this, and the compositor must go away at the
    /// end of `run`, removing its socket.)
    private weak var compositor: Compositor?
    private let logger: Logger
    /// Where the apps log their events (`--out`).
    private let out: String?
    private let manager: ServiceManager

    /// The keys applied without a restart.
    static let live: Set<String> = [
        "primary", "secondary", "device", "orientation", "compact-width", "divider-width", "regular-min-width", "rotate", "arrangement", "cursor",
        "idle-timeout", "blank-schedule", "blank", "memory-limit", "memory-limit-primary", "memory-limit-secondary",
    ]

    /// SIGUSR1s are coalesced: one reload at once, then at most one a `signalGap` ms (a flood
    /// of signals costs the loop a reload a second, not one a signal).
    static let signalGap: UInt64 = 1000
    private var lastSignalled: UInt64?
    private var signalPending = false
    private let timer: TimerDescriptor

    init(given: [String], compositor: Compositor, out: String?, manager: ServiceManager, logger: Logger) throws {
        self.given = given
        self.manager = manager
        self.compositor = compositor
        self.out = out
        self.logger = logger
        settings = (try? ConfigOption.settings(given)) ?? [:]
        timer = try TimerDescriptor()
        compositor.watch(timer.fd.rawValue) { [weak self] in
            guard let self else { return }
            _ = self.timer.acknowledge()
            guard self.signalPending else { return }
            self.signalPending = false
            self.reloadForSignal()
        }
    }

    /// SIGUSR1 came: the file is read again now, or a second after the last signalled reload.
    func signalled() {
        let now = MonotonicClock.milliseconds
        if let last = lastSignalled, now < last + Self.signalGap {
            guard !signalPending else { return }
            signalPending = true
            do { try timer.arm(atNanoseconds: (last + Self.signalGap) * 1_000_000) } catch {
                signalPending = false
                reloadForSignal()
            }
            return
        }
        reloadForSignal()
    }

    private func reloadForSignal() {
        lastSignalled = MonotonicClock.milliseconds
        if case .failure(let e) = reload() { logger.error("reload: \(e.message)") }
    }

    /// Reads the file again and applies what changed: what was done, or why nothing was.
    func reload() -> Result<String, ControlError> {
        guard let compositor else { return .failure(ControlError("the compositor is stopping")) }
        guard given.contains(where: { $0 == "--config" || $0.hasPrefix("--config=") }) else {
            return .failure(ControlError("this compositor was started without --config: there is no file to read again"))
        }
        let fresh: RunCommand, new: [String: String]
        do {
            new = try ConfigOption.settings(given)
            guard let command = try Diptych.parseAsRoot(try ConfigOption.expand(given)) as? RunCommand else { throw UsageError("not a run command") }
            fresh = command
            // Every value is checked before anything changes.
            _ = try fresh.device.resolve()
            _ = try fresh.outputOptions.resolve()
            _ = try fresh.screenPower()
            _ = try fresh.memoryLimits()
            for (role, cmd) in [(Role.primary, fresh.primary), (.secondary, fresh.secondary)] {
                if let cmd { _ = try Apps.parse(cmd, option: role.rawValue) }
            }
        } catch {
            let message = (error as? UsageError)?.description ?? Diptych.message(for: error)
            return .failure(ControlError("\(message); nothing changed"))
        }
        manager.notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.nanoseconds / 1000)")
        defer { manager.notify("READY=1") }
        let changed = Set(settings.keys).union(new.keys).filter { settings[$0] != new[$0] }.sorted()
        settings = new
        var applied: [String] = [], restart: [String] = []
        var deviceChanged = false
        for key in changed {
            guard Self.live.contains(key) else {
                restart.append(key)
                continue
            }
            switch key {
            case "primary", "secondary":
                let role = Role(rawValue: key)!
                guard let cmd = key == "primary" ? fresh.primary : fresh.secondary, let app = try? Apps.parse(cmd, option: key) else {
                    restart.append(key)
                    continue
                }
                let live = Apps.live(app, role: role, out: out)
                compositor.setApp(role, arguments: live.arguments, label: live.label, eventLog: live.eventLog) { [logger] failure in
                    if let failure { logger.warning("reload: the \(key) app was not replaced", metadata: ["error": "\(failure)"]) }
                }
            case "rotate":
                compositor.rotateOutput((try? fresh.outputOptions.resolve().1) ?? .none)
            case "arrangement":
                if let a = fresh.arrangement, let why = compositor.arrange(a) {
                    logger.warning("reload: arrangement \(a.rawValue) not shown", metadata: ["reason": "\(why)"])
                }
            case "cursor":
                compositor.setCursorMode(fresh.cursor)
            case "memory-limit", "memory-limit-primary", "memory-limit-secondary":
                if let limits = try? fresh.memoryLimits() { compositor.setMemoryLimits(limits) }
            case "idle-timeout", "blank-schedule", "blank":
                if let power = try? fresh.screenPower() { compositor.setScreenPower(idleTimeout: power.idle, schedule: power.schedule, mode: fresh.blank) }
            default:
                deviceChanged = true
            }
            applied.append(key)
        }
        if deviceChanged, let (profile, orientation) = try? fresh.device.resolve() {
            compositor.emulate(profile)
            compositor.rotate(to: orientation)
        }
        logger.notice("configuration read again", metadata: ["applied": "\(applied)", "needs-restart": "\(restart)"])
        var lines: [String] = []
        if changed.isEmpty { lines.append("nothing changed") }
        if !applied.isEmpty { lines.append("applied: \(applied.joined(separator: ", "))") }
        if !restart.isEmpty { lines.append("needs a restart of diptych: \(restart.joined(separator: ", "))") }
        return .success(lines.joined(separator: "\n"))
    }
}

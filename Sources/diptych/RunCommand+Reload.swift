// SPDX-License-Identifier: MIT
// Reading `run --config FILE` again (`diptych ctl reload`, SIGUSR1, the unit's ExecReload=):
// the keys whose values changed are applied live where they can be (the apps are replaced,
// the device, orientation, rotation, arrangement, cursor and screen power change at once);
// the others are said to need a restart. A file that is wrong changes nothing. Flags given on
// the command line keep beating the file. An app change is made as `ctl set-app` makes it, and
// the reload answers once it took its place or failed (the old app staying); what runs and the
// file may then differ, and `status` says which keys do.

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
    /// The value of each of the file's keys that runs (nil: the default; `ctl` marks what it
    /// changed with a value no file has).
    private var running: [String: String] = [:]
    /// The file's keys whose value is not what runs (one that needs a restart, a failed app
    /// change, a `ctl` change since).
    var differs: [String] { Set(settings.keys).union(running.keys).filter { settings[$0] != running[$0] }.sorted() }
    private static let changedByControl = "\u{0}ctl"

    /// The keys applied without a restart.
    static let live: Set<String> = [
        "primary", "secondary", "device", "orientation", "compact-width", "divider-width", "regular-min-width", "rotate", "arrangement", "cursor",
        "idle-timeout", "blank-schedule", "blank", "memory-limit", "memory-limit-primary", "memory-limit-secondary", "keyboard-layouts",
    ]

    /// SIGUSR1s are coalesced: one reload at once, then at most one a `signalGap` ms (a flood
    /// of signals costs the loop a reload a second, not one a signal; and, unheard in the gap,
    /// not a wake-up a signal: `hearSignals`).
    static let signalGap: UInt64 = 1000
    /// Hears SIGUSR1 (true) or leaves it pending, waking no one (false), till the gap is out.
    var hearSignals: ((Bool) -> Void)?
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
        running = settings
        timer = try TimerDescriptor()
        compositor.watch(timer.fd.rawValue) { [weak self] in
            guard let self else { return }
            _ = self.timer.acknowledge()
            self.hearSignals?(true)
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
            do {
                try timer.arm(atNanoseconds: (last + Self.signalGap) * 1_000_000)
                hearSignals?(false)
            } catch {
                signalPending = false
                reloadForSignal()
            }
            return
        }
        reloadForSignal()
    }

    private func reloadForSignal() {
        lastSignalled = MonotonicClock.milliseconds
        reload { [logger] result in if case .failure(let e) = result { logger.error("reload: \(e.message)") } }
    }

    /// The configuration file, if `run` was given one.
    var file: String? { ConfigOption.file(given) }

    /// `ctl` changed what `key` of the file says (`set-app`, `arrangement`, `rotate`, …): what
    /// runs differs from the file until a reload applies the file's value again.
    func changedByControl(_ key: String) {
        if file != nil { running[key] = Self.changedByControl }
    }

    /// What `status` says of the file: its path and the keys that differ from what runs.
    var statusFields: [(String, JSONValue)] {
        guard let file else { return [] }
        return [("config", .object([("file", .string(file)), ("differs", .array(differs.map { .string($0) }))]))]
    }

    /// Reads the file again and applies what changed; `answer` is told what was done, or why
    /// nothing (or not all of it) was, once the apps changed have taken their places or failed.
    func reload(_ answer: @escaping (Result<String, ControlError>) -> Void) {
        guard let compositor else { return answer(.failure(ControlError("the compositor is stopping"))) }
        guard given.contains(where: { $0 == "--config" || $0.hasPrefix("--config=") }) else {
            return answer(.failure(ControlError("this compositor was started without --config: there is no file to read again")))
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
            _ = try fresh.keyboardLanguages()
            for (role, cmd) in [(Role.primary, fresh.primary), (.secondary, fresh.secondary)] {
                if let cmd { _ = try Apps.parse(cmd, option: role.rawValue) }
            }
        } catch {
            let message = (error as? UsageError)?.description ?? Diptych.message(for: error)
            return answer(.failure(ControlError("\(message); nothing changed")))
        }
        manager.notify("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.nanoseconds / 1000)")
        defer { manager.notify("READY=1") }
        // (What differs from what runs: a ctl change the file does not say is undone too.)
        let changed = Set(running.keys).union(new.keys).filter { running[$0] != new[$0] }.sorted()
        settings = new
        var applied: [String] = [], restart: [String] = []
        var deviceChanged = false
        // The app changes, answered once each took its place or failed.
        var appChanges: [(key: String, arguments: [String], label: String, eventLog: String?)] = []
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
                appChanges.append((key, live.arguments, live.label, live.eventLog))
                continue
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
            case "keyboard-layouts":
                compositor.setKeyboardLanguages((try? fresh.keyboardLanguages()) ?? [])
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
        // What the file says runs now, as far as it was applied.
        for key in applied { running[key] = new[key] }
        let finish = { [self] (failed: [(key: String, why: String)]) in
            let done = applied + appChanges.map(\.key).filter { k in !failed.contains { $0.key == k } }
            for key in done { running[key] = new[key] }
            logger.notice("configuration read again", metadata: ["applied": "\(done)", "needs-restart": "\(restart)", "failed": "\(failed.map(\.key))"])
            var lines: [String] = []
            if changed.isEmpty { lines.append("nothing changed") }
            if !done.isEmpty { lines.append("applied: \(done.sorted().joined(separator: ", "))") }
            if !restart.isEmpty { lines.append("needs a restart of diptych: \(restart.joined(separator: ", "))") }
            guard failed.isEmpty else {
                let why = failed.map { "\($0.key): \($0.why); the old app stays" }.joined(separator: "; ")
                return answer(.failure(ControlError((lines + ["not applied: \(why) (ctl status shows what differs from the file)"]).joined(separator: "\n"))))
            }
            answer(.success(lines.joined(separator: "\n")))
        }
        guard !appChanges.isEmpty else { return finish([]) }
        var pending = appChanges.count, failed: [(key: String, why: String)] = []
        for change in appChanges {
            compositor.setApp(Role(rawValue: change.key)!, arguments: change.arguments, label: change.label, eventLog: change.eventLog) { [logger] failure in
                if let failure {
                    logger.warning("reload: the \(change.key) app was not replaced", metadata: ["error": "\(failure)"])
                    failed.append((change.key, failure))
                }
                pending -= 1
                if pending == 0 { finish(failed) }
            }
        }
    }
}

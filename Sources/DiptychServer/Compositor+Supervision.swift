// SPDX-License-Identifier: MIT
// Supervision: an app the compositor launched that exits or crashes is relaunched
// with exponential back-off (`RelaunchSchedule`: 0.5 s doubling to 30 s, reset after 60 s of running) and takes its
// role back. While it is away its pane keeps its place, showing a placeholder in its colour
// with its name, so the other app is never disturbed (no configure, no resize). A connection
// that closed without its process exiting is stopped after 2 s; every child is reaped.

import DiptychCore
import DiptychLinux
import Logging

/// What the compositor keeps of a launched app between its runs.
struct Supervised {
    var arguments: [String]
    var label: String
    /// Where the compositor logs what it sends the app (an app that does not log itself).
    var eventLog: String?
    /// Its runs and when it is due again (the back-off).
    var schedule: RelaunchSchedule
    /// The app id holding its place in the shell while it is away, and what its pane shows.
    var ghost: AppID?
    var ghostContent: AppContent?
    /// When its connection closed (the process is stopped if it does not exit soon after).
    var closedAt: UInt64?
}

/// The launched apps kept to be relaunched, and the policy: what a launched app leaves behind
/// when it goes (its place as a placeholder), when it is due again, when a process that closed
/// its connection is stopped. Its state is its own; time is given.
final class Supervision: Timed {
    /// The apps' processes.
    let launcher = AppLauncher()
    let policy: RelaunchPolicy
    private var apps: [Role: Supervised] = [:]
    /// Set by `shutdown`: apps going away then are not relaunched.
    private(set) var shuttingDown = false
    /// Roles whose app the operator ended to start it again (`ctl restart`).
    private var restarting: Set<Role> = []
    /// Apps started by `ctl set-app` to take a role's place once they say hello.
    private(set) var candidates: [Role: Candidate] = [:]
    /// How long a `ctl set-app`'s app has to say hello before the old app is kept.
    static let candidateTimeout: UInt64 = 10_000
    /// When the apps' orphans (adopted by the compositor) were last reaped.
    var orphansReapedAt: UInt64 = 0
    /// Relaunches by role (the apps that came back after exiting, or were restarted).
    var relaunchesByRole: [Role: Int] = [:]
    /// The apps the kernel killed past their memory limit, by role (each relaunched).
    var oomKillsByRole: [Role: Int] = [:]

    /// An app started to take a role's place (make-before-break): until it says hello the old
    /// app stays; `answer` is told how it went (nil: it took the place).
    struct Candidate {
        var client: ClientID
        var arguments: [String]
        var label: String
        var eventLog: String?
        var deadline: UInt64
        var answer: (String?) -> Void
    }
    /// How long a launched app may live on after closing its connection.
    static let closeGrace: UInt64 = 2000

    init(policy: RelaunchPolicy) { self.policy = policy }

    /// An app was launched (again) for `role` at `now`.
    func launched(_ arguments: [String], role: Role, label: String, eventLog: String?, at now: UInt64) {
        if apps[role] == nil {
            apps[role] = Supervised(arguments: arguments, label: label, eventLog: eventLog, schedule: RelaunchSchedule(startedAt: now))
        } else {
            apps[role]?.schedule.started(at: now)
        }
    }

    func shutDown() { shuttingDown = true }

    /// When the apps whose connections are open were last asked whether they exited.
    private var exitChecked: UInt64?

    /// Whether a second has passed since the apps were last asked whether they exited (taken).
    func exitCheckDue(at now: UInt64) -> Bool {
        if let last = exitChecked, now < last + 1000 { return false }
        exitChecked = now
        return true
    }

    /// Whether anything may be relaunched (the policy, or a restart asked for).
    var relaunches: Bool { policy != .never || !restarting.isEmpty }

    /// The operator is ending `role`'s app to have it start again at once.
    func restartRequested(_ role: Role) { restarting.insert(role) }

    func addCandidate(_ c: Candidate, for role: Role) { candidates[role] = c }

    /// The candidate for `role`, taken (it said hello, or failed).
    func takeCandidate(_ role: Role) -> Candidate? { candidates.removeValue(forKey: role) }

    /// The candidate took `role`'s place at `now`: its command is the role's relaunch command
    /// from now on; the placeholder of the app it replaced, if any, is returned.
    func replaced(_ role: Role, by c: Candidate, at now: UInt64) -> AppID? {
        let ghost = apps[role]?.ghost
        restarting.remove(role)
        apps[role] = Supervised(arguments: c.arguments, label: c.label, eventLog: c.eventLog, schedule: RelaunchSchedule(startedAt: now))
        return ghost
    }
    /// What a launched app's pane shows while it is away, if it is.
    func ghostContent(_ app: AppID) -> AppContent? { apps.values.first { $0.ghost == app }?.ghostContent }

    /// A launched app's connection ended at `now`. With relaunching on, an app on screen keeps
    /// its place (shown as `placeholder`) until it is known whether it comes back; returns
    /// whether the shell is to be left as it is.
    func sessionEnded(role: Role?, app: AppID, onScreen: Bool, placeholder: AppContent, at now: UInt64) -> Bool {
        guard let role, policy != .never || restarting.contains(role), var s = apps[role], !shuttingDown else { return false }
        s.closedAt = now
        if onScreen {
            s.ghost = app
            s.ghostContent = placeholder
        }
        apps[role] = s
        return onScreen
    }

    /// Whether the process for `role`, whose connection is gone, has had its grace at `now`.
    func overstayed(_ role: Role, at now: UInt64) -> Bool {
        apps[role]?.closedAt.map { now >= $0 + Self.closeGrace } ?? false
    }

    /// The app for `role` exited with `status` at `now`: the back-off before its relaunch, or
    /// nil when it is not relaunched (it is forgotten; its placeholder's app, if any, given).
    func ended(_ role: Role, status: Int32, at now: UInt64) -> (label: String, relaunchIn: UInt64?, attempt: Int, ghost: AppID?, restarted: Bool)? {
        guard var s = apps[role] else { return nil }
        if restarting.remove(role) != nil, !shuttingDown {
            s.schedule.restarted(at: now)
            s.closedAt = nil
            apps[role] = s
            return (s.label, 0, s.schedule.failures, nil, true)
        }
        guard let delay = s.schedule.ended(status: status, at: now, policy: policy) else {
            apps[role] = nil
            return (s.label, nil, s.schedule.failures, s.ghost, false)
        }
        s.closedAt = nil
        apps[role] = s
        return (s.label, delay, s.schedule.failures, nil, false)
    }

    /// The relaunches due at `now`, by role (each taken: it is not due again until it ends).
    func takeDue(at now: UInt64) -> [(role: Role, app: Supervised)] {
        var due: [(Role, Supervised)] = []
        for (role, s) in apps.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where apps[role]?.schedule.takeDue(at: now) == true {
            due.append((role, s))
        }
        return due
    }

    /// A relaunch for `role` could not start.
    func launchFailed(_ role: Role, at now: UInt64) { apps[role]?.schedule.launchFailed(at: now) }

    /// The placeholder holding `role`'s place, taken by the app that came back (nil: none).
    func takeGhost(_ role: Role) -> AppID? {
        guard let ghost = apps[role]?.ghost else { return nil }
        apps[role]?.ghost = nil
        apps[role]?.ghostContent = nil
        return ghost
    }

    /// The next relaunch or stop of a launched app, or kill of a replaced one that has not
    /// exited (monotonic ms).
    var nextDeadline: UInt64? {
        let retired = launcher.apps.compactMap { app in if case .retired(let since) = app.standing { since + Self.closeGrace } else { nil } }
        return (apps.values.flatMap { [$0.schedule.due, $0.closedAt.map { $0 + Self.closeGrace }] } + candidates.values.map(\.deadline) + retired).compactMap { $0 }.min()
    }
}

extension Compositor {
    var launcher: AppLauncher { supervision.launcher }

    /// What a launched app's pane shows while it is away, if it is.
    func ghostContent(_ app: AppID) -> AppContent? { supervision.ghostContent(app) }

    /// A launched app's connection ended: whether it keeps its place (see `Supervision`).
    func supervisedSessionEnded(_ c: ClientSession) -> Bool {
        // An app replaced, or one that never took its place, leaves nothing behind.
        guard !c.replaced, supervision.candidates[c.launchRole ?? .primary]?.client != c.id else { return false }
        return supervision.sessionEnded(
            role: c.launchRole, app: c.app, onScreen: c.admitted, placeholder: AppContent(live: nil, name: c.displayName, tint: c.tint),
            at: policyClock.milliseconds)
    }

    /// Reaps launched apps that exited and decides what comes next: a relaunch after the
    /// back-off, or (not relaunched) its place given up. Starts the relaunches that are due.
    func superviseLaunchedApps() {
        let now = policyClock.milliseconds
        // An app that exited while a process it left behind holds its connection open: the
        // connection is closed (what follows is as for any app that went). Looked for at most
        // once a second, not every turn.
        if supervision.exitCheckDue(at: now) {
            for app in launcher.apps where app.standing == .current && clients[app.client] != nil && app.process.poll() != nil {
                clients[app.client]?.close(reason: "its process exited")
            }
        }
        for app in launcher.apps where app.standing == .current && clients[app.client] == nil {
            guard let status = app.process.poll() else {
                // The connection closed but the process lives on: it is stopped.
                if supervision.overstayed(app.role, at: now) { _ = app.process.kill() }
                continue
            }
            // The kernel killed it past its memory limit (its cgroup says so): said and counted;
            // it is relaunched as any app that was killed (the policy's back-off).
            if (app.cgroup?.oomKills ?? 0) > 0 {
                supervision.oomKillsByRole[app.role, default: 0] += 1
                logger.warning("app killed by the kernel past its memory limit", metadata: [
                    "client.app": "\(app.label)", "client.role": "\(app.role.rawValue)", "memory.limit_mb": "\((memoryWatch.limits[app.role] ?? 0) >> 20)",
                ])
            }
            launcher.forget(app.client)
            let how = status >= 128 ? "killed by signal \(status - 128)" : "exited with status \(status)"
            guard let end = supervision.ended(app.role, status: status, at: now) else {
                // Not kept for relaunching (--relaunch never).
                logger.info("launched app ended; not relaunched", metadata: ["client.role": "\(app.role.rawValue)", "exit": "\(how)"])
                continue
            }
            guard let delay = end.relaunchIn else {
                logger.info("launched app ended; not relaunched", metadata: ["client.app": "\(end.label)", "client.role": "\(app.role.rawValue)", "exit": "\(how)"])
                if let ghost = end.ghost { apply(desk.remove(ghost)) }
                continue
            }
            if end.restarted {
                logger.info("launched app restarted", metadata: ["client.app": "\(end.label)", "client.role": "\(app.role.rawValue)"])
                continue
            }
            logger.warning("launched app \(how); relaunching", metadata: [
                "client.app": "\(end.label)", "client.role": "\(app.role.rawValue)", "relaunch.in_ms": "\(delay)", "relaunch.attempt": "\(end.attempt)",
            ])
        }
        for (role, s) in supervision.takeDue(at: now) {
            supervision.relaunchesByRole[role, default: 0] += 1
            do { try launch(s.arguments, role: role, label: s.label, eventLog: s.eventLog) } catch {
                logger.warning("system error: cannot relaunch an app", metadata: ["client.app": "\(s.label)", "error": "\(error)"])
                supervision.launchFailed(role, at: now)
            }
        }
    }

    /// A relaunched app said hello: it takes its predecessor's place (nil when there is none).
    func rejoin(_ c: ClientSession) -> [ShellEffect]? {
        guard let role = c.launchRole, let ghost = supervision.takeGhost(role) else { return nil }
        return desk.replace(ghost, with: c.app, requiresFullScreen: c.requiresFullScreen)
    }
}

extension Compositor {
    /// The CPU follows the user (`AppLauncher+CPU.swift`): the role whose app last received
    /// touch, pen or keys comes first, with one whose Picture in Picture plays while the app is
    /// off screen (the app says it plays: on screen, that counts for nothing).
    func favourTheUsersApps() {
        guard launcher.cpu.scheme != .none else { return }
        var first = Set(desk.pip.windows.filter { $0.playing && desk.shell.pane(of: $0.app) == nil }.compactMap { session($0.app)?.launchRole })
        if let last = clients.all.max(by: { $0.lastUserInput < $1.lastUserInput }), last.lastUserInput > 0, let role = last.launchRole { first.insert(role) }
        launcher.favour(first, now: policyClock.milliseconds)
    }

    /// Chooses how the launched apps share the CPU (by cgroup weight, nice values, or not at
    /// all; see `status`'s `"cpu"`) and applies it from now on: for a live kiosk.
    public func shareCPU() { launcher.shareCPU(noCgroupWhy: memoryWatch.noCgroupReason) }

    /// How the apps share the CPU (`cpu.weight`, `nice` or `none`) and why.
    public var cpuShare: (scheme: String, why: String) { (launcher.cpu.scheme.rawValue, launcher.cpu.why) }
}

// SPDX-License-Identifier: MIT
// Supervision: an app the compositor launched that exits or crashes is relaunched
// with exponential back-off (0.5 s doubling to 30 s, reset after 60 s of running) and takes its
// role back. While it is away its pane keeps its place, showing a placeholder in its colour
// with its name, so the other app is never disturbed (no configure, no resize). A connection
// that closed without its process exiting is stopped after 2 s; every child is reaped.

import DiptychCore
import DiptychLinux
import Logging

/// When a launched app that went away is started again.
public enum RelaunchPolicy: String, CaseIterable, Sendable {
    /// When it exits with a status other than 0, or is killed by a signal.
    case onFailure = "on-failure"
    case always
    case never
}

/// What the compositor keeps of a launched app between its runs.
struct Supervised {
    var arguments: [String]
    var label: String
    /// Where the compositor logs what it sends the app (an app that does not log itself).
    var eventLog: String?
    /// When the current run started (monotonic ms).
    var startedAt: UInt64
    /// Relaunches since it last ran for a minute.
    var failures = 0
    /// The app id holding its place in the shell while it is away, and what its pane shows.
    var ghost: AppID?
    var ghostContent: AppContent?
    /// When its connection closed (the process is stopped if it does not exit soon after).
    var closedAt: UInt64?
    /// When it is to be started again.
    var due: UInt64?
}

extension Compositor {
    /// The first back-off, its ceiling, and the run after which it starts over (ms).
    static let relaunchFirstDelay: UInt64 = 500
    static let relaunchMaxDelay: UInt64 = 30_000
    static let relaunchResetAfter: UInt64 = 60_000
    /// How long a launched app may live on after closing its connection.
    static let closeGrace: UInt64 = 2000

    /// What a launched app's pane shows while it is away, if it is.
    func ghostContent(_ app: AppID) -> AppContent? {
        supervised.values.first { $0.ghost == app }?.ghostContent
    }

    /// A launched app's connection ended. With relaunching on, an app on screen keeps its
    /// place (shown as a placeholder) until it is known whether it comes back; returns whether
    /// the shell was left as it is.
    func supervisedSessionEnded(_ c: ClientSession) -> Bool {
        guard relaunch != .never, let role = c.launchRole, var s = supervised[role], !shuttingDown else { return false }
        s.closedAt = MonotonicClock.milliseconds
        if c.admitted {
            s.ghost = c.app
            s.ghostContent = AppContent(live: nil, name: c.displayName, tint: c.tint)
        }
        supervised[role] = s
        return c.admitted
    }

    /// Reaps launched apps that exited and decides what comes next: a relaunch after the
    /// back-off, or (not relaunched) its place given up. Starts the relaunches that are due.
    func superviseLaunchedApps() {
        let now = MonotonicClock.milliseconds
        for app in launcher.apps where sessions[app.client] == nil {
            guard let status = app.process.poll() else {
                // The connection closed but the process lives on: it is stopped.
                if let closed = supervised[app.role]?.closedAt, now >= closed + Self.closeGrace { _ = app.process.kill() }
                continue
            }
            launcher.forget(app.client)
            guard var s = supervised[app.role] else { continue }
            let how = status >= 128 ? "killed by signal \(status - 128)" : "exited with status \(status)"
            let again = relaunch == .always || (relaunch == .onFailure && status != 0)
            guard again else {
                logger.info("launched app ended; not relaunched", metadata: ["client.app": "\(s.label)", "client.role": "\(app.role.rawValue)", "exit": "\(how)"])
                supervised[app.role] = nil
                if let ghost = s.ghost { apply(shell.remove(ghost)) }
                continue
            }
            if now >= s.startedAt + Self.relaunchResetAfter { s.failures = 0 }
            let delay = min(Self.relaunchMaxDelay, Self.relaunchFirstDelay << UInt64(min(s.failures, 16)))
            s.failures += 1
            s.due = now + delay
            s.closedAt = nil
            supervised[app.role] = s
            logger.warning("launched app \(how); relaunching", metadata: [
                "client.app": "\(s.label)", "client.role": "\(app.role.rawValue)", "relaunch.in_ms": "\(delay)", "relaunch.attempt": "\(s.failures)",
            ])
        }
        for (role, s) in supervised.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let due = s.due, now >= due else { continue }
            supervised[role]?.due = nil
            do { try launch(s.arguments, role: role, label: s.label, eventLog: s.eventLog) } catch {
                logger.warning("system error: cannot relaunch an app", metadata: ["client.app": "\(s.label)", "error": "\(error)"])
                supervised[role]?.due = now + Self.relaunchMaxDelay
            }
        }
    }

    /// A relaunched app said hello: it takes its predecessor's place (nil when there is none).
    func rejoin(_ c: ClientSession) -> [ShellEffect]? {
        guard let role = c.launchRole, let ghost = supervised[role]?.ghost else { return nil }
        supervised[role]?.ghost = nil
        supervised[role]?.ghostContent = nil
        return shell.replace(ghost, with: c.app, requiresFullScreen: c.requiresFullScreen)
    }

    /// The next relaunch or stop of a launched app (monotonic ms).
    var nextSupervisionDeadline: UInt64? {
        supervised.values.flatMap { [$0.due, $0.closedAt.map { $0 + Self.closeGrace }] }.compactMap { $0 }.min()
    }
}

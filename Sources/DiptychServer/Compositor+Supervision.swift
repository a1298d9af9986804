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

extension Compositor {
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
            guard let delay = s.schedule.ended(status: status, at: now, policy: relaunch) else {
                logger.info("launched app ended; not relaunched", metadata: ["client.app": "\(s.label)", "client.role": "\(app.role.rawValue)", "exit": "\(how)"])
                supervised[app.role] = nil
                if let ghost = s.ghost { apply(shell.remove(ghost)) }
                continue
            }
            s.closedAt = nil
            supervised[app.role] = s
            logger.warning("launched app \(how); relaunching", metadata: [
                "client.app": "\(s.label)", "client.role": "\(app.role.rawValue)", "relaunch.in_ms": "\(delay)", "relaunch.attempt": "\(s.schedule.failures)",
            ])
        }
        for (role, s) in supervised.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard supervised[role]?.schedule.takeDue(at: now) == true else { continue }
            do { try launch(s.arguments, role: role, label: s.label, eventLog: s.eventLog) } catch {
                logger.warning("system error: cannot relaunch an app", metadata: ["client.app": "\(s.label)", "error": "\(error)"])
                supervised[role]?.schedule.launchFailed(at: now)
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
        supervised.values.flatMap { [$0.schedule.due, $0.closedAt.map { $0 + Self.closeGrace }] }.compactMap { $0 }.min()
    }
}

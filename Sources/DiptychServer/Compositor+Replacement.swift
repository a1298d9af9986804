// SPDX-License-Identifier: MIT
// The operator's changes to a role's app (`ctl set-app`, `ctl restart`). A new app is made
// before the old one is broken: it is launched beside it and takes its place (its pane, its
// arrangement, the keyboard) only once it said hello; until then, or if it never does within
// 10 s, the old app stays. Neither change counts as the app failing.

import DiptychCore
import DiptychLinux
import Glibc

extension Compositor {
    /// Starts `arguments` to take `role`'s place once it says hello; its command becomes the
    /// role's relaunch command. `answer` is called once: nil when the new app took the place,
    /// else why the old app stays.
    public func setApp(_ role: Role, arguments: [String], label: String, eventLog: String? = nil, answer: @escaping (String?) -> Void) {
        guard supervision.candidates[role] == nil else { return answer("an app is already on its way to the \(role.rawValue) role") }
        let id = clients.newClientID()
        do {
            let socket = try launcher.launch(arguments, role: role, label: label, client: id, socketPath: socketPath, standing: .candidate)
            for failure in launcher.takeFailures() { logger.warning("system error: \(failure)") }
            let session = try register(socket, id: id, role: role, label: label)
            session.connection.eventLog = eventLog
        } catch {
            launcher.forget(id)
            return answer("cannot start '\(label)': \(error)")
        }
        let deadline = policyClock.milliseconds + Supervision.candidateTimeout
        supervision.addCandidate(.init(client: id, arguments: arguments, label: label, eventLog: eventLog, deadline: deadline, answer: answer), for: role)
        logger.info("launched an app to take a role's place", metadata: ["client.role": "\(role.rawValue)", "client.app": "\(label)"])
    }

    /// Ends `role`'s launched app and its descendants (SIGTERM) to have it start again at
    /// once, whatever the relaunch policy, without counting it as a failure. False when no app
    /// was launched for it.
    public func restart(_ role: Role) -> Bool {
        guard let app = launcher.app(role) else { return false }
        supervision.restartRequested(role)
        for pid in [app.process.pid] + ProcessMemory.tree(of: app.process.pid) { kill(pid, SIGTERM) }
        return true
    }

    /// A `ctl set-app` app said hello: it takes its role's place (the old app's pane, or its
    /// placeholder), the old app is closed and stopped. Nil when `c` is no candidate, or there
    /// is no app in the role to replace (it then joins as any launched app).
    func takeOver(_ c: ClientSession) -> [ShellEffect]? {
        guard let role = c.launchRole, supervision.candidates[role]?.client == c.id, let candidate = supervision.takeCandidate(role) else { return nil }
        let now = policyClock.milliseconds
        let retired = launcher.promote(c.id, at: now)
        let ghost = supervision.replaced(role, by: candidate, at: now)
        if let retired { kill(retired.process.pid, SIGTERM) }
        candidate.answer(nil)
        logger.info("an app took a role's place", metadata: ["client.role": "\(role.rawValue)", "client.app": "\(candidate.label)"])
        let old = desk.app(role)
        if let previous = old.flatMap({ session($0) }) {
            // Its last frame stays on screen until the new app draws (break-before-make for an
            // app that must wait for the old one to go: a web app on the same data directory).
            if c.surface == nil, let last = previous.surface?.image.pixels {
                let copy = last.copy()
                c.showStandIn(copy, ref: ImageRef(id: clients.newImageID(), width: copy.width, height: copy.height))
            }
            previous.replaced = true
            previous.setAdmitted(at: nil)
            previous.close(reason: "replaced by another app (ctl set-app)")
        }
        _ = supervision.takeGhost(role)
        guard let place = ghost ?? old else { return nil }
        return desk.replace(place, with: c.app, requiresFullScreen: c.requiresFullScreen)
    }

    /// What became of the apps on their way in or out: a candidate that exited, closed its
    /// connection or did not say hello in time is stopped (the old app stays); a replaced app
    /// that has not exited after its grace is killed. Every one that exited is reaped.
    func superviseReplacements() {
        let now = policyClock.milliseconds
        for app in launcher.apps {
            switch app.standing {
            case .current:
                continue
            case .retired(let since):
                if app.process.poll() != nil || now >= since + Supervision.closeGrace {
                    app.process.kill()
                    launcher.forget(app.client)
                }
            case .candidate:
                // A candidate whose connection closed is given a moment to exit, so that what
                // the operator is told does not depend on which the compositor saw first.
                let status = app.process.poll() ?? (clients[app.client] == nil ? app.process.wait(milliseconds: 200) : nil)
                let why: String
                if let status {
                    why = "'\(app.label)' \(status >= 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)") before it said hello"
                } else if clients[app.client] == nil {
                    why = "'\(app.label)' closed its connection before it said hello"
                } else if let c = supervision.candidates[app.role], now >= c.deadline {
                    why = "'\(app.label)' did not say hello within \(Supervision.candidateTimeout / 1000) s"
                } else {
                    continue
                }
                clients[app.client]?.close(reason: why)
                app.process.kill()
                launcher.forget(app.client)
                supervision.takeCandidate(app.role)?.answer("\(why); the \(app.role.rawValue) app stays")
                logger.warning("an app did not take a role's place", metadata: ["client.role": "\(app.role.rawValue)", "error": "\(why)"])
            }
        }
    }
}

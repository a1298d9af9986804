// SPDX-License-Identifier: MIT
// Launching apps: each runs as its own process holding one end of a socket pair as fd 3, and
// is reaped here. Closing asks them to stop and waits a grace period; letting go kills them.

import DiptychCore
import DiptychLinux

/// The apps a compositor launched. Confined to the compositor's thread. Apps still running
/// when it goes away are killed by `ChildProcess`'s deinit, never waited for.
final class AppLauncher {
    /// One launched app.
    struct App {
        var role: Role
        var label: String
        var client: ClientID
        var process: ChildProcess
        var standing = Standing.current
        /// Its own cgroup, under a delegated subtree (nil: none).
        var cgroup: AppCgroup?
    }

    /// Where a launched app stands in its role: the role's app, one started to take its place
    /// (`ctl set-app`) that has not said hello yet, or one replaced and on its way out (since
    /// the given time).
    enum Standing: Equatable {
        case current
        case candidate
        case retired(since: UInt64)
    }

    private(set) var apps: [App] = []
    /// The delegated cgroup v2 subtree the apps start in, each in a child of its own where the
    /// kernel holds it to its memory limit (nil: none, and `memory-limit` samples instead).
    var cgroup: DelegatedCgroup?
    /// Each role's memory limit (bytes), for the kernel where the apps have cgroups.
    var memoryLimits: [Role: Int] = [:] {
        didSet { for app in apps { app.cgroup?.limit(memoryLimits[app.role]) } }
    }
    /// Cgroups of apps that went, not removed yet (a process of theirs still exiting).
    private var leftovers: [AppCgroup] = []

    /// How many nice levels launched apps run below the compositor.
    static let appNiceness: Int32 = 5
    /// How the apps share the CPU, and who comes first (`AppLauncher+CPU.swift`).
    var cpu = CPUShare()

    /// Starts `arguments` as a separate process with the other end of a new socket pair as
    /// fd 3 (`$DIPTYCH_SOCKET_FD`), and `$DIPTYCH_SOCKET` naming `socketPath` if any. Returns
    /// the compositor's end, non-blocking.
    func launch(
        _ arguments: [String], role: Role, label: String, client: ClientID, socketPath: String?, standing: Standing = .current
    ) throws(SystemError) -> FileDescriptor {
        let (ours, theirs) = try UnixSocket.pair()
        let local = FileDescriptor(taking: ours), remote = FileDescriptor(taking: theirs)
        var environment = [RuntimeDirectory.inheritedSocketVariable: "3"]
        if let p = socketPath { environment[RuntimeDirectory.socketVariable] = p }
        let process = try ChildProcess(arguments: arguments, environment: environment, inheritedSocket: remote.rawValue, grouped: true)
        remote.close()
        // Into its own cgroup at once (what it starts later starts there), held to its limit.
        var cgroup: AppCgroup?
        if let tree = self.cgroup {
            do {
                let c = try tree.makeChild(role.rawValue)
                try c.add(process.pid)
                c.limit(memoryLimits[role])
                cgroup = c
            } catch {
                failures.append("cannot put \(label) into a cgroup of its own: \(error)")
            }
        }
        // Apps run a few nice levels below the compositor: an app woken by its frameDone does
        // not preempt the compositor mid-frame on a small machine (the reason desktop
        // compositors ask for real-time priority; lowering a child needs no privilege).
        process.lowerPriority(by: Self.appNiceness)
        try local.setNonBlocking()
        apps.append(App(role: role, label: label, client: client, process: process, standing: standing, cgroup: cgroup))
        if let app = apps.last { share(app) }
        return local
    }

    /// What went wrong with the apps' cgroups since the last call (for the log).
    private(set) var failures: [String] = []
    func takeFailures() -> [String] {
        defer { failures = [] }
        return failures
    }

    /// Forgets an app that exited and was reaped (it may be launched again): what is left in
    /// its cgroup is killed, and the cgroup removed.
    func forget(_ client: ClientID) {
        for app in apps where app.client == client { if let c = app.cgroup, !c.remove() { leftovers.append(c) } }
        apps.removeAll { $0.client == client }
        leftovers.removeAll { $0.remove() }
    }

    /// The app launched for `role`, if any (not one still to take its place, nor one replaced).
    func app(_ role: Role) -> App? { apps.first { $0.role == role && $0.standing == .current } }

    /// The candidate `client` becomes its role's app; the app it replaces, if any, is retired
    /// at `now` (returned).
    func promote(_ client: ClientID, at now: UInt64) -> App? {
        guard let i = apps.firstIndex(where: { $0.client == client }) else { return nil }
        let old = apps.firstIndex { $0.role == apps[i].role && $0.standing == .current }
        if let old { apps[old].standing = .retired(since: now) }
        apps[i].standing = .current
        return old.map { apps[$0] }
    }

    /// The exit status of the app launched for `role`, once it has exited (reaping it).
    func exitStatus(_ role: Role) -> Int32? { app(role)?.process.poll() }

    /// Kills every app at once (SIGKILL) and reaps them: for a compositor going away without
    /// a shutdown, which must not wait.
    func kill() {
        for app in apps { app.process.kill() }
        removeCgroups()
        apps.removeAll()
    }

    /// Kills what is left in the apps' cgroups and removes them.
    private func removeCgroups() {
        for c in apps.compactMap(\.cgroup) + leftovers { c.remove() }
        leftovers = []
    }

    /// Asks every app to stop (SIGTERM), waits up to `graceMilliseconds` in all for them to
    /// exit, kills the rest, and reaps them all.
    func close(graceMilliseconds: Int = 2000) {
        let deadline = MonotonicClock.milliseconds + UInt64(max(0, graceMilliseconds))
        for app in apps {
            let left = Int(deadline > MonotonicClock.milliseconds ? deadline - MonotonicClock.milliseconds : 0)
            if app.process.wait(milliseconds: left) == nil { app.process.terminate(graceMilliseconds: 200) }
        }
        removeCgroups()
        apps.removeAll()
    }
}

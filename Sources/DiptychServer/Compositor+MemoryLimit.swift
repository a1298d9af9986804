// SPDX-License-Identifier: MIT
// `memory-limit`: under a delegated cgroup v2 subtree (the unit's `Delegate=yes`) each app runs
// in a cgroup of its own whose `memory.max` is its limit: the kernel holds it there, and an app
// it kills for memory is relaunched (`superviseLaunchedApps`). Without one, the proportional set
// size of a launched app's process tree (a web app's WebKit processes included; its resident
// set where PSS cannot be read) is sampled every minute and when the app leaves the screen; an
// app past its limit is restarted at its next moment off screen, or a minute after the sample.
// The restart is the operator's kind (at once, whatever the relaunch policy), said in the log.
// A sample reads /proc (an app with a thousand children costs seconds), so it is taken off the
// loop: the loop asks, goes on, and looks at the answer on a later turn; `ctl status` shows the
// last answer and never waits for one.

import DiptychCore
import DiptychLinux
import Synchronization

/// Samples the apps' memory on a thread of its own, one sample at a time; the loop reads the
/// answers when they are there.
final class MemorySampler: Sendable {
    private struct State {
        var busy = false
        /// The answer of the sample that ended, not taken yet: each role's app (its pid) and
        /// its tree's bytes.
        var finished: [Role: (pid: Int32, bytes: Int)]?
        /// Each role's latest figure, with the pid it is of and how it was read (`pss`, `rss`).
        var latest: [Role: (pid: Int32, bytes: Int, source: String)] = [:]
    }
    private let state = Mutex(State())

    /// Starts sampling the trees rooted at `pids` (false: a sample is still running).
    @discardableResult
    func start(_ pids: [Role: Int32]) -> Bool {
        let began = state.withLock { s in
            guard !s.busy else { return false }
            s.busy = true
            return true
        }
        guard began else { return false }
        Task.detached { [self] in
            var out: [Role: (pid: Int32, bytes: Int, source: String)] = [:]
            for (role, pid) in pids { if let m = ProcessMemory.treeMemory(pid) { out[role] = (pid, m.bytes, m.source) } }
            state.withLock { s in
                s.busy = false
                s.finished = out.mapValues { ($0.pid, $0.bytes) }
                for role in pids.keys { s.latest[role] = out[role] }
            }
        }
        return true
    }

    var busy: Bool { state.withLock { $0.busy } }

    /// The answer of the sample that ended since the last call, if one did.
    func takeFinished() -> [Role: (pid: Int32, bytes: Int)]? {
        state.withLock { s in
            defer { s.finished = nil }
            return s.finished
        }
    }

    /// The latest figure (bytes, and how it was read) of `role`'s app `pid`, if it was sampled.
    func latest(_ role: Role, pid: Int32) -> (bytes: Int, source: String)? {
        state.withLock { s in s.latest[role].flatMap { $0.pid == pid ? ($0.bytes, $0.source) : nil } }
    }
}

/// When the apps' memory is sampled next, and the apps found past their limits (with when they
/// are restarted at the latest).
final class MemoryWatch {
    /// The most each role's app tree may hold (bytes).
    var limits: [Role: Int] = [:]
    var nextSample: UInt64?
    var over: [Role: UInt64] = [:]
    /// The roles on screen at the last look (an app leaving the screen is sampled).
    var onScreen: Set<Role> = []
    /// Roles to sample once the sample running ends.
    var wanted: Set<Role> = []
    let sampler = MemorySampler()
    /// How long an app past its limit may stay on screen.
    static let grace: UInt64 = 60_000
    /// Why the apps have no cgroups of their own (for `status`).
    var noCgroupReason = "not looked for"
}

extension Compositor {
    /// Samples and restarts as `memory-limit` says (each turn of the live loop).
    func watchMemory() {
        // (Under cgroups the kernel holds the limits.)
        guard !memoryWatch.limits.isEmpty, virtualTime == nil, launcher.cgroup == nil else { return }
        let now = policyClock.milliseconds
        let shown = Set(desk.shell.layout.panes.map(\.role).filter { desk.shell.app($0) != nil })
        let left = memoryWatch.onScreen.subtracting(shown)
        memoryWatch.onScreen = shown
        guard let next = memoryWatch.nextSample else {
            memoryWatch.nextSample = now + configuration.memorySampleInterval
            return
        }
        if now >= next {
            memoryWatch.nextSample = now + configuration.memorySampleInterval
            memoryWatch.wanted.formUnion(memoryWatch.limits.keys)
        } else if !left.isEmpty {
            memoryWatch.wanted.formUnion(left)
        }
        if let figures = memoryWatch.sampler.takeFinished() { judgeMemory(figures, at: now) }
        if !memoryWatch.wanted.isEmpty, startMemorySample(memoryWatch.wanted) { memoryWatch.wanted = [] }
        for (role, due) in memoryWatch.over.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !shown.contains(role) || now >= due {
            memoryWatch.over[role] = nil
            if restart(role) { logger.warning("app past its memory limit restarted", metadata: ["client.role": "\(role.rawValue)"]) }
        }
    }

    /// Starts sampling `roles`' launched app trees off the loop (false: one is running).
    private func startMemorySample(_ roles: Set<Role>) -> Bool {
        var pids: [Role: Int32] = [:]
        for role in roles { if let app = launcher.app(role) { pids[role] = app.process.pid } }
        return pids.isEmpty || memoryWatch.sampler.start(pids)
    }

    /// A sample's figures against the limits.
    private func judgeMemory(_ figures: [Role: (pid: Int32, bytes: Int)], at now: UInt64) {
        for role in figures.keys.sorted(by: { $0.rawValue < $1.rawValue }) where memoryWatch.over[role] == nil {
            // (A figure of an app that was replaced or relaunched since is no longer its role's.)
            guard let limit = memoryWatch.limits[role], let app = launcher.app(role), let figure = figures[role], figure.pid == app.process.pid,
                  figure.bytes > limit else { continue }
            let bytes = figure.bytes
            memoryWatch.over[role] = now + MemoryWatch.grace
            logger.warning("app past its memory limit; restarted when off screen or within a minute", metadata: [
                "client.role": "\(role.rawValue)", "client.app": "\(app.label)", "memory.pss_mb": "\(bytes >> 20)", "memory.limit_mb": "\(limit >> 20)",
            ])
        }
    }

    /// When the memory watch wants the loop next (ms): while a sample runs, every 50 ms to
    /// look for its answer.
    var memoryDeadline: UInt64? {
        guard !memoryWatch.limits.isEmpty, virtualTime == nil, launcher.cgroup == nil else { return nil }
        let polling = memoryWatch.sampler.busy || !memoryWatch.wanted.isEmpty ? policyClock.milliseconds + 50 : nil
        return ([memoryWatch.nextSample, polling] + memoryWatch.over.values.map { Optional($0) }).compactMap { $0 }.min()
    }

    /// New limits (a reload of the configuration), from the next sample on.
    public func setMemoryLimits(_ limits: [Role: Int]) {
        memoryWatch.limits = limits
        launcher.memoryLimits = limits
        memoryWatch.over = memoryWatch.over.filter { limits[$0.key] != nil }
    }

    /// What `role`'s launched app holds, in bytes: its cgroup's `memory.current`, else the PSS
    /// (or resident set) of it and its descendants as last sampled (nil: not sampled yet).
    /// Asking starts a sample off the loop (for the next ask): never waits.
    public func memoryBytes(_ role: Role) -> Int? {
        guard let app = launcher.app(role) else { return nil }
        if let c = app.cgroup { return c.current }
        sampleAppsMemory()
        return memoryWatch.sampler.latest(role, pid: app.process.pid)?.bytes
    }

    /// How `memoryBytes(role)` is read: `cgroup` (`memory.current`), `pss` or `rss` (nil: no
    /// figure yet).
    public func memorySource(_ role: Role) -> String? {
        guard let app = launcher.app(role) else { return nil }
        if app.cgroup != nil { return "cgroup" }
        return memoryWatch.sampler.latest(role, pid: app.process.pid)?.source
    }

    /// Starts the apps in cgroups of their own under `tree` (a delegated cgroup v2 subtree, the
    /// compositor already in its leaf), where the kernel holds them to their memory limits;
    /// nil: none, and why (for `status`).
    public func useCgroups(_ tree: DelegatedCgroup?, why: String) {
        launcher.cgroup = tree
        memoryWatch.noCgroupReason = why
    }

    /// Starts a sample of every launched app's memory off the loop (unless one runs).
    func sampleAppsMemory() {
        memoryWatch.wanted.formUnion(Role.allCases)
        if startMemorySample(memoryWatch.wanted) { memoryWatch.wanted = [] }
    }
}

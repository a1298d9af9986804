// SPDX-License-Identifier: MIT
// `memory-limit`: the proportional set size of a launched app's process tree (a web app's WebKit
// processes included) is sampled every minute and when the app leaves the screen; an app past
// its limit is restarted at its next moment off screen, or a minute after the sample. The
// restart is the operator's kind (at once, whatever the relaunch policy), said in the log.

import DiptychCore
import DiptychLinux

/// When the apps' memory is sampled next, and the apps found past their limits (with when they
/// are restarted at the latest).
struct MemoryWatch {
    /// The most each role's app tree may hold (bytes).
    var limits: [Role: Int] = [:]
    var nextSample: UInt64?
    var over: [Role: UInt64] = [:]
    /// The roles on screen at the last look (an app leaving the screen is sampled).
    var onScreen: Set<Role> = []
    /// How long an app past its limit may stay on screen.
    static let grace: UInt64 = 60_000
}

extension Compositor {
    /// Samples and restarts as `memory-limit` says (each turn of the live loop).
    func watchMemory() {
        guard !memoryWatch.limits.isEmpty, virtualTime == nil else { return }
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
            sampleMemory(Set(memoryWatch.limits.keys), at: now)
        } else if !left.isEmpty {
            sampleMemory(left, at: now)
        }
        for (role, due) in memoryWatch.over.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !shown.contains(role) || now >= due {
            memoryWatch.over[role] = nil
            if restart(role) { logger.warning("app past its memory limit restarted", metadata: ["client.role": "\(role.rawValue)"]) }
        }
    }

    /// The PSS of each role's launched app tree, against its limit.
    private func sampleMemory(_ roles: Set<Role>, at now: UInt64) {
        for role in roles.sorted(by: { $0.rawValue < $1.rawValue }) where memoryWatch.over[role] == nil {
            guard let limit = memoryWatch.limits[role], let app = launcher.app(role), let bytes = ProcessMemory.treeBytes(app.process.pid), bytes > limit else { continue }
            memoryWatch.over[role] = now + MemoryWatch.grace
            logger.warning("app past its memory limit; restarted when off screen or within a minute", metadata: [
                "client.role": "\(role.rawValue)", "client.app": "\(app.label)", "memory.pss_mb": "\(bytes >> 20)", "memory.limit_mb": "\(limit >> 20)",
            ])
        }
    }

    /// When the memory watch wants the loop next (ms).
    var memoryDeadline: UInt64? {
        guard !memoryWatch.limits.isEmpty, virtualTime == nil else { return nil }
        return ([memoryWatch.nextSample] + memoryWatch.over.values.map { Optional($0) }).compactMap { $0 }.min()
    }

    /// New limits (a reload of the configuration), from the next sample on.
    public func setMemoryLimits(_ limits: [Role: Int]) {
        memoryWatch.limits = limits
        memoryWatch.over = memoryWatch.over.filter { limits[$0.key] != nil }
    }

    /// The PSS of `role`'s launched app and its descendants, in bytes.
    public func memoryBytes(_ role: Role) -> Int? { launcher.app(role).flatMap { ProcessMemory.treeBytes($0.process.pid) } }
}

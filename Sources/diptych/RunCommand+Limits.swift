// SPDX-License-Identifier: MIT
// `run`'s memory limits (held by the kernel under a delegated cgroup v2 subtree, else sampled)
// and its keyboard languages, read from the flags and checked.

import DiptychCore
import DiptychLinux
import DiptychServer
import Logging

extension RunCommand {
    /// Under a delegated cgroup v2 subtree (the unit's `Delegate=yes`), the compositor moves into
    /// its leaf and each app starts in a cgroup of its own, held by the kernel to its memory
    /// limit; otherwise the limits are sampled. Said once in the log when limits are set.
    func useCgroups(_ compositor: Compositor, limits: [Role: Int], logger: Logger) {
        let (found, why) = DelegatedCgroup.find()
        var tree = found, reason = why
        if let t = found {
            do { try t.takeLeaf() } catch {
                tree = nil
                reason = "cannot take a leaf of \(t.path): \(error)"
            }
        }
        compositor.useCgroups(tree, why: reason)
        compositor.setMemoryLimits(limits)
        guard !limits.isEmpty else { return }
        if let tree {
            logger.info("memory limits held by the kernel: each app in a cgroup of its own", metadata: ["cgroup": "\(tree.path)"])
        } else {
            logger.warning("memory limits sampled every minute, not held by the kernel: \(reason)")
        }
    }

    /// The memory limits by role, in bytes.
    func memoryLimits() throws -> [Role: Int] {
        var limits: [Role: Int] = [:]
        for (role, mb, flag) in [(Role.primary, memoryLimitPrimary ?? memoryLimit, "--memory-limit-primary"), (.secondary, memoryLimitSecondary ?? memoryLimit, "--memory-limit-secondary")] {
            guard let mb else { continue }
            guard (16...1_048_576).contains(mb) else { throw UsageError("\(memoryLimit == mb ? "--memory-limit" : flag) must be from 16 to 1048576 MB") }
            limits[role] = mb << 20
        }
        return limits
    }
}

extension RunCommand {
    /// `--keyboard-layouts`' languages, checked (none: not given).
    func keyboardLanguages() throws -> [KeyboardLanguage] {
        guard let keyboardLayouts else { return [] }
        return try KeyboardLanguage.list(parsing: keyboardLayouts).mapError { UsageError("--keyboard-layouts: \($0)") }.get()
    }
}

// SPDX-License-Identifier: MIT
// A process that adopts its descendants' orphans (PR_SET_CHILD_SUBREAPER): an app that forks
// twice cannot leave the compositor's process tree, so "is this one of the apps?" is answered by
// walking up to the compositor, and the adopted orphans are reaped here when they exit.

import CLinuxShims
import Glibc

public enum Orphans {
    /// Makes this process adopt its descendants' orphans. False when the kernel refused.
    @discardableResult
    public static func adopt() -> Bool { dp_set_child_subreaper() == 0 }

    /// Whether this process adopts its descendants' orphans.
    public static var adopting: Bool { dp_child_subreaper() == 1 }

    /// Reaps the exited children that are not in `known` (those are reaped by their owners),
    /// at most `limit` of them; returns how many were reaped. Only reads /proc: nothing waits.
    @discardableResult
    public static func reap(except known: Set<Int32>) -> Int {
        var reaped = 0
        for pid in children() where !known.contains(pid) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped += 1 }
        }
        // (Where /proc has no children lists: the exited children one by one, up to the first
        // that is known, which its owner reaps.)
        while true {
            let pid = dp_exited_child()
            guard pid > 0, !known.contains(pid) else { break }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { break }
            reaped += 1
        }
        return reaped
    }

    /// This process's children (every thread's), from /proc/self/task/*/children.
    public static func children() -> [Int32] {
        guard let dir = opendir("/proc/self/task") else { return [] }
        defer { closedir(dir) }
        var out: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard Int32(name) != nil, let bytes = try? Files.read("/proc/self/task/\(name)/children", limit: 1 << 16) else { continue }
            out += String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
        }
        return out
    }

    /// Ends every child left (the adopted orphans of apps already gone, and theirs as they are
    /// adopted in turn): SIGTERM, then SIGKILL after `graceMilliseconds`; all reaped. For the
    /// compositor's shutdown: nothing an app started outlives it.
    public static func endAll(graceMilliseconds: Int) {
        guard !children().isEmpty else { return }
        let deadline = MonotonicClock.milliseconds + UInt64(max(0, graceMilliseconds))
        var signalled: Set<Int32> = []
        while MonotonicClock.milliseconds < deadline {
            let left = children()
            if left.isEmpty { return }
            for pid in left where signalled.insert(pid).inserted { kill(pid, SIGTERM) }
            reap(except: [])
            usleep(10_000)
        }
        for _ in 0..<20 {
            let left = children()
            if left.isEmpty { return }
            for pid in left { kill(pid, SIGKILL) }
            usleep(10_000)
            reap(except: [])
        }
    }
}

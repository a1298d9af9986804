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
    public static func reap(except known: Set<Int32>, limit: Int = 64) -> Int {
        var reaped = 0
        for pid in children() where !known.contains(pid) && reaped < limit {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { reaped += 1 }
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
}

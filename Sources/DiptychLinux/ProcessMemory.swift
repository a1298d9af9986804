// SPDX-License-Identifier: MIT
// What a process tree costs in memory: the proportional set size (PSS: each shared page
// divided among the processes that map it) of a process and all its descendants, from
// /proc/PID/smaps_rollup. A web app's WebKit processes are its children, so its tree is what
// it holds.

import Glibc

public enum ProcessMemory {
    /// The PSS of `pid` and its tree (`tree(of:)`) in bytes; nil when `pid` is gone.
    public static func treeBytes(_ pid: Int32) -> Int? { treeMemory(pid)?.bytes }

    /// What the tree of `pid` holds, in bytes, and how it was read: its PSS (`pss`), or where a
    /// process's smaps cannot be read (an app that is not dumpable, read by a compositor that
    /// is not root) its resident set from `statm` (`rss`: shared pages counted in each
    /// process). Nil when `pid` is gone.
    public static func treeMemory(_ pid: Int32) -> (bytes: Int, source: String)? {
        let tree = [pid] + tree(of: pid)
        if let own = pssBytes(pid) { return (tree.dropFirst().reduce(own) { $0 + (pssBytes($1) ?? rssBytes($1) ?? 0) }, "pss") }
        guard let own = rssBytes(pid) else { return nil }
        return (tree.dropFirst().reduce(own) { $0 + (rssBytes($1) ?? 0) }, "rss")
    }

    /// The resident set of `pid` from /proc/PID/statm (readable for any process of this user,
    /// dumpable or not), in bytes.
    public static func rssBytes(_ pid: Int32) -> Int? {
        guard let bytes = try? Files.read("/proc/\(pid)/statm", limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Every process descending from `pid`, and every process of its process group (a launched
    /// app leads one: what it forked twice is re-parented away but stays in its group).
    public static func tree(of pid: Int32) -> [Int32] {
        var out = descendants(of: pid)
        var seen = Set(out)
        seen.insert(pid)
        for p in members(ofGroup: pid) where seen.insert(p).inserted {
            out.append(p)
            for d in descendants(of: p) where seen.insert(d).inserted { out.append(d) }
        }
        return out
    }

    /// The processes of process group `group`.
    public static func members(ofGroup group: Int32) -> [Int32] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var out: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard let p = Int32(name), p != group, stat(of: p)?.group == group else { continue }
            out.append(p)
        }
        return out
    }

    /// The PSS of one process in bytes (nil: gone or unreadable).
    public static func pssBytes(_ pid: Int32) -> Int? {
        guard let bytes = try? Files.read("/proc/\(pid)/smaps_rollup", limit: 8192) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pss:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kB = Int(fields[1]) { return kB * 1024 }
        }
        return nil
    }

    /// Every process descending from `pid` (children, their children, …).
    public static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: [Int32]] = [:]
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard let child = Int32(name), let parent = parent(of: child) else { continue }
            parents[parent, default: []].append(child)
        }
        var out: [Int32] = [], queue = [pid]
        while let p = queue.popLast() {
            for c in parents[p] ?? [] where !out.contains(c) {
                out.append(c)
                queue.append(c)
            }
        }
        return out
    }

    /// The parent of `pid` (from /proc/PID/stat), nil when it is gone.
    public static func parent(of pid: Int32) -> Int32? { stat(of: pid)?.parent }

    /// The parent and process group of `pid` (from /proc/PID/stat), nil when it is gone.
    static func stat(of pid: Int32) -> (parent: Int32, group: Int32)? {
        guard let fields = statFields(of: pid), fields.count > 2, let parent = Int32(fields[1]), let group = Int32(fields[2]) else { return nil }
        return (parent, group)
    }

    /// The fields of /proc/PID/stat after the name (the first is the state, field 3), nil when
    /// it is gone. (The name may hold spaces and parentheses: it ends at the last ")".)
    static func statFields(of pid: Int32) -> [Substring]? {
        guard let bytes = try? Files.read("/proc/\(pid)/stat", limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}

// SPDX-License-Identifier: MIT
// Nice values for a launched app's whole tree, every thread of every process (nice is per
// thread on Linux), and whether this process may raise one again (lowering a priority needs
// nothing; raising it back needs CAP_SYS_NICE or an RLIMIT_NICE that reaches the value, which
// the kiosk unit's `LimitNICE=` gives).

import Glibc

public enum ProcessPriority {
    /// This process's nice value (0 when it cannot be read).
    public static var mine: Int32 {
        errno = 0
        let n = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? n : 0
    }

    /// Sets `nice` on every thread of `pid`, of its descendants and of its process group (see
    /// `ProcessMemory.tree`): WebKit's web and network processes with the web client that started
    /// them, whatever session they are in. False if a thread refused (one that went meanwhile is
    /// not counted).
    @discardableResult
    public static func setNice(_ nice: Int32, tree pid: Int32) -> Bool {
        var ok = true
        for p in [pid] + ProcessMemory.tree(of: pid) {
            for tid in threads(of: p) where setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), nice) != 0 && errno != ESRCH {
                ok = false
            }
        }
        return ok
    }

    /// The threads of `pid` (its `/proc/PID/task`; just `pid` when that cannot be read).
    public static func threads(of pid: Int32) -> [Int32] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [pid] }
        defer { closedir(dir) }
        var out: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if let t = Int32(name) { out.append(t) }
        }
        return out.isEmpty ? [pid] : out
    }

    /// The nice value of thread `tid` (field 19 of `/proc/TID/stat`), nil when it is gone.
    public static func nice(of tid: Int32) -> Int32? {
        // (The fields after the name start at field 3: nice is the 17th of them.)
        guard let fields = ProcessMemory.statFields(of: tid), fields.count > 16 else { return nil }
        return Int32(fields[16])
    }

    /// Whether this process may set a nice value as low as `nice` (CAP_SYS_NICE in its
    /// effective set, or RLIMIT_NICE of at least 20 - `nice`).
    public static func mayRaise(to nice: Int32) -> Bool {
        if hasCapability(23) { return true }  // CAP_SYS_NICE
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(__RLIMIT_NICE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == rlim_t.max || limit.rlim_cur >= rlim_t(max(0, 20 - nice))
    }

    /// Whether capability `bit` is in this process's effective set (`CapEff` in
    /// `/proc/self/status`).
    public static func hasCapability(_ bit: Int) -> Bool {
        guard let bytes = try? Files.read("/proc/self/status", limit: 16384) else { return false }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CapEff:") {
            let hex = line.dropFirst("CapEff:".count).drop { $0 == "\t" || $0 == " " }
            guard let mask = UInt64(hex, radix: 16) else { return false }
            return mask & (1 << UInt64(bit)) != 0
        }
        return false
    }
}

// SPDX-License-Identifier: MIT
// A cgroup v2 subtree delegated to this process (systemd's `Delegate=yes`, or a test's
// subtree given to the kiosk user): the compositor moves itself into a leaf of it and starts
// each app in a child of its own, where the kernel enforces the app's memory limit
// (`memory.max`, `memory.high`) and says when it killed (`memory.events`), and shares the CPU
// by weight (`cpu.weight`, where the cpu controller is delegated too). Never the host's
// root tree, never a cgroup v1 host, never a tree this process may not write.

import Glibc

/// The delegated subtree this process runs in.
public final class DelegatedCgroup {
    /// Its folder (`/sys/fs/cgroup/system.slice/diptych-kiosk.service`).
    public let path: String
    /// How many children were made (each app launch gets a new name).
    private var made = 0
    /// The cpu controller is the children's too (`takeLeaf`): each app's `cpu.weight` holds.
    public private(set) var sharesCPU = false
    /// Why not, when it is not.
    public private(set) var cpuWhy = "not taken yet"
    /// The compositor's own leaf's `cpu.weight`: ahead of the apps (the render server first).
    public static let compositorWeight = 900

    private init(path: String) { self.path = path }

    /// The subtree this process may manage, or nil with why not: `/proc/self/cgroup` names a
    /// cgroup v2 path other than the root, on a cgroup2 mount, whose `cgroup.procs` and
    /// `cgroup.subtree_control` this process may write, with the memory controller there.
    public static func find() -> (cgroup: DelegatedCgroup?, why: String) {
        guard let text = try? Files.read("/proc/self/cgroup", limit: 65536) else { return (nil, "no /proc/self/cgroup") }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        guard let unified = lines.first(where: { $0.hasPrefix("0::") }) else { return (nil, "no cgroup v2 hierarchy") }
        let own = String(unified.dropFirst(3))
        // A hybrid or v1 host (another hierarchy holds the memory controller) is not ours to use.
        if lines.contains(where: { !$0.hasPrefix("0::") && $0.split(separator: ":").dropFirst().first?.split(separator: ",").contains("memory") == true }) {
            return (nil, "the memory controller is on a cgroup v1 hierarchy")
        }
        guard own != "/", !own.isEmpty else { return (nil, "this process runs in the root cgroup (no delegated subtree)") }
        guard let mount = cgroup2Mount() else { return (nil, "no cgroup2 file system mounted") }
        let path = mount + own
        guard access(path + "/cgroup.procs", W_OK) == 0, access(path + "/cgroup.subtree_control", W_OK) == 0 else {
            return (nil, "\(path) is not delegated to this user (Delegate=yes)")
        }
        guard controllers(of: path).contains("memory") else {
            return (nil, "the memory controller is not enabled for \(path)")
        }
        return (DelegatedCgroup(path: path), "delegated: \(path)")
    }

    /// The controllers cgroup `path` may give its children (`cgroup.controllers`).
    static func controllers(of path: String) -> [Substring] {
        let text = (try? Files.read(path + "/cgroup.controllers", limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    }

    /// Where cgroup2 is mounted (from /proc/self/mountinfo).
    static func cgroup2Mount() -> String? {
        guard let text = try? Files.read("/proc/self/mountinfo", limit: 1 << 20) else { return nil }
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            let halves = String(line).components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    /// Moves this process into the leaf `compositor` and lets the children have the memory
    /// controller (a cgroup with processes in it cannot give controllers to its children), and
    /// the cpu controller where it is delegated (`sharesCPU`; without it, nice values).
    public func takeLeaf() throws(SystemError) {
        let leaf = path + "/compositor"
        if mkdir(leaf, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir \(leaf)") }
        try Self.write("\(getpid())", to: leaf + "/cgroup.procs")
        try Self.write("+memory", to: path + "/cgroup.subtree_control")
        guard Self.controllers(of: path).contains("cpu") else {
            cpuWhy = "the cpu controller is not delegated to \(path)"
            return
        }
        do throws(SystemError) {
            try Self.write("+cpu", to: path + "/cgroup.subtree_control")
            try Self.write("\(Self.compositorWeight)", to: leaf + "/cpu.weight")
            sharesCPU = true
            cpuWhy = "cpu.weight"
        } catch {
            cpuWhy = "cannot enable the cpu controller: \(error)"
        }
    }

    /// A new child for an app launch, named `app-ROLE-N`.
    public func makeChild(_ name: String) throws(SystemError) -> AppCgroup {
        made += 1
        let child = "\(path)/app-\(name)-\(made)"
        if mkdir(child, 0o755) != 0 { throw SystemError("mkdir \(child)") }
        let c = AppCgroup(path: child)
        // The kernel's out-of-memory kill takes the whole app (a web app's WebKit processes too).
        try? Self.write("1", to: child + "/memory.oom.group")
        return c
    }

    static func write(_ text: String, to file: String) throws(SystemError) {
        let fd = open(file, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open \(file)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw SystemError("write \(file)") }
    }
}

/// An app's own cgroup.
public struct AppCgroup: Sendable {
    public let path: String

    /// Puts `pid` (just launched) into it.
    public func add(_ pid: Int32) throws(SystemError) { try DelegatedCgroup.write("\(pid)", to: path + "/cgroup.procs") }

    /// The kernel's limit: `memory.max` at `bytes` (the app is killed past it), `memory.high` a
    /// sixteenth below (it is reclaimed first); nil lifts both.
    public func limit(_ bytes: Int?) {
        try? DelegatedCgroup.write(bytes.map { "\($0 - $0 / 16)" } ?? "max", to: path + "/memory.high")
        try? DelegatedCgroup.write(bytes.map { "\($0)" } ?? "max", to: path + "/memory.max")
    }

    /// Its share of the CPU against the other apps and the compositor (`cpu.weight`, 1 to
    /// 10000; 100 is the kernel's default). False if it could not be written.
    @discardableResult
    public func weigh(_ weight: Int) -> Bool { (try? DelegatedCgroup.write("\(weight)", to: path + "/cpu.weight")) != nil }

    /// Its `cpu.weight` now (nil: no cpu controller).
    public var weight: Int? { Self.number(path + "/cpu.weight") }

    /// What it holds now (`memory.current`, bytes).
    public var current: Int? { Self.number(path + "/memory.current") }

    /// How many times the kernel killed in it for memory (`memory.events`' `oom_kill`).
    public var oomKills: Int {
        guard let text = try? Files.read(path + "/memory.events", limit: 4096) else { return 0 }
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int(line.dropFirst("oom_kill ".count)) ?? 0
        }
        return 0
    }

    /// Kills every process in it (`cgroup.kill`) and removes it once empty (false: not yet).
    @discardableResult
    public func remove() -> Bool {
        try? DelegatedCgroup.write("1", to: path + "/cgroup.kill")
        return rmdir(path) == 0 || errno == ENOENT
    }

    static func number(_ file: String) -> Int? {
        guard let text = try? Files.read(file, limit: 64) else { return nil }
        return Int(String(decoding: text, as: UTF8.self).trimmingWhitespace)
    }
}

extension String {
    fileprivate func components(separatedBy separator: String) -> [String] {
        var out: [String] = []
        var rest = Substring(self)
        while let r = rest.firstRange(of: separator) {
            out.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        out.append(String(rest))
        return out
    }

    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0 == " " || $0 == "\n" }).reversed().drop(while: { $0 == " " || $0 == "\n" }).reversed())
    }
}

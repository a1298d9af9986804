// SPDX-License-Identifier: MIT
// Child processes: spawn with an inherited socket, reap, and stop.

import CLinuxShims
import Glibc

/// A child process we started. Reaping is explicit: call `wait`/`poll` or `terminate`.
public final class ChildProcess {
    public let pid: Int32
    /// The command line, for messages.
    public let arguments: [String]
    public private(set) var exitStatus: Int32?

    /// Spawns `arguments` (argv[0] searched in PATH) with `environment` added to ours, and
    /// `inheritedSocket` (if any) as fd 3 in the child.
    /// Lowers the process's scheduling priority by `levels` nice levels from this process's
    /// (best effort: a process that already exited is left alone).
    public func lowerPriority(by levels: Int32) {
        errno = 0
        let mine = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard errno == 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), min(19, mine + levels))
    }

    /// `grouped`: the child in a process group of its own (see `ProcessMemory.tree`).
    public init(arguments: [String], environment: [String: String] = [:], inheritedSocket: Int32? = nil, grouped: Bool = false) throws(SystemError) {
        precondition(!arguments.isEmpty)
        var env: [String] = []
        var current = environ
        while let p = current.pointee {
            let entry = String(cString: p)
            let key = String(entry.prefix { $0 != "=" })
            if environment[key] == nil { env.append(entry) }
            current += 1
        }
        for (k, v) in environment.sorted(by: { $0.key < $1.key }) { env.append("\(k)=\(v)") }

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        let pid = argv.map { UnsafePointer($0) }.withUnsafeBufferPointer { a in
            envp.map { UnsafePointer($0) }.withUnsafeBufferPointer { e in
                grouped ? dp_spawn_grouped(a.baseAddress, e.baseAddress, inheritedSocket ?? -1) : dp_spawn(a.baseAddress, e.baseAddress, inheritedSocket ?? -1)
            }
        }
        if pid < 0 { throw SystemError("spawn \(arguments[0])") }
        self.pid = pid
        self.arguments = arguments
    }

    /// Reaps the child if it has exited; returns its status (exit code, or 128 + signal).
    @discardableResult
    public func poll() -> Int32? {
        if let s = exitStatus { return s }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return nil }
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    /// Waits up to `milliseconds` for the child to exit; returns its status or nil.
    @discardableResult
    public func wait(milliseconds: Int) -> Int32? {
        let deadline = MonotonicClock.milliseconds + UInt64(max(0, milliseconds))
        while true {
            if let s = poll() { return s }
            if MonotonicClock.milliseconds >= deadline { return nil }
            usleep(2000)
        }
    }

    /// Asks the child to stop (SIGTERM), then kills it (SIGKILL) after `graceMilliseconds`.
    @discardableResult
    public func terminate(graceMilliseconds: Int = 500) -> Int32 {
        if let s = poll() { return s }
        Glibc.kill(pid, SIGTERM)
        if let s = wait(milliseconds: graceMilliseconds) { return s }
        Glibc.kill(pid, SIGKILL)
        return wait(milliseconds: 5000) ?? 137
    }

    /// Kills the child at once (SIGKILL) and reaps it; returns its status.
    @discardableResult
    public func kill() -> Int32 {
        if let s = poll() { return s }
        Glibc.kill(pid, SIGKILL)
        return wait(milliseconds: 1000) ?? 137
    }

    /// A child still running when its owner lets go is killed, not asked: a deinit must not
    /// wait out a grace period (owners that want one call `terminate` first).
    deinit {
        if exitStatus == nil { kill() }
    }
}

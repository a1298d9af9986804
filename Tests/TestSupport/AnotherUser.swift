// SPDX-License-Identifier: MIT
// A kiosk run as another user (as the unit runs it, not root): `diptych run` under `setpriv`,
// in a runtime folder of that user's.

import DiptychLinux
import Glibc

public enum AnotherUser {
    /// `arguments` run as `uid` (its own group, no others), keeping `capabilities` (ambient).
    public static func command(_ uid: UInt32, capabilities: [String] = [], _ arguments: [String]) -> [String] {
        let caps = capabilities.map { "+" + $0 }.joined(separator: ",")
        return ["setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
            + (capabilities.isEmpty ? [] : ["--inh-caps=\(caps)", "--ambient-caps=\(caps)"]) + arguments
    }

    /// `diptych run --backend headless --device ipad --status-bar off` with `flags` as user
    /// `uid`, its runtime folder `dir/run` (made, that user's; `dir` made searchable), its
    /// control socket `dir/run/ctl`; `capabilities`: what it keeps (e.g. `sys_nice`, which a
    /// unit's `LimitNICE=` grants in part, for a test whose root may not raise hard limits);
    /// `before`: a command it runs under as root (`chrt -r 10`, as the unit's
    /// `CPUSchedulingPolicy=rr`). Returns the process and the runtime folder.
    public static func kiosk(
        _ uid: UInt32, in dir: String, flags: [String], environment: [String: String] = [:], capabilities: [String] = [], before: [String] = []
    ) throws -> (process: ChildProcess, run: String) {
        let run = "\(dir)/run"
        guard chmod(dir, 0o711) == 0, mkdir(run, 0o700) == 0, chown(run, uid, uid) == 0 else { throw SystemError("prepare \(run)") }
        let process = try ChildProcess(
            arguments: before + command(uid, capabilities: capabilities, [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--status-bar", "off", "--ctl-socket", "\(run)/ctl"] + flags),
            environment: ["DIPTYCH_SOCKET": "\(run)/sock", "XDG_RUNTIME_DIR": run].merging(environment) { $1 })
        return (process, run)
    }
}

// SPDX-License-Identifier: MIT
// `run`'s control socket: what `diptych ctl` may ask, answered on the compositor's loop.

import DiptychCore
import DiptychLinux
import DiptychServer
import Glibc
import Logging

extension RunCommand {
    /// Listens for `diptych ctl` at `--ctl-socket` (default: the app socket's path + .ctl).
    func startControl(_ compositor: Compositor, repaint: RepaintLoop, logger: Logger) throws -> ControlServer {
        let path = ctlSocket ?? "\(compositor.socketPath ?? "\(Files.environment("XDG_RUNTIME_DIR") ?? "/tmp")/diptych-0").ctl"
        var group: gid_t?
        if let name = ctlGroup {
            guard let g = getgrnam(name) else { throw UsageError("--ctl-group: no group '\(name)'") }
            group = g.pointee.gr_gid
        }
        let started = MonotonicClock.milliseconds
        let handlers = ControlServer.Handlers(
            command: { words in
                switch words[0] {
                case "status":
                    let status = compositor.controlStatus(uptimeSeconds: Double(MonotonicClock.milliseconds - started) / 1000)
                    if words.count > 1 { return .success(status.serialized) }
                    return .success(Self.describe(status))
                case "stats":
                    let figures = repaint.frames.statistics
                    if words.count > 1, words[1] == "--prometheus" {
                        return .success(ControlStatistics.prometheus(figures, protocolErrors: compositor.protocolErrors.count))
                    }
                    return .success(ControlStatistics.json(figures).serialized)
                case "orientation":
                    guard words.count == 2, let o = try? Orientation.named(words[1]) else { return .failure(ControlError("orientation: landscape or portrait", usage: true)) }
                    compositor.rotate(to: o)
                    return .success("")
                case "restart":
                    guard words.count == 2, let role = Role(rawValue: words[1]) else { return .failure(ControlError("restart: primary or secondary", usage: true)) }
                    return compositor.restart(role) ? .success("") : .failure(ControlError("no app was launched as the \(role.rawValue)"))
                default:
                    return .failure(ControlError("unknown command '\(words[0])'", usage: true))
                }
            },
            screenshot: { compositor.screenshot(screen: $0) })
        do {
            return try ControlServer(path: path, group: group, compositor: compositor, handlers: handlers, logger: logger)
        } catch {
            throw RuntimeFailure("cannot open the control socket: \(error)")
        }
    }

    /// `status` for a person: a line a fact.
    static func describe(_ status: JSONValue) -> String {
        var lines = [
            "device \(status["device"]?.stringValue ?? "?"), \(status["orientation"]?.stringValue ?? "?"), rotated \(status["rotate"]?.intValue ?? 0)°, \(status["arrangement"]?.stringValue ?? "?")",
            "up \(status["uptime_s"]?.doubleValue ?? 0) s, \((status["memory_bytes"]?.intValue ?? 0) / 1_048_576) MiB resident, \(status["relaunches"]?.intValue ?? 0) relaunches",
        ]
        for p in status["panes"]?.arrayValue ?? [] {
            let pid = p["pid"]?.intValue.map { "pid \($0)" } ?? "not launched here"
            lines.append("\(p["role"]?.stringValue ?? "?"): \(p["app"]?.stringValue ?? "none") (\(pid), \(p["state"]?.stringValue ?? "?"))")
        }
        return lines.joined(separator: "\n")
    }
}

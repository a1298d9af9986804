// SPDX-License-Identifier: MIT
// `run`'s control socket: what `diptych ctl` may ask, answered on the compositor's loop.

import DiptychCore
import DiptychLinux
import DiptychServer
import Glibc
import Logging

extension RunCommand {
    /// Listens for `diptych ctl` on the socket systemd passed (`diptych-ctl.socket`), else at
    /// `--ctl-socket` (default: the app socket's path + .ctl).
    func startControl(_ compositor: Compositor, repaint: RepaintLoop, reload: ConfigReload, logger: Logger) throws -> ControlServer {
        let activated = ControlServer.takeActivatedSocket()
        let path = activated?.path ?? ctlSocket ?? "\(compositor.socketPath ?? "\(Files.environment("XDG_RUNTIME_DIR") ?? "/tmp")/diptych-0").ctl"
        var group: gid_t?
        if let name = ctlGroup {
            guard let g = getgrnam(name) else { throw UsageError("--ctl-group: no group '\(name)'") }
            group = g.pointee.gr_gid
        }
        let started = MonotonicClock.milliseconds
        let handlers = ControlServer.Handlers(
            command: { words, answer in
                if words[0] == "set-app" {
                    return setApp(words, compositor) { result in
                        if case .success = result { reload.changedByControl(words[1]) }
                        answer(result)
                    }
                }
                if words[0] == "reload" { return reload.reload(answer) }
                let result = Self.carryOut(words, compositor, repaint: repaint, uptime: Double(MonotonicClock.milliseconds - started) / 1000, config: reload.statusFields)
                // What ctl changed that the file also says: they differ until the next reload.
                if case .success = result, ["arrangement", "rotate", "orientation"].contains(words[0]) { reload.changedByControl(words[0]) }
                answer(result)
            },
            screenSize: { compositor.screenSize($0) },
            screenshot: { compositor.screenshot(screen: $0, into: $1) })
        do {
            return try ControlServer(path: path, group: group, compositor: compositor, handlers: handlers, logger: logger, activated: activated?.fd)
        } catch {
            throw RuntimeFailure("cannot open the control socket: \(error)")
        }
    }

    /// `ctl set-app ROLE APP`: answered once the new app took the place, or failed to.
    func setApp(_ words: [String], _ compositor: Compositor, _ answer: @escaping ControlServer.Handlers.Answer) {
        guard words.count >= 3, let role = Role(rawValue: words[1]) else { return answer(.failure(ControlError("set-app: primary or secondary, then the app", usage: true))) }
        let app: AppCommandLine
        do { app = try Apps.parse(words[2...].joined(separator: " "), option: "set-app") } catch {
            return answer(.failure(ControlError("\(error); the \(role.rawValue) app stays")))
        }
        let live = Apps.live(app, role: role, out: out)
        compositor.setApp(role, arguments: live.arguments, label: live.label, eventLog: live.eventLog) { failure in
            answer(failure.map { .failure(ControlError($0)) } ?? .success(""))
        }
    }

    /// A command answered at once.
    static func carryOut(
        _ words: [String], _ compositor: Compositor, repaint: RepaintLoop, uptime: Double, config: [(String, JSONValue)] = []
    ) -> Result<String, ControlError> {
                switch words[0] {
                case "status":
                    var status = compositor.controlStatus(uptimeSeconds: uptime, loop: repaint.realtime)
                    if case .object(let fields) = status { status = .object(fields + config) }
                    if words.count > 1 { return .success(status.serialized) }
                    return .success(Self.describe(status))
                case "stats":
                    let figures = repaint.frames.statistics
                    if words.count > 1, words[1] == "--prometheus" {
                        return .success(ControlStatistics.prometheus(figures, protocolErrors: compositor.protocolErrors.count, blanked: compositor.isBlanked, relaunches: compositor.relaunchesByRole, oomKills: compositor.oomKillsByRole, vncClients: compositor.vncClients))
                    }
                    return .success(ControlStatistics.json(figures, blanked: compositor.isBlanked).serialized)
                case "orientation":
                    guard words.count == 2, let o = try? Orientation.named(words[1]) else { return .failure(ControlError("orientation: landscape or portrait", usage: true)) }
                    compositor.rotate(to: o)
                    return .success("")
                case "restart":
                    guard words.count == 2, let role = Role(rawValue: words[1]) else { return .failure(ControlError("restart: primary or secondary", usage: true)) }
                    return compositor.restart(role) ? .success("") : .failure(ControlError("no app was launched as the \(role.rawValue)"))
                case "arrangement":
                    guard words.count == 2, let a = Arrangement(rawValue: words[1]) else {
                        return .failure(ControlError("arrangement: \(Arrangement.allCases.map(\.rawValue).joined(separator: ", "))", usage: true))
                    }
                    switch compositor.arrange(a) {
                    case nil: return .success("")
                    case .busy: return .failure(ControlError("a gesture is in progress; try again"))
                    case .needsTwoApps: return .failure(ControlError("\(a.rawValue) needs two apps, multitasking on, and a secondary that does not require the full screen"))
                    }
                case "blank":
                    compositor.blankScreen()
                    return .success("")
                case "wake":
                    compositor.wakeScreen()
                    return .success("")
                case "rotate":
                    guard words.count == 2, let r = OutputRotation.named(words[1]) else {
                        return .failure(ControlError("rotate: 0, 90, 180 or 270 (normal, right, inverted, left)", usage: true))
                    }
                    compositor.rotateOutput(r)
                    return .success("")
                default:
                    return .failure(ControlError("unknown command '\(words[0])'", usage: true))
                }
    }

    /// `status` for a person: a line a fact.
    static func describe(_ status: JSONValue) -> String {
        var lines = [
            "device \(status["device"]?.stringValue ?? "?"), \(status["orientation"]?.stringValue ?? "?"), rotated \(status["rotate"]?.intValue ?? 0)°, \(status["arrangement"]?.stringValue ?? "?")"
                + (status["blanked"]?.boolValue == true ? ", screen blank" : ""),
            "up \(status["uptime_s"]?.doubleValue ?? 0) s, \((status["memory_bytes"]?.intValue ?? 0) / 1_048_576) MiB resident, \(status["relaunches"]?.intValue ?? 0) relaunches",
        ]
        if let differs = status["config"]?["differs"]?.arrayValue, !differs.isEmpty {
            lines.append("differs from \(status["config"]?["file"]?.stringValue ?? "the file"): \(differs.compactMap(\.stringValue).joined(separator: ", ")) (ctl reload applies the file)")
        }
        for p in status["panes"]?.arrayValue ?? [] {
            let pid = p["pid"]?.intValue.map { "pid \($0)" } ?? "not launched here"
            lines.append("\(p["role"]?.stringValue ?? "?"): \(p["app"]?.stringValue ?? "none") (\(pid), \(p["state"]?.stringValue ?? "?"))")
        }
        if let cpu = status["cpu"] {
            let first = cpu["favoured"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let apps = cpu["apps"]?.stringValue ?? "?"
            lines.append("cpu: the loop \(cpu["loop"]?.stringValue ?? "?"), the apps \(apps == "none" ? "as launched" : "by " + apps)"
                + (first.isEmpty ? "" : ", \(first.joined(separator: " and ")) first"))
        }
        if let k = status["keyboard"] {
            let all = k["layouts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            // (A keymap of empty names, "::::", is xkbcommon's default or XKB_DEFAULT_*'s.)
            let keymap = k["keymap"]?.stringValue.map { $0.allSatisfy { $0 == ":" } ? "the default (XKB_DEFAULT_*, else us)" : $0 } ?? "none"
            lines.append("keyboard: \(k["layout"]?.stringValue ?? "?")" + (all.count > 1 ? " (of \(all.joined(separator: ", ")))" : "") + ", hardware keymap \(keymap)")
        }
        if let v = status["vnc"] {
            let n = v["clients"]?.intValue ?? 0
            lines.append("vnc: \(v["address"]?.stringValue ?? "?"), \(n) viewer\(n == 1 ? "" : "s"), "
                + (v["tls"]?.boolValue == true ? "TLS and a password" : "plain (vnc-insecure)") + (v["input"]?.boolValue == true ? ", input allowed" : ", view only"))
        }
        return lines.joined(separator: "\n")
    }
}

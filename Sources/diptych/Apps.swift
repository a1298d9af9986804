// SPDX-License-Identifier: MIT
// Turning APP and CMD arguments into client command lines.

import DiptychCore
import DiptychLinux
import Glibc

enum Apps {
    /// The demo client binary: beside this executable if it is there, else on PATH.
    static var demoBinary: String { sibling("diptych-demo") }

    /// A program installed with this one: beside this executable if it is there, else its
    /// bare name (looked up on PATH).
    static func sibling(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = path.lastIndex(of: "/") {
                let candidate = String(path[..<slash]) + "/" + name
                if Files.exists(candidate) { return candidate }
            }
        }
        return name
    }

    /// Whether an executable of that name is on PATH.
    static func onPath(_ program: String) -> Bool {
        let path = Files.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }

    /// The command line of a built-in demo app, logging its events to `eventLog`.
    static func demoCommand(_ app: DemoApp, eventLog: String?) -> [String] {
        var args = [demoBinary, app.description]
        if let eventLog { args += ["--event-log", eventLog] }
        return args
    }

    /// How to start an app: a built-in demo app (its first word, demo flags may follow, e.g.
    /// `pattern:#993366 --snapshot-delay-ms 200`), which logs its own events to `eventLog`, or
    /// any other command line as it is (the compositor logs what it sends it). A web app keeps
    /// nothing when `ephemeral` (render, scenarios, profiles) unless given `--data-dir`.
    static func launch(_ app: AppCommandLine, eventLog: String?, ephemeral: Bool = false) -> (arguments: [String], logsItself: Bool) {
        if let demo = app.demoApp { return (demoCommand(demo, eventLog: eventLog) + app.arguments.dropFirst(), true) }
        if app.isWebApp {
            let url = String(app.program.dropFirst(4))
            let flags = Array(app.arguments.dropFirst())
            let keep = ephemeral && !flags.contains("--data-dir") && !flags.contains("--ephemeral") ? ["--ephemeral"] : []
            return ([sibling("diptych-web"), url] + (eventLog.map { ["--event-log", $0] } ?? []) + keep + flags, true)
        }
        return (app.arguments, false)
    }

    /// How `run` starts `app` in `role`: its arguments, its label, and the event log the
    /// compositor keeps for it in `out` (nil: the app logs itself, or no `--out`).
    static func live(_ app: AppCommandLine, role: Role, out: String?) -> (arguments: [String], label: String, eventLog: String?) {
        let log = out.map { "\($0)/events-\(role.rawValue).jsonl" }
        let launch = launch(app, eventLog: log)
        return (launch.arguments, app.description, launch.logsItself ? nil : log)
    }

    /// An APP or CMD as given on the command line (shell-style quoting), named by `option` in
    /// errors (exit 2). A program that is a path must exist and be executable.
    static func parse(_ text: String, option: String) throws -> AppCommandLine {
        let app: AppCommandLine
        do { app = try AppCommandLine(parsing: text) } catch { throw UsageError("\(option): \(error)") }
        try check(app, what: option)
        return app
    }

    /// `text` (an app's command line) with its relative paths made absolute against `base`: a
    /// program path containing a slash, and a `web:` file (not a URL); bare names stay PATH
    /// look-ups and the app's arguments are left as they are.
    static func absolutized(_ text: String, against base: String) -> String {
        guard let app = try? AppCommandLine(parsing: text), var words = Optional(app.arguments), let first = words.first else { return text }
        func absolute(_ path: String) -> String {
            let joined = path.hasPrefix("/") ? path : "\(base)/\(path)"
            // (Without its "." steps: /srv/kiosk/app.sh, not /srv/kiosk/./app.sh.)
            return "/" + joined.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        }
        if first.hasPrefix("web:") {
            let target = String(first.dropFirst(4))
            guard !target.isEmpty, webFile(target) != nil, !target.hasPrefix("/"), !target.hasPrefix("file:") else { return text }
            words[0] = "web:" + absolute(target)
        } else if first.contains("/"), !first.hasPrefix("/"), !first.hasPrefix("pattern:") {
            words[0] = absolute(first)
        } else {
            return text
        }
        return words.map(quoted).joined(separator: " ")
    }

    /// The file a `web:` target names (nil: a URL such as https://…).
    static func webFile(_ target: String) -> String? {
        if target.hasPrefix("file://") { return String(target.dropFirst("file://".count)).split(separator: "?").first.map(String.init) }
        if target.firstRange(of: "://") != nil || target.hasPrefix("about:") || target.hasPrefix("data:") { return nil }
        return target.split(separator: "?").first.map(String.init)
    }

    /// A word as the app command line's parser reads it back.
    static func quoted(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { " \t'\"\\".contains($0) }) else { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }

    /// Refuses, before anything starts, an app whose program cannot run: a bad demo colour,
    /// a path that is not an executable file, or a name not found on PATH.
    static func check(_ app: AppCommandLine, what: String) throws {
        if app.program.hasPrefix("pattern:") {
            do { _ = try DemoApp.named(app.program) } catch { throw UsageError("\(what): \(error)") }
        }
        if app.demoApp != nil { return }
        if app.isWebApp {
            guard app.program.count > 4 else { throw UsageError("\(what): web: needs a URL or a file, e.g. web:Assets/web/markets.html") }
            let web = sibling("diptych-web")
            guard web.contains("/") || onPath(web) else {
                throw UsageError("\(what): web apps need diptych-web, which was not built: it needs WPE WebKit (apt-get install libwpewebkit-1.1-dev libwpebackend-fdo-1.0-dev libwpe-1.0-dev libwayland-dev, then make)")
            }
            // A page's file that is not there is refused at once, not shown as an error page.
            if let file = webFile(String(app.program.dropFirst(4))), !Files.exists(file) {
                throw UsageError("\(what): the page \(file) does not exist")
            }
            return
        }
        let program = app.program
        if program.contains("/") {
            guard access(program, X_OK) == 0, !Files.isDirectory(program) else {
                throw UsageError("\(what): the app '\(program)' \(Files.exists(program) ? "is not an executable file" : "does not exist")")
            }
            return
        }
        guard onPath(program) else {
            throw UsageError("\(what): the app '\(program)' is not a demo app (\(DemoApp.validChoices)) and no program of that name is on PATH")
        }
    }
}

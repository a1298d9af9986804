// SPDX-License-Identifier: MIT
// `diptych render`: two real app processes composited once on the headless backend, to PNG.

import ArgumentParser
import DiptychCore
import DiptychLinux
import DiptychServer
import Logging

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render one frame of two apps to a PNG on the headless backend.",
        discussion: "Launches the apps as separate processes, waits until each shown app has committed a buffer for its configure, writes the PNG and exits.")

    @OptionGroup var device: DeviceOptions

    @Option(help: "The arrangement: full, slide-over, split-2/3 or split-1/2 (split-1/2 in landscape only).")
    var arrangement: Arrangement

    @Option(help: "The primary app: a demo app (\(DemoApp.validChoices)), a web page (web:URL), or any app's command line (shell-style quoting).")
    var primary: String

    @Option(help: "The secondary app, as --primary (needed unless the arrangement is full).")
    var secondary: String?

    @Option(help: "The PNG file to write.")
    var out: String

    @OptionGroup var outputOptions: OutputOptions

    @Option(name: [.customLong("event-log-dir"), .customLong("event-logs", withSingleDash: false)],
            help: "Write each app's event log to DIR/events-primary.jsonl and DIR/events-secondary.jsonl.")
    var eventLogs: String?

    @Option(help: "Seconds to wait for the apps to draw.")
    var timeout: Int = 15

    func run() throws {
        try reportingErrors {
            let (profile, orientation) = try device.resolve()
            let a = try checkArrangement(arrangement, orientation: orientation)
            var apps: [(Role, AppCommandLine)] = [(.primary, try Apps.parse(primary, option: "--primary"))]
            if let secondary { apps.append((.secondary, try Apps.parse(secondary, option: "--secondary"))) }
            if a.showsSecondary && secondary == nil {
                throw UsageError("arrangement '\(a.rawValue)' shows a secondary app: give --secondary APP")
            }
            try checkWritableDirectory(of: out, what: "--out")
            if let dir = eventLogs { try checkDirectory(dir, what: "--event-log-dir") }
            guard timeout > 0 else { throw UsageError("--timeout must be at least 1 second") }
            let (emulateOn, rotation) = try outputOptions.resolve()
            let battery = try outputOptions.batterySource()
            let secondScreen = try outputOptions.secondScreenSize()

            let logger = Logger(label: "diptych.render")
            let compositor: Compositor
            do {
                var configuration = CompositorConfiguration(profile: profile, orientation: orientation, arrangement: a, listen: false)
                configuration.emulateOn = emulateOn
                configuration.outputRotation = rotation
                configuration.statusBar = outputOptions.statusBar.isOn
                configuration.statusBarTitle = outputOptions.statusBarTitle
                configuration.battery = battery
                configuration.statusBarTime = StatusBar.clock(milliseconds: 0)
                configuration.secondScreen = secondScreen
                compositor = try Compositor(configuration: configuration, logger: logger)
            } catch {
                throw RuntimeFailure("cannot start the compositor: \(error)")
            }
            defer { compositor.shutdown() }
            compositor.admitsAtHello = false
            // One frame at 09:41 on a clock that does not move: what an app draws from the
            // compositor's time (tv's picture) is the same on every run.
            compositor.virtualTime = 0
            for (role, app) in apps {
                let log = eventLogs.map { "\($0)/events-\(role.rawValue).jsonl" }
                if let log { Files.remove(log) }
                let launch = Apps.launch(app, eventLog: log, ephemeral: true)
                do { try compositor.launch(launch.arguments, role: role, label: app.description, eventLog: launch.logsItself ? nil : log) } catch {
                    throw RuntimeFailure("cannot launch app '\(app)': \(error)")
                }
            }
            let started = MonotonicClock.nanoseconds
            do {
                try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: timeout * 1000)
                // A web page captured drawn, not on its way (ready: see waitFor).
                try compositor.waitUntilAppsAreReady(timeoutMilliseconds: Compositor.readyTimeoutMilliseconds)
            } catch {
                throw RuntimeFailure("\(error)")
            }
            if secondScreen != nil {
                // The primary heard of the screen with its configure: what it drew for it is
                // in before the frame (a round trip).
                do { try compositor.roundTrip() } catch { throw RuntimeFailure("\(error)") }
            }
            let drawn = MonotonicClock.nanoseconds
            compositor.repaint()
            let composited = MonotonicClock.nanoseconds
            do { try compositor.output.writePNG(to: out) } catch { throw RuntimeFailure("cannot write the PNG \(error)") }
            var written2: String?
            if secondScreen != nil, let screen2 = compositor.secondScreenOutput {
                let path = Self.secondScreenPath(out)
                do { try screen2.writePNG(to: path) } catch { throw RuntimeFailure("cannot write the PNG \(error)") }
                written2 = path
            }
            let written = MonotonicClock.nanoseconds
            func ms(_ a: UInt64, _ b: UInt64) -> String { String(Double((b - a) / 10_000) / 100) }
            logger.debug("render timings", metadata: [
                "apps.ms": "\(ms(started, drawn))", "composite.ms": "\(ms(drawn, composited))", "png.ms": "\(ms(composited, written))",
            ])
            print(out)
            if let written2 { print(written2) }
        }
    }

    /// X.png → X.screen2.png.
    static func secondScreenPath(_ out: String) -> String {
        let base = out.hasSuffix(".png") ? String(out.dropLast(4)) : out
        return base + ".screen2.png"
    }

}

/// Fails with a usage error unless the directory that will hold `path` exists.
func checkWritableDirectory(of path: String, what: String) throws {
    let dir = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    try checkDirectory(dir.isEmpty ? "/" : dir, what: what)
}

func checkDirectory(_ dir: String, what: String) throws {
    guard Files.isDirectory(dir) else { throw UsageError("\(what): directory '\(dir)' does not exist") }
}

// SPDX-License-Identifier: MIT
// `diptych-demo`: the demo apps as a separate client process.

import ArgumentParser
import DiptychClient
import DiptychCore
import DiptychDemoKit
import DiptychLinux

@main
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diptych-demo",
        abstract: "A Diptych demo app, run as a client of the compositor.",
        discussion: """
            Connects to the compositor (the socket inherited as $DIPTYCH_SOCKET_FD, else \
            $DIPTYCH_SOCKET, else $XDG_RUNTIME_DIR/diptych-0), answers every configure with a \
            freshly drawn buffer, and exits when the compositor closes the connection.
            """)

    @Argument(help: "The app: \(DemoApp.validChoices).")
    var app: String

    @Option(name: .long, help: "Append every event received to FILE as JSON lines.")
    var eventLog: String?

    @Flag(name: .long, help: "Say at hello that the app only runs full screen.")
    var requiresFullScreen = false

    @Option(name: .long, help: "Answer snapshot requests N ms (of the compositor's clock) late, to play a slow app.")
    var snapshotDelayMs: Int = 0

    @Flag(name: .long, help: "Play a hung app: after the first frame, never ack a configure or answer a snapshot request.")
    var noAck = false

    @Flag(name: .long, help: "Draw a new frame after every frameDone (a busy app, for profiling).")
    var animate = false

    @Flag(name: .long, help: "Open Picture in Picture once the first frame is on screen (tv; otherwise it opens when the app goes to the background).")
    var pip = false

    @Option(name: .long, help: "Once the first frame is on screen, ask for this status bar style (dark, light or hidden; the primary's is shown).")
    var statusBarStyle: String?

    @Option(name: .long, help: ArgumentHelp("Draw a dot where each pen event lands, taking MS milliseconds, and commit it at once (the latency workload's app).", visibility: .hidden))
    var penDotsMs: Double?

    @Option(name: .long, help: ArgumentHelp("After the first frame, recolour the whole buffer but damage only X,Y,W,H (for tests).", visibility: .hidden))
    var recolorDamage: String?

    @Option(name: .long, help: ArgumentHelp("Once the first frame is on screen, take and hold this many MiB (an app past its memory limit, for tests).", visibility: .hidden))
    var holdMb: Int = 0

    @Flag(name: .long, help: ArgumentHelp("Burn every core with busy threads (a busy neighbour, for the latency workload).", visibility: .hidden))
    var burn = false

    func validate() throws {
        do { _ = try DemoApp.named(app) } catch { throw ValidationError(error.description) }
        if let r = recolorDamage, parseBox(r) == nil { throw ValidationError("bad --recolor-damage '\(r)': expected X,Y,W,H") }
        if let s = statusBarStyle, StatusBarStyle(rawValue: s) == nil { throw ValidationError("bad --status-bar-style '\(s)': expected dark, light or hidden") }
        if let ms = penDotsMs, !(0...100).contains(ms) { throw ValidationError("--pen-dots-ms must be from 0 to 100") }
        if snapshotDelayMs < 0 { throw ValidationError("--snapshot-delay-ms must be 0 or more") }
        if !(0...65536).contains(holdMb) { throw ValidationError("--hold-mb must be from 0 to 65536") }
    }

    func run() throws {
        ignoreBrokenPipes()
        let options = DemoOptions(
            app: try DemoApp.named(app), eventLog: eventLog, requiresFullScreen: requiresFullScreen,
            snapshotDelay: UInt64(snapshotDelayMs), noAck: noAck)
        let connection: Connection
        do { connection = try Connection.fromEnvironment() } catch {
            printError("diptych-demo: \(error)")
            throw ExitCode(1)
        }
        var opts = options
        opts.recolorDamage = recolorDamage.flatMap(parseBox)
        opts.animate = animate
        opts.penDots = penDotsMs
        opts.pictureInPicture = pip
        opts.holdMegabytes = holdMb
        opts.burn = burn
        opts.statusBarStyle = statusBarStyle.flatMap(StatusBarStyle.init(rawValue:))
        var runner = DemoRunner(options: opts, connection: connection)
        let status = runner.run()
        if status != 0 { throw ExitCode(status) }
    }
}

func parseBox(_ text: String) -> Rect? {
    let v = text.split(separator: ",").compactMap { Int($0) }
    guard v.count == 4, v[2] > 0, v[3] > 0 else { return nil }
    return Rect(x: v[0], y: v[1], width: v[2], height: v[3])
}

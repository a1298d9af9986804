// SPDX-License-Identifier: MIT
// The compositor against real client processes over its real listening socket: a well-behaved
// app keeps rendering while a misbehaving one gets a named protocol error and is disconnected.

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Logging
import Testing

/// A compositor on a private socket with a good primary already drawn.
final class Fixture {
    let dir: String
    let compositor: Compositor
    var apps: [ChildProcess] = []

    init(arrangement: Arrangement = .split23, directory: String? = nil, secondScreen: Size? = nil) throws {
        dir = directory ?? Harness.temporaryDirectory("proto")
        var config = CompositorConfiguration(
            profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: arrangement,
            listen: true, socketPath: "\(dir)/diptych-test")
        config.secondScreen = secondScreen
        // (The status bar's clock fixed: a minute turning mid-test would repaint it.)
        config.statusBarTime = "09:41"
        compositor = try Compositor(configuration: config, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// Starts `diptych-demo` connecting through the listening socket.
    @discardableResult
    func connect(_ args: [String], log: String) throws -> ChildProcess {
        let child = try ChildProcess(
            arguments: [Harness.demo] + args + ["--event-log", "\(dir)/\(log)"],
            environment: ["DIPTYCH_SOCKET": compositor.socketPath!, "DIPTYCH_SOCKET_FD": ""])
        apps.append(child)
        return child
    }

    /// Starts the test-only misbehaving client in `mode`, drawing `app` where it draws at all.
    @discardableResult
    func misbehave(_ mode: String, app: String = "pattern:#AA0000", log: String, environment: [String: String] = [:]) throws -> ChildProcess {
        let child = try ChildProcess(
            arguments: [Harness.misbehave, mode, app, "--event-log", "\(dir)/\(log)"],
            environment: ["DIPTYCH_SOCKET": compositor.socketPath!, "DIPTYCH_SOCKET_FD": ""].merging(environment) { $1 })
        apps.append(child)
        return child
    }

    func events(_ log: String) throws -> [JSONValue] { try Harness.events("\(dir)/\(log)") }

    deinit {
        compositor.shutdown()
        for a in apps { a.terminate() }
    }
}

struct ProtocolTests {
    @Test func aValidClientRendersOverTheListeningSocket() throws {
        let f = try Fixture(arrangement: .full)
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        try f.compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 100, y: 100) & 0xFFFFFF == 0x00AA00)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try f.events("good.jsonl").contains { $0["event"]?.stringValue == "frameDone" } })
        let configure = try #require(try f.events("good.jsonl").first)
        #expect(configure["event"]?.stringValue == "configure" && configure["role"]?.stringValue == "primary")
        #expect(configure["pixelWidth"]?.intValue == 2048)
    }

    static let misbehaviours: [(mode: String, code: ProtocolError.Code)] = [
        ("unsealed", .unsealedBuffer), ("short", .bufferTooSmall), ("stride-overflow", .sizeOverflow), ("garbage", .malformedMessage),
    ]

    @Test(arguments: misbehaviours)
    func aBadClientIsDisconnectedAloneWithANamedError(mode: String, code: ProtocolError.Code) throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave(mode, log: "bad.jsonl")

        // The bad client gets the named error, is disconnected, and exits with status 1.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.protocolErrors.isEmpty && bad.poll() != nil })
        #expect(f.compositor.protocolErrors.map(\.error.code) == [code])
        #expect(bad.exitStatus == 1)
        #expect(!f.compositor.isConnected(.secondary))
        let logged = try #require(try f.events("bad.jsonl").last)
        #expect(logged["event"]?.stringValue == "protocolError")
        #expect(logged["code"]?.stringValue == code.name)

        // The good client keeps rendering: still connected, and the layout collapses to it (a
        // configure for the full screen, which it draws), on screen and paced.
        #expect(f.compositor.isConnected(.primary))
        #expect(f.compositor.layout.arrangement == .full)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 100, y: 100) & 0xFFFFFF == 0x00AA00)
        #expect(f.compositor.output.pixel(x: 1500, y: 100) & 0xFFFFFF == 0x00AA00)
        #expect(try f.events("good.jsonl").filter { $0["event"]?.stringValue == "configure" }.last?["pixelWidth"]?.intValue == 2048)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try f.events("good.jsonl").contains { $0["event"]?.stringValue == "frameDone" } })
        #expect(f.apps[0].poll() == nil)
    }

    @Test func aThirdAppIsRefused() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "one.jsonl")
        try f.connect(["pattern:#0000AA"], log: "two.jsonl")
        try f.compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        let third = try f.connect(["pattern:#AAAAAA"], log: "three.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { third.poll() != nil })
        #expect(f.compositor.protocolErrors.map(\.error.code) == [.badState])
        #expect(f.compositor.isConnected(.primary) && f.compositor.isConnected(.secondary))
    }

    @Test func renderWaitNamesAnAppThatNeverDraws() throws {
        let f = try Fixture(arrangement: .full)
        try f.compositor.launch(["sleep", "30"], role: .primary, label: "sleepy")
        defer { f.compositor.shutdown(graceMilliseconds: 50) }
        do {
            try f.compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 300)
            Issue.record("waited successfully for an app that never drew")
        } catch {
            #expect("\(error)".contains("'sleepy' (primary) did not commit a buffer for its configure"))
        }
    }

    @Test func renderWaitNamesAnAppThatDied() throws {
        let f = try Fixture(arrangement: .full)
        try f.compositor.launch(["sh", "-c", "exit 3"], role: .primary, label: "crashy")
        do {
            try f.compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
            Issue.record("waited successfully for an app that died")
        } catch {
            #expect("\(error)".contains("'crashy' (primary) went away before drawing"))
        }
    }
}

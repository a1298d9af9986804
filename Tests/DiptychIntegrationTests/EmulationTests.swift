// SPDX-License-Identifier: MIT
// Resolution-scaling emulation and panel rotation end to end: golden frames at the
// non-integer scale and letterboxed, damage exactness under scaling, and soft relaunch.

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychServer
import DiptychTestSupport
import Logging
import Testing

struct EmulationTests {
    static let proCases: [(Orientation, Arrangement)] = Orientation.allCases.flatMap { o in
        Arrangement.allCases.filter { !(o == .portrait && $0 == .split12) }.map { (o, $0) }
    }

    func render(_ args: [String], name: String) throws {
        let dir = Harness.temporaryDirectory("emulated")
        let out = "\(dir)/frame.png"
        let r = try Harness.run([Harness.diptych, "render", "--primary", "pattern:#336699", "--secondary", "pattern:#993366", "--out", out] + args)
        #expect(r.status == 0, "\(r.stderr)")
        // Bilinear scaling may differ by a step between pixman builds: tolerance 2.
        let failure = Golden.check(try PixelImage.readPNG(from: out), name: name, referenceDirectory: scenarioReferences, tolerance: 2)
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test(arguments: proCases)
    func iPadProOnA2048x1536Panel(orientation: Orientation, arrangement: Arrangement) throws {
        try render(
            ["--device", "ipad-pro", "--orientation", orientation.rawValue, "--arrangement", arrangement.rawValue, "--emulate-on", "2048x1536"],
            name: "emulated-" + Golden.name("ipad-pro-on-2048x1536", orientation.rawValue, arrangement.rawValue))
    }

    @Test(arguments: [0, 90])
    func iPadLetterboxedOn1920x1080(rotation: Int) throws {
        try render(
            ["--device", "ipad", "--arrangement", "split-2/3", "--emulate-on", "1920x1080", "--rotate", "\(rotation)"],
            name: "emulated-ipad-on-1920x1080-rotate-\(rotation)")
    }

    @Test func badEmulationFlagsExitTwo() throws {
        let dir = Harness.temporaryDirectory("bad-emulation")
        let size = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "notes", "--emulate-on", "big", "--out", "\(dir)/x.png"])
        #expect(size.status == 2 && size.stderr.contains("--emulate-on 'big'"))
        let rot = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "notes", "--rotate", "45", "--out", "\(dir)/x.png"])
        #expect(rot.status == 2 && ["'45'", "0", "90", "180", "270"].allSatisfy { rot.stderr.contains($0) }, "\(rot.stderr)")
        #expect(!Files.exists("\(dir)/x.png"))
    }

    /// An app changes its whole buffer but damages one box: under the 2732 -> 2048 scale only
    /// that box, grown by the bilinear footprint, changes on the panel.
    @Test func damageIsExactUnderScaling() throws {
        let dir = Harness.temporaryDirectory("damage")
        var config = CompositorConfiguration(
            profile: try DeviceProfile.named("ipad-pro"), orientation: .landscape, arrangement: .full, listen: true, socketPath: "\(dir)/s")
        config.emulateOn = Size(width: 2048, height: 1536)
        let compositor = try Compositor(configuration: config, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { compositor.shutdown() }
        let box = Rect(x: 400, y: 300, width: 200, height: 120)
        let app = try ChildProcess(
            arguments: [Harness.demo, "pattern:#336699", "--status-bar-style", "light", "--recolor-damage", "\(box.x),\(box.y),\(box.width),\(box.height)"],
            environment: ["DIPTYCH_SOCKET": "\(dir)/s", "DIPTYCH_SOCKET_FD": ""])
        defer { app.terminate() }
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        compositor.repaint()
        let before = compositor.output.copy()
        #expect(try compositor.run(timeoutMilliseconds: 20_000) { compositor.commits(.primary) == 2 })
        compositor.repaint()
        let after = compositor.output
        let grown = try #require(compositor.geometry.damage(box))
        var changedInside = 0, changedOutside = 0
        for y in 0..<after.height {
            for x in 0..<after.width where before.pixel(x: x, y: y) & 0xFFFFFF != after.pixel(x: x, y: y) & 0xFFFFFF {
                if grown.contains(Rect(x: x, y: y, width: 1, height: 1)) { changedInside += 1 } else { changedOutside += 1 }
            }
        }
        #expect(changedOutside == 0)
        #expect(changedInside >= (box.width * 3 / 4) * (box.height * 3 / 4))  // the box itself, scaled
        #expect(after.pixel(x: grown.x + grown.width / 2, y: grown.y + grown.height / 2) & 0xFFFFFF == 0xFFCC00)
    }

    /// Soft relaunch: ipad -> ipad-pro on the same panel mid-run.
    @Test func softRelaunchReconfiguresWithoutLosingState() throws {
        let p = try play("soft-relaunch")
        for role in ["primary", "secondary"] {
            let c = p.configures(role)
            #expect(widths(c) == [507, 678], "\(role)")
            #expect(c.map { $0["horizontalSizeClass"]?.stringValue } == ["compact", "regular"])
            let change = try #require(p.events(role, including: ["sizeClassChanged"]).first)
            #expect(change["previousHorizontal"]?.stringValue == "compact" && change["horizontalSizeClass"]?.stringValue == "regular")
            let resign = try #require(p.events(role, including: ["willResignActive"]).last)
            let active = try #require(p.events(role, including: ["didBecomeActive"]).last)
            #expect(resign["stateDigest"] == active["stateDigest"])
        }
        // The note drawn before the relaunch is still there after it.
        let first = p.events("primary", including: ["didBecomeActive"]).first?["stateDigest"]
        #expect(p.events("primary", including: ["willResignActive"]).last?["stateDigest"] != first)
        #expect(try p.image("before.png").width == 2048 && p.image("after.png").width == 2048)
        try expectGolden(p, "after.png", as: "soft-relaunch-after")
    }
}

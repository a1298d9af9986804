// SPDX-License-Identifier: MIT
// `diptych render` as a user runs it: real compositor process, real app processes, real PNGs.

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychTestSupport
import Testing

let renderReferences = Golden.directory(of: #filePath) + "/../DiptychRenderTests/Reference"

struct RenderCommandTests {
    @Test func splitHalfOnIPadProMatchesTheContract() throws {
        let dir = Harness.temporaryDirectory("render")
        let out = "\(dir)/x.png"
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad-pro", "--arrangement", "split-1/2",
            "--primary", "pattern:#336699", "--secondary", "pattern:#993366", "--out", out, "--event-logs", dir, "--status-bar", "off",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == out + "\n")
        let png = try PixelImage.readPNG(from: out)
        #expect(png.width == 2732 && png.height == 2048)
        // Primary #336699 but for its border and text; the divider dark with a light 4 × 40 pt
        // handle centred on it; secondary #993366.
        #expect(png.pixel(x: 40, y: 40) & 0xFFFFFF == 0x336699)
        #expect(png.pixel(x: 1300, y: 1900) & 0xFFFFFF == 0x336699)
        let dark = UInt32(0x1C1C1E), light = UInt32(0xD1D1D6)
        for x in 1356..<1376 { #expect(png.pixel(x: x, y: 200) & 0xFFFFFF == dark, "divider column \(x)") }
        for x in 1356..<1362 { #expect(png.pixel(x: x, y: 1024) & 0xFFFFFF == dark, "divider beside the handle, column \(x)") }
        for x in 1363..<1369 { #expect(png.pixel(x: x, y: 1024) & 0xFFFFFF == light, "handle column \(x)") }
        #expect(png.pixel(x: 1366, y: 1024 - 36) & 0xFFFFFF == light && png.pixel(x: 1366, y: 1024 - 44) & 0xFFFFFF == dark)
        #expect(png.pixel(x: 1400, y: 40) & 0xFFFFFF == 0x993366)
        #expect(png.pixel(x: 2700, y: 2000) & 0xFFFFFF == 0x993366)
        // And pixel for pixel what the renderer golden says.
        let failure = Golden.check(png, name: "ipad-pro-landscape-split-1-2", referenceDirectory: renderReferences, tolerance: 0)
        #expect(failure == nil, "\(failure ?? "")")

        for (role, x) in [("primary", 0), ("secondary", 688)] {
            let events = try Harness.events("\(dir)/events-\(role).jsonl")
            let configure = try #require(events.first { $0["event"]?.stringValue == "configure" }, "\(role) has no configure")
            #expect(configure["app"]?.stringValue == (role == "primary" ? "pattern:#336699" : "pattern:#993366"))
            #expect(configure["role"]?.stringValue == role)
            #expect(configure["frame"] == .object([("x", .int(x)), ("y", .int(0)), ("width", .int(678)), ("height", .int(1024))]))
            #expect(configure["pixelWidth"]?.intValue == 1356 && configure["pixelHeight"]?.intValue == 2048)
            #expect(configure["horizontalSizeClass"]?.stringValue == "regular")
            #expect(configure["verticalSizeClass"]?.stringValue == "regular")
            #expect(configure["orientation"]?.stringValue == "landscape")
            #expect(configure["arrangement"]?.stringValue == "split-1/2")
            #expect(events.contains { $0["event"]?.stringValue == "didBecomeActive" })
        }
    }

    static let cases: [(String, Orientation, Arrangement)] = ["ipad", "ipad-pro"].flatMap { d in
        Orientation.allCases.flatMap { o in
            Arrangement.allCases.filter { !(o == .portrait && $0 == .split12) }.map { (d, o, $0) }
        }
    }

    /// The status bar over the same frame (at 09:41, deterministic): the apps' frames do not
    /// change, only the top 20 pt gain the bar's text.
    @Test func theStatusBarIsDrawnOverTheApps() throws {
        let dir = Harness.temporaryDirectory("render-status-bar")
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad-pro", "--arrangement", "split-2/3",
            "--primary", "pattern:#336699", "--secondary", "pattern:#993366", "--battery", "76", "--out", "\(dir)/bar.png",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let png = try PixelImage.readPNG(from: "\(dir)/bar.png")
        let failure = Golden.check(png, name: "status-bar-ipad-pro-landscape-split-2-3", referenceDirectory: scenarioReferences, tolerance: 0)
        #expect(failure == nil, "\(failure ?? "")")
        // Below the bar, pixel for pixel the frame without it.
        let plain = try PixelImage.readPNG(from: "\(renderReferences)/ipad-pro-landscape-split-2-3.png")
        var differing = 0
        for y in stride(from: 0, to: png.height, by: 3) {
            for x in stride(from: 0, to: png.width, by: 3) where png.pixel(x: x, y: y) != plain.pixel(x: x, y: y) {
                differing += 1
                #expect(y < 40, "(\(x), \(y)) differs below the status bar")
            }
        }
        #expect(differing > 100)
    }

    /// Every arrangement through real processes equals the renderer's golden image.
    @Test(arguments: cases)
    func everyArrangementMatchesItsGolden(device: String, orientation: Orientation, arrangement: Arrangement) throws {
        let dir = Harness.temporaryDirectory("render-all")
        let out = "\(dir)/frame.png"
        let r = try Harness.run([
            Harness.diptych, "render", "--device", device, "--orientation", orientation.rawValue, "--arrangement", arrangement.rawValue,
            "--primary", "pattern:#336699", "--secondary", "pattern:#993366", "--out", out, "--status-bar", "off",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let name = Golden.name(device, orientation.rawValue, arrangement.rawValue)
        let failure = Golden.check(try PixelImage.readPNG(from: out), name: name, referenceDirectory: renderReferences, tolerance: 0)
        #expect(failure == nil, "\(failure ?? "")")
    }
}

struct BadInputTests {
    static let cases: [(args: [String], mentions: [String])] = [
        (["--device", "ipad-air", "--arrangement", "full"], ["unknown device 'ipad-air'", "ipad, ipad-mini, ipad-pro"]),
        (["--device", "ipad", "--arrangement", "split-3/4"], ["'split-3/4'", "full", "slide-over", "split-2/3", "split-1/2"]),
        (["--device", "ipad", "--orientation", "sideways", "--arrangement", "full"], ["'sideways'", "landscape", "portrait"]),
        (["--device", "ipad", "--orientation", "portrait", "--arrangement", "split-1/2"], ["landscape only"]),
        (["--device", "ipad", "--arrangement", "split-2/3", "--secondary", "pattern:#GG0000"], ["bad colour '#GG0000'", "pattern:#RRGGBB"]),
        (["--device", "ipad", "--arrangement", "split-2/3", "--secondary", "photos"], ["--secondary: the app 'photos' is not a demo app", "notes, markets"]),
        (["--device", "ipad", "--arrangement", "split-2/3"], ["--secondary"]),
        (["--device", "ipad", "--arrangement", "full", "--bogus"], ["--bogus"]),
    ]

    /// Each case by its command line.
    @Test(arguments: cases.map { $0.args.joined(separator: " ") })
    func renderRefusesWithExitTwoAndWritesNothing(commandLine: String) throws {
        let c = try #require(Self.cases.first { $0.args.joined(separator: " ") == commandLine })
        let dir = Harness.temporaryDirectory("bad")
        let out = "\(dir)/x.png"
        var args = [Harness.diptych, "render", "--primary", "pattern:#336699", "--out", out] + c.args
        if !c.args.contains("--secondary") && !c.args.contains("split-2/3") { args += ["--secondary", "pattern:#993366"] }
        let r = try Harness.run(args)
        #expect(r.status == 2, "\(c.args): \(r.stderr)")
        for m in c.mentions { #expect(r.stderr.contains(m), "\(c.args): \(r.stderr)") }
        #expect(!Files.exists(out))
        #expect(((try? Files.read(dir)) ?? []).isEmpty)
    }

    @Test func missingOutputDirectoryIsAUsageError() throws {
        let r = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "pattern:#336699", "--out", "/nonexistent/dir/x.png"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/dir"))
    }

    @Test func layoutRefusesTheSameWay() throws {
        let r = try Harness.run([Harness.diptych, "layout", "--device", "pad", "--arrangement", "full"])
        #expect(r.status == 2 && r.stderr.contains("valid devices"))
        let ok = try Harness.run([Harness.diptych, "layout", "--device", "ipad", "--orientation", "landscape", "--arrangement", "split-2/3", "--json"])
        #expect(ok.status == 0)
        let json = try JSONValue.parse(ok.stdout.trimmingNewline)
        #expect(json["divider"]?["x"]?.intValue == 694)
        #expect(json["panes"]?.arrayValue?[0]["frame"]?["width"]?.intValue == 694)
        #expect(json["panes"]?.arrayValue?[1]["frame"]?["x"]?.intValue == 704)
    }
}

extension String {
    var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}

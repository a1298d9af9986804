// SPDX-License-Identifier: MIT
// Your own app in Diptych, as a new user would try it: a client package outside the repository
// that imports only DiptychClient, any app command in render and scenarios, a stock scenario
// reused with another app, and bad app commands and scenario keys refused before anything runs.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

/// The example app the client guide walks through, as built with the package.
private var hello: String { Harness.binDirectory + "/diptych-hello" }

/// Whether a Swift toolchain is on PATH to build a package with.
private let swiftIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v swift"]))?.status ?? 1) == 0

private func logged(_ path: String, _ event: String) -> [JSONValue] {
    ((try? Harness.events(path)) ?? []).filter { $0["event"]?.stringValue == event }
}

struct OwnAppTests {
    /// A package of its own beside a checkout (by path), one import, built with SwiftPM, then
    /// played in a divider drag: its events are logged (by the compositor: the app keeps no
    /// log) and the captures show it compact after the drag.
    @Test(.enabled(if: swiftIsThere, "needs swift on PATH to build the outside package"))
    func aClientPackageOutsideTheRepositoryBuildsWithOneImportAndPlaysADividerDrag() throws {
        let dir = Harness.temporaryDirectory("outside")
        try Files.makeDirectories("\(dir)/app/Sources/myapp")
        #expect(symlink(repositoryRoot, "\(dir)/diptych") == 0)
        let manifest = """
            // swift-tools-version: 6.2
            import PackageDescription
            let package = Package(
                name: "myapp",
                dependencies: [.package(path: "../diptych")],
                targets: [.executableTarget(name: "myapp", dependencies: [.product(name: "DiptychClient", package: "diptych")])])

            """
        try Files.writeAtomically("\(dir)/app/Package.swift", bytes: Array(manifest.utf8))
        // The guide's example, as a user would copy it: `import DiptychClient` and nothing else.
        let source = try Files.read("\(repositoryRoot)/Sources/diptych-hello/main.swift")
        #expect(String(decoding: source, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("import ") } == ["import DiptychClient"])
        try Files.writeAtomically("\(dir)/app/Sources/myapp/main.swift", bytes: source)
        let build = try Harness.run(["/bin/sh", "-c", "cd '\(dir)/app' && swift build 2>&1"], timeoutMilliseconds: 900_000)
        try #require(build.status == 0, "\(build.stdout.suffix(3000))")

        // The stock divider drag with this app as the primary, named relative to the scenario.
        var scenario = String(decoding: try Files.read("\(repositoryRoot)/Assets/scenarios/drag-ipad.json"), as: UTF8.self)
        scenario = scenario.replacingFirst(#""primary":"notes""#, with: #""primary":["./app/.build/debug/myapp"]"#)
        try Files.writeAtomically("\(dir)/drag.json", bytes: Array(scenario.utf8))
        let run = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/drag.json", "--out", "\(dir)/out"], timeoutMilliseconds: 120_000)
        #expect(run.status == 0, "\(run.stderr)")

        let log = "\(dir)/out/events-primary.jsonl"
        let configures = logged(log, "configure")
        #expect(configures.first?["pixelWidth"]?.intValue == 1388)
        #expect(configures.first?["scale"]?.doubleValue == 2)
        #expect(configures.first?["safeAreaInsets"]?["top"]?.doubleValue == 20)
        #expect(configures.last?["pixelWidth"]?.intValue == 1014 && configures.last?["horizontalSizeClass"]?.stringValue == "compact")
        #expect(configures.first?["app"]?.stringValue == #"./app/.build/debug/myapp"#)
        #expect(logged(log, "snapshotRequest").count >= 2)
        #expect(logged(log, "willResignActive").count == 1 && logged(log, "didBecomeActive").count >= 2)
        #expect(logged(log, "sync").isEmpty)
        // Compact after the drag: orange, below its white band under the status bar.
        let after = try PixelImage.readPNG(from: "\(dir)/out/after.png")
        #expect(after.pixel(x: 500, y: 700) & 0xFFFFFF == 0xE08A1E)
        #expect(after.pixel(x: 500, y: 41) & 0xFFFFFF == 0xFFFFFF)
        let mid = try PixelImage.readPNG(from: "\(dir)/out/mid-drag.png")
        #expect(mid.width == 2048)
    }

    /// `render` runs any command (shell-style quoting: a path with a space) and logs its events.
    @Test func renderTakesAnyAppCommandAndLogsItsEvents() throws {
        let dir = Harness.temporaryDirectory("render-own")
        try Files.makeDirectories("\(dir)/my apps")
        try Files.writeAtomically("\(dir)/my apps/hello", bytes: try Files.read(hello))
        chmod("\(dir)/my apps/hello", 0o755)
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "split-2/3",
            "--primary", "'\(dir)/my apps/hello'", "--secondary", "pattern:#993366",
            "--event-log-dir", dir, "--out", "\(dir)/own.png",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let png = try PixelImage.readPNG(from: "\(dir)/own.png")
        #expect(png.pixel(x: 400, y: 700) & 0xFFFFFF == 0x2F6FB5)  // regular: blue
        let configure = try #require(logged("\(dir)/events-primary.jsonl", "configure").first)
        #expect(configure["pixelWidth"]?.intValue == 1388 && configure["arrangement"]?.stringValue == "split-2/3")
        // The demo app beside it still writes its own log, with its state.
        #expect(!logged("\(dir)/events-secondary.jsonl", "configure").isEmpty)
    }

    /// A stock scenario reused with another app: `--secondary` overrides the file's.
    @Test func aStockScenarioIsReusedWithTheSecondaryOverridden() throws {
        let dir = Harness.temporaryDirectory("override")
        let r = try Harness.run(
            [Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/drag-ipad.json", "--secondary", hello, "--out", dir],
            timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let secondary = logged("\(dir)/events-secondary.jsonl", "configure")
        #expect(secondary.first?["app"]?.stringValue == hello)
        #expect(secondary.last?["pixelWidth"]?.intValue == 1014)
        // The primary is still the file's (notes, logging its own state).
        #expect(logged("\(dir)/events-primary.jsonl", "didBecomeActive").first?["app"]?.stringValue == "notes")
        let after = try PixelImage.readPNG(from: "\(dir)/after.png")
        #expect(after.pixel(x: 1800, y: 700) & 0xFFFFFF == 0xE08A1E)  // the secondary, compact
    }

    static let refusals: [(name: String, scenario: String, says: [String])] = [
        ("misspelt key", #"{"primary":"notes","scondary":"pattern:#993366","steps":[]}"#, ["field 'scondary': unknown key", "secondary"]),
        ("misspelt step key", #"{"primary":"notes","steps":[{"at":0,"touch":{"id":1,"phase":"down","x":1,"y":2,"preasure":1}}]}"#,
         ["field 'steps[0].touch.preasure': unknown key"]),
        ("missing program", #"{"primary":"./no-such-app --flag","steps":[]}"#, ["field 'primary'", "no-such-app' does not exist"]),
        ("unknown program", #"{"primary":"no-such-program-anywhere","steps":[]}"#, ["field 'primary'", "no program of that name is on PATH"]),
        ("unclosed quote", #"{"primary":"'my app","steps":[]}"#, ["field 'primary'", "unclosed '"]),
        ("empty list", #"{"primary":[],"steps":[]}"#, ["field 'primary'", "non-empty list of strings"]),
    ]

    /// A bad scenario exits 2 naming the field, and writes nothing.
    @Test(arguments: refusals)
    func aBadScenarioIsRefusedBeforeAnythingIsWritten(name: String, scenario: String, says: [String]) throws {
        let dir = Harness.temporaryDirectory("refused")
        try Files.writeAtomically("\(dir)/bad.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/bad.json", "--out", "\(dir)/out"])
        #expect(r.status == 2, "\(name): \(r.stderr)")
        for s in says { #expect(r.stderr.contains(s), "\(name): \(r.stderr)") }
        #expect(!Files.exists("\(dir)/out"), "\(name): the output folder was made")
    }

    @Test func badAppsAndBatteriesOnTheCommandLineExitTwo() throws {
        let dir = Harness.temporaryDirectory("bad-app")
        for (args, says) in [
            (["render", "--device", "ipad", "--arrangement", "full", "--primary", "/no/such/app", "--out", "\(dir)/x.png"], "--primary: the app '/no/such/app' does not exist"),
            (["render", "--device", "ipad", "--arrangement", "full", "--primary", "notes", "--battery", "140", "--out", "\(dir)/x.png"], "bad --battery '140'"),
            (["run", "--scenario", "\(repositoryRoot)/Assets/scenarios/drag-ipad.json", "--secondary", "\"unfinished", "--out", "\(dir)/o"], "--secondary: the app's command line"),
        ] {
            let r = try Harness.run([Harness.diptych] + args)
            #expect(r.status == 2 && r.stderr.contains(says), "\(args): \(r.stderr)")
        }
        #expect(!Files.exists("\(dir)/x.png") && !Files.exists("\(dir)/o"))
    }
}

extension String {
    /// The string with the first `target` replaced.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(r, with: replacement)
        return copy
    }
}

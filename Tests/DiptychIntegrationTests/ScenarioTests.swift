// SPDX-License-Identifier: MIT
// Multitasking behaviour end to end: the shipped scenarios played by `diptych run --scenario`
// with real app processes over real sockets, judged by what the apps logged and by PNGs.

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychTestSupport
import Testing

let repositoryRoot = Golden.directory(of: #filePath) + "/../.."
let scenarioReferences = Golden.directory(of: #filePath) + "/Reference"

/// A played scenario: its output folder and the apps' event logs without pacing noise.
struct Played {
    let dir: String
    /// Each role's event log, read once the scenario finished (a line that is not JSON fails).
    let logs: [String: [JSONValue]]

    init(dir: String) throws {
        self.dir = dir
        logs = try Dictionary(uniqueKeysWithValues: ["primary", "secondary"].map { ($0, try Harness.events("\(dir)/events-\($0).jsonl")) })
    }

    func events(_ role: String, including: Set<String>? = nil) -> [JSONValue] {
        (logs[role] ?? []).filter {
            let e = $0["event"]?.stringValue ?? ""
            if let including { return including.contains(e) }
            // Pacing, buffer traffic and the keyboard's focus, not lifecycle.
            return e != "frameDone" && e != "snapshotRequest" && e != "release" && e != "keyboardFocus"
        }
    }
    func names(_ role: String) -> [String] { events(role).compactMap { $0["event"]?.stringValue } }
    func configures(_ role: String) -> [JSONValue] { events(role, including: ["configure"]) }
    func image(_ name: String) throws -> PixelImage { try PixelImage.readPNG(from: "\(dir)/\(name)") }
}

func play(_ name: String, file: String? = nil) throws -> Played {
    let dir = Harness.temporaryDirectory("scenario-\(name)")
    let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--scenario", file ?? "\(repositoryRoot)/Assets/scenarios/\(name).json", "--out", dir])
    #expect(r.status == 0, "\(name): \(r.stderr)")
    return try Played(dir: dir)
}

func widths(_ configures: [JSONValue]) -> [Int] { configures.compactMap { $0["frame"]?["width"]?.intValue } }

func expectGolden(_ played: Played, _ capture: String, as name: String) throws {
    let failure = Golden.check(try played.image(capture), name: name, referenceDirectory: scenarioReferences, tolerance: 0)
    #expect(failure == nil, "\(failure ?? "")")
}

struct DividerScenarioTests {
    @Test func twoThirdsToHalfOnIPadMakesBothCompact() throws {
        let p = try play("drag-ipad")
        #expect(widths(p.configures("primary")) == [694, 507])
        #expect(widths(p.configures("secondary")) == [320, 507])
        #expect(p.configures("primary").last?["horizontalSizeClass"]?.stringValue == "compact")
        #expect(p.configures("secondary").last?["horizontalSizeClass"]?.stringValue == "compact")
        #expect(p.names("primary").filter { $0 == "sizeClassChanged" }.count == 1)
        #expect(!p.names("secondary").contains("sizeClassChanged"))
        for role in ["primary", "secondary"] {
            let n = p.names(role)
            // resign, then the new configure, then active again once drawn
            #expect(n == ["configure", "didBecomeActive", "willResignActive", "configure"] + (role == "primary" ? ["sizeClassChanged"] : []) + ["didBecomeActive"], "\(role): \(n)")
            #expect(p.events(role, including: ["snapshotRequest"]).count == 3)
        }
        try expectGolden(p, "mid-drag.png", as: "drag-ipad-mid-drag")
        try expectGolden(p, "after.png", as: "drag-ipad-after")
    }

    @Test func twoThirdsToHalfOnIPadProKeepsThePrimaryRegular() throws {
        let p = try play("drag-ipad-pro")
        #expect(widths(p.configures("primary")) == [981, 678])
        #expect(p.configures("primary").allSatisfy { $0["horizontalSizeClass"]?.stringValue == "regular" })
        #expect(!p.names("primary").contains("sizeClassChanged"))
        #expect(widths(p.configures("secondary")) == [375, 678])
        try expectGolden(p, "after.png", as: "drag-ipad-pro-after")
        let change = try #require(p.events("secondary", including: ["sizeClassChanged"]).first)
        #expect(change["horizontalSizeClass"]?.stringValue == "regular" && change["previousHorizontal"]?.stringValue == "compact")
    }

    @Test func aDragThatReturnsSendsNoConfigureAndLosesNothing() throws {
        let p = try play("drag-return")
        for role in ["primary", "secondary"] {
            #expect(p.configures(role).count == 1, "\(role) got a configure")
            let resign = try #require(p.events(role, including: ["willResignActive"]).first)
            let active = try #require(p.events(role, including: ["didBecomeActive"]).last)
            #expect(resign["stateDigest"] == active["stateDigest"], "\(role)")
            #expect(p.names(role).suffix(2) == ["willResignActive", "didBecomeActive"])
            // Every snapshot the drag asked for came back as a buffer object that was
            // released when the drag ended (before the apps became active again).
            let all = p.logs[role] ?? []
            let requests = all.filter { $0["event"]?.stringValue == "snapshotRequest" }.count
            let lastActive = try #require(all.lastIndex { $0["event"]?.stringValue == "didBecomeActive" })
            let resignIndex = try #require(all.lastIndex { $0["event"]?.stringValue == "willResignActive" })
            let releasedInDrag = all[resignIndex..<lastActive].filter { $0["event"]?.stringValue == "release" }.count
            #expect(requests >= 2 && releasedInDrag == requests, "\(role): \(requests) snapshots, \(releasedInDrag) released")
        }
        // The stroke drawn before the drag is in the digest: it differs from the empty notebook.
        let first = p.events("primary", including: ["didBecomeActive"]).first?["stateDigest"]
        #expect(first != p.events("primary", including: ["didBecomeActive"]).last?["stateDigest"])
    }

    @Test func dragToTheRightEdgeDismissesTheSecondary() throws {
        let p = try play("dismiss-secondary")
        #expect(p.names("secondary").last == "didEnterBackground")
        #expect(p.configures("secondary").count == 1)
        let last = try #require(p.configures("primary").last)
        #expect(last["frame"]?["width"]?.intValue == 1024 && last["arrangement"]?.stringValue == "full")
        #expect(last["horizontalSizeClass"]?.stringValue == "regular")
        #expect(p.names("primary").last == "didBecomeActive")
        try expectGolden(p, "after.png", as: "dismiss-secondary-after")
    }

    @Test func dragIntoTheLeftQuarterMakesTheSecondaryThePrimary() throws {
        let p = try play("dismiss-primary")
        #expect(p.names("primary").last == "didEnterBackground")
        let last = try #require(p.configures("secondary").last)
        #expect(last["role"]?.stringValue == "primary" && last["frame"]?["x"]?.intValue == 0 && last["frame"]?["width"]?.intValue == 1024)
        #expect(p.names("secondary").last == "didBecomeActive")
        #expect(try p.image("after.png").pixel(x: 100, y: 100) & 0xFFFFFF == 0x993366)
        try expectGolden(p, "after.png", as: "dismiss-primary-after")
    }

    @Test func rotationDuringADragEndsInAValidArrangement() throws {
        let p = try play("rotate-during-drag")
        let c = p.configures("primary")
        #expect(widths(c) == [678, 639, 678])
        #expect(c.map { $0["orientation"]?.stringValue } == ["landscape", "portrait", "landscape"])
        #expect(c.map { $0["arrangement"]?.stringValue } == ["split-1/2", "split-2/3", "split-1/2"])
        #expect(widths(p.configures("secondary")) == [678, 375, 678])
        #expect(try p.image("portrait.png").width == 2048)
        #expect(try p.image("landscape.png").width == 2732)
        try expectGolden(p, "portrait.png", as: "rotate-during-drag-portrait")
        // The drag's resign is answered after the rotation.
        #expect(p.names("primary").contains("didBecomeActive"))
    }
}

struct SlideOverScenarioTests {
    @Test func inDismissInAgainAndPin() throws {
        let p = try play("slide-over")
        // Dismissed by its edge: inactive first, then in the background.
        #expect(p.names("secondary") == [
            "didEnterBackground", "willEnterForeground", "configure", "didBecomeActive",
            "willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive", "configure",
        ])
        #expect(p.configures("secondary").first?["arrangement"]?.stringValue == "slide-over")
        #expect(widths(p.configures("primary")) == [1024, 694])  // pinned into split-2/3
        // Pinned, the Slide Over's pane is where it was, but it is told where it now is.
        #expect(p.configures("secondary").last?["arrangement"]?.stringValue == "split-2/3")
        // Each swipe began inside the notes pane, held back until claimed: the app saw none of
        // it (nothing drawn, nothing to cancel).
        #expect(p.events("primary", including: ["touch"]).isEmpty)
        try expectGolden(p, "slide-over.png", as: "slide-over")
        try expectGolden(p, "pinned.png", as: "slide-over-pinned")
    }

    @Test func aRequiresFullScreenPrimaryRefusesThePin() throws {
        let p = try play("full-screen-pin")
        #expect(widths(p.configures("primary")) == [1024])
        #expect(p.configures("secondary").map { $0["arrangement"]?.stringValue } == ["slide-over"])
        #expect(try p.image("after.png").pixel(x: 1500, y: 100) & 0xFFFFFF == 0x993366)  // still floating
    }

    @Test func withoutMultitaskingEveryAppIsFullScreen() throws {
        let p = try play("no-multitasking")
        #expect(widths(p.configures("primary")) == [1024])
        #expect(p.configures("primary").first?["arrangement"]?.stringValue == "full")
        #expect(p.names("secondary") == ["didEnterBackground"])
        // The edge swipe is just a touch for the app.
        let phases = p.events("primary", including: ["touch"]).compactMap { $0["phase"]?.stringValue }
        #expect(phases == ["down", "motion", "motion", "up"])
    }

    @Test func anEdgeSwipeNeverReachesTheAppUnderIt() throws {
        let p = try play("edge-swipe")
        // Held back from notes until the swipe claimed it: no touch, no stroke to cancel.
        #expect(p.events("primary", including: ["touch"]).isEmpty)
        #expect(p.names("secondary").contains("didBecomeActive"))
        try expectGolden(p, "after.png", as: "edge-swipe")
    }
}

struct AppBehaviourScenarioTests {
    @Test func aSlowSnapshotAppNeverStallsTheDrag() throws {
        let p = try play("slow-snapshot")
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(p.dir)/frames.json"), as: UTF8.self))
        let times = frames["frames"]?.arrayValue?.compactMap { $0["time"]?.intValue } ?? []
        // A frame every 16 ms of virtual time through the whole drag, none skipped.
        #expect(times.count >= 272 / 16)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 16 })
        // Before the slow app's snapshots arrive its pane shows its last committed frame; after, a snapshot.
        let early = try p.image("early.png"), late = try p.image("late.png")
        #expect(!early.compare(to: late, tolerance: 0).matches)
        try expectGolden(p, "early.png", as: "slow-snapshot-early")
        try expectGolden(p, "late.png", as: "slow-snapshot-late")
        #expect(p.names("secondary").last == "didBecomeActive")
    }

    @Test func aHungAppDoesNotStopTheOther() throws {
        let p = try play("hung-app")
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(p.dir)/frames.json"), as: UTF8.self))
        let times = frames["frames"]?.arrayValue?.compactMap { $0["time"]?.intValue } ?? []
        #expect(times.count >= 600 / 16 && zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 16 })
        // The hung app got its configure and, never drawing, its activation after 250 ms.
        #expect(widths(p.configures("secondary")) == [320, 507])
        #expect(p.names("secondary").last == "didBecomeActive")
        // The other app drew, became active and still gets its touches.
        #expect(p.names("primary").contains("didBecomeActive"))
        let phases = p.events("primary", including: ["touch"]).compactMap { $0["phase"]?.stringValue }
        #expect(phases == ["down", "motion", "up"])
    }

    @Test func marketsCollapsesWhenCompactAndKeepsTheSelection() throws {
        let p = try play("markets")
        let digests = p.events("primary", including: ["didBecomeActive"]).compactMap { $0["stateDigest"]?.stringValue }
        #expect(digests.count == 3)
        #expect(digests[1] != digests[0])  // the tap selected a row (regular → compact pushes the detail)
        try expectGolden(p, "markets-regular.png", as: "markets-regular")
        try expectGolden(p, "markets-compact.png", as: "markets-compact")
        // Back to regular: list and detail side by side, the same row selected.
        let again = try p.image("markets-regular-again.png"), before = try p.image("markets-regular.png")
        #expect(again.compare(to: before, tolerance: 0).matches)
    }
}

struct PalmRejectionScenarioTests {
    func touches(_ p: Played, id: Int) -> [String] {
        p.events("primary", including: ["touch"]).filter { $0["id"]?.intValue == id }.compactMap { $0["phase"]?.stringValue }
    }

    @Test func thePenCancelsTheFingerStrokeAndKeepsItsOwn() throws {
        let p = try play("notes-palm")
        #expect(touches(p, id: 1) == ["down", "motion", "motion", "motion", "cancel"])
        #expect(touches(p, id: 2).isEmpty)  // down 40 ms after the pen left: held off
        #expect(touches(p, id: 3) == ["down", "motion", "up"])  // after the hold-off
        let pen = p.events("primary", including: ["pen"])
        #expect(pen.compactMap { $0["phase"]?.stringValue } == ["proximityIn", "down", "motion", "motion", "motion", "up", "proximityOut"])
        #expect(pen[2]["pressure"]?.doubleValue == 0.7 && pen[2]["tiltX"]?.doubleValue == 12)
        // Pane-local points: panel pixels / 2 on a full-screen ipad.
        #expect(pen[0]["x"]?.doubleValue == 200 && pen[0]["y"]?.doubleValue == 500)
        try expectGolden(p, "after.png", as: "notes-palm")

        // With palm rejection off, the finger stroke stays and shows.
        let off = try play("notes-palm-off")
        #expect(touches(off, id: 1).last == "up")
        #expect(touches(off, id: 2) == ["down", "motion", "up"])
        #expect(!(try off.image("after.png").compare(to: p.image("after.png"), tolerance: 0).matches))
    }
}

struct DeterminismTests {
    static let scenarios = [
        "demo", "drag-ipad", "drag-ipad-pro", "drag-return", "dismiss-secondary", "dismiss-primary", "slide-over", "rotate", "flick",
        "full-screen-pin", "rotate-during-drag", "slow-snapshot", "hung-app", "markets", "edge-swipe", "no-multitasking",
        "notes-palm", "notes-palm-off", "soft-relaunch", "motion", "pip", "pip-controls", "second-screen", "keyboard-pointer", "keyboard",
    ]
    /// Scenarios with web apps: played (twice, for their PNGs) by `WebAppTests`, when WebKit is there.
    static let webScenarios = ["web-drag", "web-sketch", "web-form", "web-dialogs", "sign-in"]

    @Test func everyShippedScenarioIsListed() throws {
        let r = try Harness.run(["sh", "-c", "ls \(repositoryRoot)/Assets/scenarios"])
        let files = r.stdout.split(separator: "\n").map { String($0.dropLast(".json".count)) }.sorted()
        #expect(files == (Self.scenarios + Self.webScenarios).sorted())
    }

    /// Every scenario, played twice, gives byte-identical event logs and identical captures.
    @Test(arguments: scenarios)
    func theSameScenarioGivesTheSameLogsAndPNGs(name: String) throws {
        let a = try play(name), b = try play(name)
        for role in ["primary", "secondary"] where Files.exists("\(a.dir)/events-\(role).jsonl") || role == "primary" {
            let x = try Files.read("\(a.dir)/events-\(role).jsonl"), y = try Files.read("\(b.dir)/events-\(role).jsonl")
            #expect(x == y, "\(name) \(role) event logs differ")
            #expect(!x.isEmpty)
        }
        let file = "\(repositoryRoot)/Assets/scenarios/\(name).json"
        let scenario = try Scenario.parse(String(decoding: try Files.read(file), as: UTF8.self), file: file)
        let captures = scenario.steps.compactMap { if case .capture(let c, _) = $0.action { c } else { nil } }
        #expect(!captures.isEmpty)
        for c in captures {
            #expect(try a.image(c).compare(to: b.image(c), tolerance: 0).matches, "\(name) \(c) differs")
        }
    }

    @Test func thePenDrawsInNotes() throws {
        let p = try play("demo")
        let pen = p.events("primary", including: ["pen"]).compactMap { $0["phase"]?.stringValue }
        #expect(pen == ["proximityIn", "down", "motion", "motion", "up", "proximityOut"])
        // The tour's slide-over, pin and drags all happened (the pen came last, after them).
        #expect(p.configures("secondary").count >= 3)
        #expect(p.names("secondary").last == "didEnterBackground")
    }
}

struct BadScenarioTests {
    static let cases: [(json: String, field: String)] = [
        (#"{"device":"ipad-air","primary":"notes","steps":[]}"#, "device"),
        (#"{"primary":"notes","arrangement":"split-9/10","secondary":"notes","steps":[]}"#, "arrangement"),
        (#"{"primary":"notes","orientation":"portrait","arrangement":"split-1/2","secondary":"notes","steps":[]}"#, "arrangement"),
        (#"{"primary":"pattern:#12","steps":[]}"#, "primary"),
        (#"{"primary":"notes","arrangement":"split-2/3","steps":[]}"#, "secondary"),
        (#"{"primary":"notes","steps":[{"at":0,"touch":{"id":1,"phase":"press","x":1,"y":2}}]}"#, "steps[0].touch.phase"),
        (#"{"primary":"notes","steps":[{"at":5,"wait":true},{"at":4,"wait":true}]}"#, "steps[1].at"),
        (#"{"primary":"notes","steps":[{"at":0,"capture":"../x.png"}]}"#, "steps[0].capture"),
        (#"{"primary":"notes","steps":[{"at":0,"touch":{"id":1,"phase":"down","x":"left","y":2}}]}"#, "steps[0].touch.x"),
        (#"{"primary":"notes","steps":[{"at":0}]}"#, "steps[0]"),
        (#"{"primary":"notes"}"#, "steps"),
        (#"{"primary":"notes","emulateOn":"2048by1536","steps":[]}"#, "emulateOn"),
        (#"{"primary":"notes","steps":[{"at":0,"emulate":"ipad-air"}]}"#, "steps[0].emulate"),
        (#"{"primary":"notes","steps":[{"at":0,"rotate":"upside-down"}]}"#, "steps[0].rotate"),
    ]

    /// Each case by its scenario text.
    @Test(arguments: cases.map(\.json))
    func refusedWithExitTwoNamingTheFieldAndWritingNothing(json: String) throws {
        let c = try #require(Self.cases.first { $0.json == json })
        let dir = Harness.temporaryDirectory("bad-scenario")
        let file = "\(dir)/bad.json"
        try Files.writeAtomically(file, bytes: Array(c.json.utf8))
        let out = "\(dir)/out"
        let r = try Harness.run([Harness.diptych, "run", "--scenario", file, "--out", out])
        #expect(r.status == 2, "\(c.json): \(r.stderr)")
        #expect(r.stderr.contains(file), "\(r.stderr)")
        #expect(r.stderr.contains("field '\(c.field)'"), "\(c.json): \(r.stderr)")
        #expect(!Files.exists(out))
    }

    @Test func unparsableJSONNamesTheFileAndOffset() throws {
        let dir = Harness.temporaryDirectory("bad-scenario")
        try Files.writeAtomically("\(dir)/x.json", bytes: Array("{\"primary\": ".utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/x.json", "--out", "\(dir)/out"])
        #expect(r.status == 2 && r.stderr.contains("\(dir)/x.json") && r.stderr.contains("invalid JSON at byte"))
        let missing = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/none.json"])
        #expect(missing.status == 2 && missing.stderr.contains("none.json"))
    }
}

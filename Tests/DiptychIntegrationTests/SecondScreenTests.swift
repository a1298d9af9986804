// SPDX-License-Identifier: MIT
// The second physical screen on the headless backend, end to end: only the primary
// hears of it and may draw on it; otherwise it mirrors the main screen fitted to it; it passes
// to the new primary; `render` writes X.screen2.png and a scenario captures it with "screen": 2.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Testing

struct SecondScreenTests {
    /// The programme's darkest sky band (tv's picture) and its "away" background.
    static let sky = 0x1B264F as UInt32
    static let away = 0x101012 as UInt32

    @Test func theScreenPassesFromTheOldPrimaryToTheNewOne() throws {
        let p = try play("second-screen")
        // tv, the primary, heard of the screen and drew its picture there; its own pane says so.
        let tvScreen = p.events("primary", including: ["screenConnected", "screenDisconnected"])
        #expect(tvScreen.map { $0["event"]?.stringValue } == ["screenConnected", "screenDisconnected"])
        #expect(tvScreen.first?["pixelWidth"]?.intValue == 1280 && tvScreen.first?["pixelHeight"]?.intValue == 720)
        let onScreen = try p.image("tv-on-screen2.png")
        #expect(onScreen.width == 1280 && onScreen.height == 720)
        #expect(onScreen.pixel(x: 640, y: 10) & 0xFFFFFF == Self.sky)
        #expect(try p.image("main.png").pixel(x: 600, y: 800) & 0xFFFFFF == Self.away)
        // notes, the secondary, never heard of it until it became the primary (after its
        // full-screen configure), and then once.
        let notes = p.events("secondary", including: ["configure", "screenConnected", "screenDisconnected"]).compactMap { $0["event"]?.stringValue }
        #expect(notes.filter { $0 == "screenConnected" }.count == 1 && !notes.contains("screenDisconnected"))
        let before = p.events("secondary", including: ["configure", "screenConnected"])
        let at = try #require(before.firstIndex { $0["event"]?.stringValue == "screenConnected" })
        #expect(before[..<at].last?["frame"]?["width"]?.intValue == 1024, "\(before)")
        // notes draws nothing there: the screen mirrors the main one, fitted (720/768 scale,
        // centred: 960 px wide between black bars), tv's Picture in Picture window included.
        let mirror = try p.image("mirror.png"), main = try p.image("notes-main.png")
        #expect(mirror.pixel(x: 100, y: 360) & 0xFFFFFF == 0 && mirror.pixel(x: 1200, y: 360) & 0xFFFFFF == 0)
        #expect(mirror.pixel(x: 640, y: 400) & 0xFFFFFF == main.pixel(x: 1024, y: 853) & 0xFFFFFF)
        try expectGolden(p, "mirror.png", as: "second-screen-mirror")
    }

    @Test func renderWritesTheSecondScreenBesideTheFrame() throws {
        let dir = Harness.temporaryDirectory("render-screen2")
        let mirrored = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "split-2/3", "--primary", "pattern:#336699",
            "--secondary", "pattern:#993366", "--second-screen", "1024x768", "--out", "\(dir)/m.png",
        ])
        #expect(mirrored.status == 0, "\(mirrored.stderr)")
        #expect(mirrored.stdout == "\(dir)/m.png\n\(dir)/m.screen2.png\n")
        // Half the main screen's size, same aspect: the frame box-filtered down, no bars.
        let main = try PixelImage.readPNG(from: "\(dir)/m.png"), second = try PixelImage.readPNG(from: "\(dir)/m.screen2.png")
        #expect(second.width == 1024 && second.height == 768)
        #expect(second.pixel(x: 100, y: 100) & 0xFFFFFF == 0x336699 && second.pixel(x: 900, y: 100) & 0xFFFFFF == 0x993366)
        #expect(main.pixel(x: 200, y: 200) & 0xFFFFFF == 0x336699)

        // tv as the primary plays on the second screen, the same picture on every run.
        var pictures: [PixelImage] = []
        for run in 0..<2 {
            let r = try Harness.run([
                Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "tv",
                "--second-screen", "1280x720", "--out", "\(dir)/tv\(run).png",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            pictures.append(try PixelImage.readPNG(from: "\(dir)/tv\(run).screen2.png"))
        }
        #expect(pictures[0].pixel(x: 640, y: 10) & 0xFFFFFF == Self.sky)
        #expect(pictures[0].compare(to: pictures[1], tolerance: 0).matches)

        let bad = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "notes", "--second-screen", "wide", "--out", "\(dir)/x.png",
        ])
        #expect(bad.status == 2 && bad.stderr.contains("--second-screen 'wide'"), "\(bad.stderr)")
    }

    @Test func onlyTheHolderMayDrawOnItAndAnotherAppIsRefusedAlone() throws {
        let f = try Fixture(secondScreen: Size(width: 800, height: 600))
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try f.events("good.jsonl").contains { $0["event"]?.stringValue == "screenConnected" } })
        let bad = try f.misbehave("screen-commit", log: "bad.jsonl")
        // Refused (not the holder), its buffer given back; it lives on.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try f.events("bad.jsonl").contains { $0["event"]?.stringValue == "refused" } })
        let refusal = try #require(try f.events("bad.jsonl").first { $0["event"]?.stringValue == "refused" })
        #expect(refusal["request"]?.stringValue == "secondScreen" && refusal["reason"]?.stringValue == "not-primary")
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(bad.poll() == nil)
        #expect(try f.events("bad.jsonl").allSatisfy { $0["event"]?.stringValue != "screenConnected" })
        // The good app keeps the screen and its frames; the second screen mirrors it.
        #expect(f.compositor.secondScreenOwner == "pattern:#00AA00")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        f.compositor.repaint()
        let second = try #require(f.compositor.secondScreenOutput)
        #expect(second.pixel(x: 400, y: 300) & 0xFFFFFF == 0x00AA00)
    }
}

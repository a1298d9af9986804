// SPDX-License-Identifier: MIT
// Picture in Picture end to end: the `tv` app, dismissed as the primary, opens its
// window by itself; a finger drags the window and it settles in the nearest corner; touches on
// it never reach the app below; the window stays while tv is in the background and goes when
// tv comes back. Judged by frames.json, the apps' event logs and the captures' pixels.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Testing

struct PictureInPictureScenarioTests {
    /// Each frame's time, motion and first window (points), from frames.json.
    func windows(_ p: Played) throws -> [(time: Int, motion: String?, frame: Rect?)] {
        let json = try JSONValue.parse(String(decoding: try Files.read("\(p.dir)/frames.json"), as: UTF8.self))
        return (json["frames"]?.arrayValue ?? []).map { f in
            let w = f["pip"]?.arrayValue?.first
            let frame = w.map {
                Rect(x: $0["x"]?.intValue ?? -1, y: $0["y"]?.intValue ?? -1, width: $0["width"]?.intValue ?? -1, height: $0["height"]?.intValue ?? -1)
            }
            return (f["time"]?.intValue ?? -1, f["motion"]?.stringValue, frame)
        }
    }

    @Test func tvOpensItsWindowInTheBackgroundAndAFingerMovesIt() throws {
        let p = try play("pip")
        let frames = try windows(p)
        // No window while tv is on screen; once it went to the background, one growing out of
        // tv's video (all of its 694 pt pane: the 16:9 picture centred in it) into the bottom
        // right corner, 10 pt in, a quarter of the 1024 pt screen wide with 16:9 (its buffer),
        // smaller every frame.
        let opened = try #require(frames.firstIndex { $0.frame != nil })
        #expect(opened > 0)
        #expect(frames[opened].frame == Rect(x: 0, y: 189, width: 694, height: 389))
        let growing = frames[opened...].prefix { $0.time < frames[opened].time + Int(PictureInPicture.growMilliseconds) }.compactMap(\.frame)
        #expect(growing.count >= 10)
        #expect(zip(growing, growing.dropFirst()).allSatisfy { $1.width < $0.width && $1.x > $0.x }, "\(growing)")
        let grown = try #require(frames.first { $0.time >= frames[opened].time + Int(PictureInPicture.growMilliseconds) })
        #expect(grown.frame == Rect(x: 754, y: 612, width: 260, height: 146))
        #expect(p.names("primary").filter { $0.hasPrefix("did") || $0.hasPrefix("will") }.prefix(4) == ["didBecomeActive", "willResignActive", "didEnterBackground", "willEnterForeground"])

        // The drag: the window follows the finger (its grab point stays under it: panel
        // pixels / 2).
        let follow = frames.filter { $0.motion == "follow" && $0.frame != nil && $0.time > 1000 }
        let dragged = follow.compactMap(\.frame)
        #expect(dragged.contains { $0.x == 754 - 130 && $0.y == 612 - 115 }, "\(dragged)")
        #expect(dragged.last == Rect(x: 754 - 430, y: 612 - 365, width: 260, height: 146))
        // Let go at rest over the top-left quarter: it settles in the top-left corner, below
        // the status bar, gently.
        let settling = frames.filter { $0.time >= 1164 && $0.time <= 1600 }.compactMap { f in f.frame.map { (time: f.time, frame: $0) } }
        expectSettle(settling.map { ($0.time, $0.frame.x) }, from: 324, to: 10, "the window's x")
        expectSettle(settling.map { ($0.time, $0.frame.y) }, from: 247, to: 30, "the window's y")

        // Touches on the window never reached the app under it (notes, now the primary);
        // a touch beside it did.
        let ids = Set(p.events("secondary", including: ["touch"]).compactMap { $0["id"]?.intValue })
        #expect(!ids.contains(2) && ids.contains(3))
        // A pen stroke on the window drew nothing in notes.
        let pen = p.events("secondary", including: ["pen"]).compactMap { $0["phase"]?.stringValue }
        #expect(!pen.contains("down") && !pen.contains("motion") && pen.contains("proximityOut"), "\(pen)")

        // Back on screen (Slide Over), tv closes its window: it shrinks into tv's pane, and the
        // last frames have none.
        let back = frames.filter { $0.time > 1800 }
        let shrinking = back.compactMap(\.frame)
        #expect(shrinking.count >= 5 && zip(shrinking, shrinking.dropFirst()).contains { $1.width > $0.width }, "it moves towards tv's Slide Over pane: \(shrinking)")
        #expect(frames.last?.frame == nil)
        #expect(p.names("primary").last == "didBecomeActive")
    }

    @Test func theWindowIsDrawnOverTheAppsWithRoundedCornersAndAShadow() throws {
        let p = try play("pip")
        let image = try p.image("pip-open.png")
        // The window at (754, 612) pt, 260 × 146, on a 2× screen: tv's darkest sky band at its top.
        let (x, y, w, h) = (1508, 1224, 520, 292)
        #expect(image.pixel(x: x + 400, y: y + 6) & 0xFFFFFF == 0x1B264F)
        // Its bottom: the colour bars (the first is light grey).
        #expect(image.pixel(x: x + 30, y: y + h - 4) & 0xFFFFFF == 0xC0C0C0)
        // Rounded: the very corner shows what is under the window, not the picture.
        #expect(image.pixel(x: x, y: y) & 0xFFFFFF != 0x1B264F)
        // A shadow below the window darkens the notes paper; far from it the paper is itself.
        let paper = image.pixel(x: 600, y: 900) & 0xFFFFFF
        let below = image.pixel(x: x + w / 2, y: y + h + 6) & 0xFFFFFF
        #expect(below & 0xFF < paper & 0xFF && (below >> 16) & 0xFF < (paper >> 16) & 0xFF, "\(String(below, radix: 16)) vs \(String(paper, radix: 16))")
        try expectGolden(p, "pip-moved.png", as: "pip-moved")
    }
}

/// Picture in Picture whole, with tv (`pip-controls.json`): a tap shows the window's controls,
/// play/pause reaches tv (which pauses and says so), a pinch makes it half the screen wide, a
/// fling stashes it at the right with a tab, a tap on the tab brings it back, and "back to the
/// app" brings tv back full screen as the primary, the window shrinking into it.
struct PictureInPictureControlsTests {
    func frames(_ p: Played) throws -> [(time: Int, window: Rect?)] {
        try PictureInPictureScenarioTests().windows(p).map { ($0.time, $0.frame) }
    }

    /// How white the pixel at (x, y) points is (the least of its channels).
    func white(_ image: PixelImage, _ x: Int, _ y: Int) -> UInt32 {
        let p = image.pixel(x: x * 2, y: y * 2)
        return min(p & 0xFF, (p >> 8) & 0xFF, (p >> 16) & 0xFF)
    }

    @Test func theControlsReachTheAppAndTheWindowIsTheUsers() throws {
        let p = try play("pip-controls")
        // The taps on the controls went to tv as pipAction, in order; none reached notes.
        let actions = p.events("primary", including: ["pipAction"]).compactMap { $0["action"]?.stringValue }
        #expect(actions == ["playPause", "restore"])
        #expect(p.events("secondary", including: ["touch"]).isEmpty, "every touch was the window's")

        // Controls over the playing video: close at the top left (white strokes), pause in the
        // middle (its two bars leave the centre dark); paused, the middle is a play triangle.
        let controls = try p.image("pip-controls.png"), paused = try p.image("pip-paused.png")
        #expect(white(controls, 776, 634) > 0xE0 && white(controls, 992, 634 - 6) > 0xE0)
        #expect(white(controls, 884, 685) < 0x80 && white(controls, 884 - 8, 685) > 0xE0, "pause: two bars")
        #expect(white(paused, 884, 685) > 0xE0, "play: a triangle through the middle")
        // Dimmed under the controls: the sky band at the window's top is darker than without.
        let open = try play("pip").image("pip-open.png")
        #expect(controls.pixel(x: 1508 + 400, y: 1224 + 6) & 0xFF < open.pixel(x: 1508 + 400, y: 1224 + 6) & 0xFF)

        let f = try frames(p)
        // Pinched: half the screen wide, its aspect kept, settled bottom right.
        #expect(f.first { $0.time >= 4000 }?.window == Rect(x: 502, y: 470, width: 512, height: 288))
        // Flung right: stashed, 16 pt showing; a tap on the tab brought it back.
        #expect(f.first { $0.time >= 4600 }?.window == Rect(x: 1008, y: 470, width: 512, height: 288))
        #expect(f.first { $0.time >= 5200 }?.window == Rect(x: 502, y: 470, width: 512, height: 288))
        // Back to the app: the window grows into tv's video (full screen now) and goes; tv is
        // the primary, full screen, active; notes went to the background.
        let shrinking = f.filter { $0.time > 5500 }.compactMap(\.window)
        #expect(shrinking.count >= 10 && zip(shrinking, shrinking.dropFirst()).allSatisfy { $1.width >= $0.width })
        #expect(f.last?.window == nil)
        #expect(p.names("primary").suffix(2) == ["willEnterForeground", "didBecomeActive"] || p.names("primary").last == "didBecomeActive")
        #expect(p.names("secondary").contains("didEnterBackground"))
        try expectGolden(p, "pip-controls.png", as: "pip-controls")
        try expectGolden(p, "pip-stashed.png", as: "pip-stashed")
    }
}

/// `--reduce-motion`: what moves by itself (settles, the window growing, a rotation's turn)
/// becomes a short cross-fade; what follows the finger still follows it.
struct ReduceMotionTests {
    func played(_ name: String) throws -> (dir: String, frames: [JSONValue]) {
        let dir = Harness.temporaryDirectory("reduce-\(name)")
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--reduce-motion", "--scenario", "\(repositoryRoot)/Assets/scenarios/\(name).json", "--out", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))
        return (dir, json["frames"]?.arrayValue ?? [])
    }

    @Test func settlesAndTheWindowsGrowthAreCrossFades() throws {
        let (_, frames) = try played("pip")
        let motions = Set(frames.compactMap { $0["motion"]?.stringValue })
        #expect(motions.contains("follow") && motions.contains("fade"))
        #expect(!motions.contains("settle"), "\(motions)")
        // The window is at its corner from its first frame (no growth) and, dragged and let go,
        // in the top-left corner at once.
        let windows = frames.compactMap { $0["pip"]?.arrayValue?.first }.map { Rect(x: $0["x"]?.intValue ?? -1, y: $0["y"]?.intValue ?? -1, width: $0["width"]?.intValue ?? -1, height: $0["height"]?.intValue ?? -1) }
        #expect(windows.first == Rect(x: 754, y: 612, width: 260, height: 146))
        #expect(windows.last == Rect(x: 10, y: 30, width: 260, height: 146))
        #expect(frames.last?["pip"]?.arrayValue?.isEmpty ?? true)
    }

    @Test func aRotationIsACrossFadeNotATurn() throws {
        let (_, frames) = try played("rotate")
        #expect(frames.allSatisfy { $0["turn"] == nil })
        #expect(frames.contains { $0["motion"]?.stringValue == "fade" })
    }
}

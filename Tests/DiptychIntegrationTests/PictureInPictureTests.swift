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
        // No window while tv is on screen; once it went to the background, one in the bottom
        // right corner, 10 pt in, a quarter of the 1024 pt screen wide with 16:9 (its buffer).
        let opened = try #require(frames.firstIndex { $0.frame != nil })
        #expect(opened > 0)
        #expect(frames[opened].frame == Rect(x: 754, y: 612, width: 260, height: 146))
        #expect(p.names("primary").filter { $0.hasPrefix("did") || $0.hasPrefix("will") }.prefix(4) == ["didBecomeActive", "willResignActive", "didEnterBackground", "willEnterForeground"])

        // The drag: the window follows the finger (its grab point stays under it: panel
        // pixels / 2).
        let follow = frames.filter { $0.motion == "follow" && $0.frame != nil && $0.time > 600 }
        let dragged = follow.compactMap(\.frame)
        #expect(dragged.contains { $0.x == 754 - 130 && $0.y == 612 - 115 }, "\(dragged)")
        #expect(dragged.last == Rect(x: 754 - 430, y: 612 - 365, width: 260, height: 146))
        // Released over the top-left quarter: it settles in the top-left corner, below the
        // status bar, gently.
        let settling = frames.filter { $0.time >= 680 && $0.time <= 1100 }.compactMap { f in f.frame.map { (time: f.time, frame: $0) } }
        expectSettle(settling.map { ($0.time, $0.frame.x) }, from: 324, to: 10, "the window's x")
        expectSettle(settling.map { ($0.time, $0.frame.y) }, from: 247, to: 30, "the window's y")

        // Touches on the window never reached the app under it (notes, now the primary);
        // a touch beside it did.
        let ids = Set(p.events("secondary", including: ["touch"]).compactMap { $0["id"]?.intValue })
        #expect(!ids.contains(2) && ids.contains(3))
        // A pen stroke on the window drew nothing in notes.
        let pen = p.events("secondary", including: ["pen"]).compactMap { $0["phase"]?.stringValue }
        #expect(!pen.contains("down") && !pen.contains("motion") && pen.contains("proximityOut"), "\(pen)")

        // Back on screen (Slide Over), tv closes its window: the last frames have none.
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

// SPDX-License-Identifier: MIT
// Motion end to end: scenarios played with real app processes, read frame by frame from
// `frames.json` (where the panes and the divider were, what moved, how a settle ran).

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Testing

/// What `frames.json` says each frame showed.
struct ShownFrame {
    var time: Int
    var motion: String?
    var panes: [(role: String, x: Int, width: Int)]
    var divider: Int?
    /// During a rotation, how far the old picture has turned (degrees).
    var turn: Double?

    static func all(_ p: Played) throws -> [ShownFrame] {
        let json = try JSONValue.parse(String(decoding: try Files.read("\(p.dir)/frames.json"), as: UTF8.self))
        return (json["frames"]?.arrayValue ?? []).map { f in
            ShownFrame(
                time: f["time"]?.intValue ?? -1, motion: f["motion"]?.stringValue,
                panes: (f["panes"]?.arrayValue ?? []).map { ($0["role"]?.stringValue ?? "", $0["x"]?.intValue ?? -1, $0["width"]?.intValue ?? -1) },
                divider: f["divider"]?.intValue, turn: f["turn"]?.doubleValue)
        }
    }
}

/// Checks a settle from `from` to `to` (values of consecutive frames): at least 4 frames
/// strictly between, monotonic, never past `to` by more than 8 pt, over at most 500 ms.
func expectSettle(_ values: [(time: Int, value: Int)], from: Int, to: Int, _ what: String) {
    guard let start = values.firstIndex(where: { $0.value == from }), let end = values.firstIndex(where: { $0.value == to }), end > start else {
        Issue.record("\(what): no settle from \(from) to \(to) in \(values.map(\.value))")
        return
    }
    let run = values[start...end].map(\.value)
    #expect(run.filter { $0 != from && $0 != to }.count >= 4, "\(what): \(run)")
    #expect(zip(run, run.dropFirst()).allSatisfy { from < to ? $1 >= $0 : $1 <= $0 }, "\(what) is not monotonic: \(run)")
    #expect(run.allSatisfy { from < to ? $0 <= to + 8 : $0 >= to - 8 }, "\(what) overshoots: \(run)")
    #expect(values[end].time - values[start].time <= 500, "\(what) took \(values[end].time - values[start].time) ms")
}

struct MomentumScenarioTests {
    /// Read frame by frame from frames.json: a flick of the divider (90 pt in 32 ms from ⅔,
    /// let go at 604 pt, nearer ⅔ than ½) carries on to ½ at the finger's speed, without a stall
    /// at the release, never more than 8 pt past ½; the same place let go at rest goes gently.
    @Test func aFlickedDividerCarriesOnAtTheFingersSpeed() throws {
        let p = try play("flick")
        let frames = try ShownFrame.all(p)
        let flick = frames.filter { $0.time < 600 }.compactMap { f in f.divider.map { (time: f.time, x: $0, motion: f.motion) } }
        let follow = flick.filter { $0.motion == "follow" }
        #expect(follow.map(\.x) == [694, 664, 634], "\(flick)")
        let fingerSpeed = follow[1].x - follow[2].x  // 30 pt a frame
        let settle = flick.drop { $0.motion == "follow" }.map(\.x)
        #expect(settle.first == 604)
        // The first frame after the release moves at least half as fast as the finger did.
        #expect(settle[0] - settle[1] >= fingerSpeed / 2, "\(settle)")
        // Then it slows down all the way, monotonic, and rests at ½ (507) past which it never
        // goes by more than 8 pt.
        let steps = zip(settle, settle.dropFirst()).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 >= 0 } && zip(steps, steps.dropFirst()).allSatisfy { $1 <= $0 + 1 }, "\(settle)")
        #expect(settle.min()! >= 507 - 8 && settle.last == 507)
        // Let go at rest at 587 pt (nearer ½), it settles back from rest: a gentle start.
        let slow = frames.filter { $0.time >= 800 }.compactMap(\.divider)
        #expect(slow.first == 587 && slow.last == 507 && slow[0] - slow[1] <= 6, "\(slow)")
    }
}

struct MotionScenarioTests {
    @Test func slideOverFollowsTheFingerAndEverySettleIsGentle() throws {
        let p = try play("motion")
        let frames = try ShownFrame.all(p)
        func secondaryX(_ f: ShownFrame) -> Int? { f.panes.first { $0.role == "secondary" }?.x }
        // Claimed after 48 pt, the Slide Over's left edge is under the finger (panel px / 2).
        let following = frames.filter { $0.motion == "follow" && $0.time < 100 }
        #expect(following.compactMap(secondaryX) == [970, 940, 910, 880], "\(following.map(\.time))")
        // Released at 880 pt, it settles at W − c = 704.
        let inSlide = frames.filter { $0.time >= 96 && $0.time < 600 }.compactMap { f in secondaryX(f).map { (f.time, $0) } }
        expectSettle(inSlide, from: 880, to: 704, "the Slide Over")
        // The tap pins it: the primary narrows from the full width to 694 pt, the divider appears.
        let pin = frames.filter { $0.time >= 600 && $0.time < 1200 }
        expectSettle(pin.compactMap { f in f.panes.first.map { (f.time, $0.width) } }, from: 1024, to: 694, "the pinned primary")
        #expect(pin.last?.divider == 694)
        // The divider released at 595 pt snaps to split-1/2 (507 pt).
        let snap = frames.filter { $0.time >= 1248 && $0.time < 1700 }.compactMap { f in f.divider.map { (f.time, $0) } }
        expectSettle(snap, from: 595, to: 507, "the divider")
        // The rotation turns: frame by frame the old picture's angle grows, strictly between 0
        // and the quarter turn mid-animation, over about 400 ms.
        let turning = frames.filter { $0.motion == "fade" }.compactMap { f in f.turn.map { (f.time, $0) } }
        #expect(turning.count >= 20, "\(turning)")
        #expect(zip(turning, turning.dropFirst()).allSatisfy { abs($1.1) >= abs($0.1) }, "\(turning)")
        let mid = turning.filter { $0.0 >= 1700 + 60 && $0.0 <= 1700 + 200 }
        #expect(mid.count >= 2 && mid.allSatisfy { abs($0.1) > 1 && abs($0.1) < 89 } && abs(mid.last!.1) > abs(mid.first!.1), "\(mid)")
        #expect(abs(turning.last!.1) > 85 && turning.last!.0 - turning.first!.0 <= 400, "\(turning)")
        // The frame after the turn shows the new layout itself, whole.
        #expect(frames.first { $0.time > turning.last!.0 }?.turn == nil)
        // Apps are activated once the panes are at rest: after the pin's settle, not during it.
        #expect(p.names("secondary").filter { $0 == "didBecomeActive" }.count >= 2)
        // Mid-animation frames, as a user sees them.
        for (capture, name) in [("mid-swipe.png", "motion-mid-swipe"), ("settling.png", "motion-settling"), ("pinning.png", "motion-pinning"),
                                ("snapping.png", "motion-snapping"), ("rotating.png", "motion-rotating")] {
            try expectGolden(p, capture, as: name)
        }
        // Never black inside a pane: mid-snap, the pane wider than its snapshot shows a
        // placeholder in the app's colour.
        let snapping = try p.image("snapping.png")
        #expect(snapping.pixel(x: 1900, y: 300) & 0xFFFFFF != 0)
        // Mid-turn the picture is turned and scaled to stay on the screen: black in the corners,
        // the picture in the middle.
        let rotating = try p.image("rotating.png")
        #expect([(4, 4), (rotating.width - 5, 4), (4, rotating.height - 5), (rotating.width - 5, rotating.height - 5)].allSatisfy { rotating.pixel(x: $0.0, y: $0.1) & 0xFFFFFF == 0 })
        #expect(rotating.pixel(x: rotating.width / 2, y: rotating.height / 2) & 0xFFFFFF != 0)
    }

    @Test func anAppThatNeverAnswersSnapshotsStillAnimates() throws {
        let p = try play("hung-app")
        let frames = try ShownFrame.all(p)
        let settle = frames.filter { $0.motion == "settle" }
        #expect(settle.count >= 4)
        #expect(Set(settle.compactMap(\.divider)).count >= 4)
    }
}

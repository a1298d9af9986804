// SPDX-License-Identifier: MIT
// Picture in Picture whole (SPEC §15): the window grows out of the app's video and shrinks back
// into it, a tap shows its controls for 3 s and a tap on one is its action, a pinch resizes it
// between a quarter and a half of the screen's width, a fling off a side stashes it with a
// 16 pt tab, and a tap on the tab brings it back. Reduce Motion settles by cross-fades.

import DiptychCore
import Testing

struct PiPWholeTests {
    /// iPad landscape: 1024 × 768 pt at 2×, under a 20 pt status bar.
    let space = PiPSpace(screen: Size(width: 1024, height: 768), scale: 2, topInset: 20)
    let tv = AppID(7)
    /// tv's buffer: 260 × 146 pt, resting bottom right at (754, 612).
    let buffer = Size(width: 520, height: 292)
    let rest = Rect(x: 754, y: 612, width: 260, height: 146)

    func opened() -> PictureInPicture {
        var pip = PictureInPicture()
        pip.show(tv, bufferSize: buffer)
        return pip
    }

    /// A tap (down and up 80 ms later at the same place).
    func tap(_ pip: inout PictureInPicture, x: Double, y: Double, at t: UInt64, id: Contact = 1) -> PiPTouchEnd? {
        let r1 = pip.touchDown(id: id, x: x, y: y, in: space, now: t)
        #expect(r1)
        return pip.touchUp(id: id, x: x, y: y, in: space, now: t + 80, cancelled: false)
    }

    @Test func theWindowGrowsOutOfTheVideoAndRestsInItsCorner() {
        var pip = PictureInPicture()
        let video = Rect(x: 0, y: 0, width: 1024, height: 768)
        pip.show(tv, bufferSize: buffer, from: video, at: 1000)
        // It starts as the picture shown in the video's rectangle (its aspect, centred).
        let picture = Rect(x: 0, y: 96, width: 1024, height: 575)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 1000) == picture)
        // Growing (shrinking from the full screen here): every frame between, smaller each time.
        var last = picture
        for t in stride(from: UInt64(1016), to: 1000 + PictureInPicture.growMilliseconds, by: 16) {
            let f = pip.frame(of: pip.windows[0], in: space, at: t)
            #expect(f.width < last.width && f.width > rest.width, "at \(t): \(f)")
            #expect(f.x > last.x && f.x < rest.x)
            last = f
        }
        #expect(pip.isSettling(at: 1100))
        #expect(pip.frame(of: pip.windows[0], in: space, at: 1000 + PictureInPicture.growMilliseconds) == rest)
        #expect(!pip.isSettling(at: 1000 + PictureInPicture.growMilliseconds))
    }

    @Test func closedIntoTheAppItShrinksThereAndGoes() {
        var pip = opened()
        let video = Rect(x: 100, y: 80, width: 600, height: 400)
        let r2 = pip.close(tv, into: video, in: space, at: 500)
        #expect(r2)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 500) == rest)
        let mid = pip.frame(of: pip.windows[0], in: space, at: 500 + PictureInPicture.growMilliseconds / 2)
        #expect(mid.width > rest.width && mid.width < video.width && mid.x < rest.x && mid.x > video.x, "\(mid)")
        #expect(pip.shown(in: space, at: 600).first?.closing == true)
        // A window on its way out takes no touches, and goes once there.
        let r3 = pip.touchDown(id: 1, x: Double(mid.x + 5), y: Double(mid.y + 5), in: space, now: 500 + PictureInPicture.growMilliseconds / 2)
        #expect(!r3)
        let r4 = pip.prune(at: 600)
        #expect(!r4)
        let r5 = pip.prune(at: 500 + PictureInPicture.growMilliseconds)
        #expect(r5)
        #expect(pip.windows.isEmpty)
        // Closed with nowhere to go (the app is not on screen): it goes at once.
        var other = opened()
        let r6 = other.close(tv)
        #expect(r6)
        #expect(other.windows.isEmpty)
    }

    @Test func aTapShowsTheControlsForThreeSecondsAndATapOnOneIsItsAction() {
        var pip = opened()
        // A tap anywhere on it: the controls show, for 3 s.
        let r7 = tap(&pip, x: 850, y: 720, at: 0)
        #expect(r7 == .handled)
        #expect(pip.shown(in: space, at: 100)[0].controls)
        #expect(pip.controlsDeadline(after: 100) == 3080)
        #expect(pip.shown(in: space, at: 3079)[0].controls)
        #expect(!pip.shown(in: space, at: 3080)[0].controls)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 100) == rest, "a tap does not move it")
        // Shown again: play/pause in the middle, close at the top left, back to the app at the
        // top right, each its action (and the controls stay up).
        _ = tap(&pip, x: 850, y: 720, at: 4000)
        let r8 = tap(&pip, x: 884, y: 685, at: 4200)
        #expect(r8 == .action(tv, .playPause))
        #expect(pip.shown(in: space, at: 4300)[0].controls)
        let r9 = tap(&pip, x: 776, y: 634, at: 4400)
        #expect(r9 == .action(tv, .close))
        let r10 = tap(&pip, x: 992, y: 634, at: 4600)
        #expect(r10 == .action(tv, .restore))
        // A tap beside the controls hides them.
        let r11 = tap(&pip, x: 850, y: 740, at: 4800)
        #expect(r11 == .handled)
        #expect(!pip.shown(in: space, at: 4900)[0].controls)
        // Controls hidden, the same place is no control: it shows them.
        let r12 = tap(&pip, x: 776, y: 634, at: 5000)
        #expect(r12 == .handled)
        // A drag hides them and is no tap.
        let r13 = pip.touchDown(id: 2, x: 850, y: 720, in: space, now: 5200)
        #expect(r13)
        _ = pip.touchMotion(id: 2, x: 700, y: 600, in: space, now: 5216)
        #expect(!pip.shown(in: space, at: 5216)[0].controls)
        let r14 = pip.touchUp(id: 2, x: 700, y: 600, in: space, now: 5232, cancelled: false)
        #expect(r14 == .handled)
        #expect(!pip.shown(in: space, at: 5300)[0].controls)
    }

    @Test func aPinchResizesTheWindowBetweenAQuarterAndAHalfOfTheScreen() {
        var pip = opened()
        let r15 = pip.touchDown(id: 1, x: 800, y: 650, in: space, now: 0)
        #expect(r15)
        let r16 = pip.touchDown(id: 2, x: 960, y: 700, in: space, now: 10)
        #expect(r16, "a second finger on the held window pinches it")
        #expect(pip.holds(2))
        // Spread a little: wider with the fingers' distance, the aspect kept, about its centre.
        _ = pip.touchMotion(id: 2, x: 1000, y: 712, in: space, now: 26)
        let wider = pip.frame(of: pip.windows[0], in: space, at: 26)
        #expect(wider.width > rest.width && wider.width < 512)
        #expect(abs(Double(wider.height) - Double(wider.width) * 292 / 520) <= 1)
        #expect(abs((wider.x + wider.width / 2) - (rest.x + rest.width / 2)) <= 1)
        // Spread far: half the screen at most.
        _ = pip.touchMotion(id: 2, x: 1020, y: 760, in: space, now: 42)
        _ = pip.touchMotion(id: 1, x: 300, y: 300, in: space, now: 42)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 42).width == 512)
        // Pinched in: a quarter at least.
        _ = pip.touchMotion(id: 1, x: 1000, y: 740, in: space, now: 58)
        _ = pip.touchMotion(id: 2, x: 1002, y: 741, in: space, now: 58)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 58).width == 256)
        // Spread again and let go: it keeps that size and settles in a corner.
        _ = pip.touchMotion(id: 2, x: 1020, y: 760, in: space, now: 74)
        _ = pip.touchMotion(id: 1, x: 700, y: 560, in: space, now: 74)
        let size = pip.frame(of: pip.windows[0], in: space, at: 74).size
        let r17 = pip.touchUp(id: 2, x: 1020, y: 760, in: space, now: 90, cancelled: false)
        #expect(r17 == .handled)
        let r18 = pip.touchUp(id: 1, x: 700, y: 560, in: space, now: 100, cancelled: false)
        #expect(r18 == nil, "the other finger is nothing any more")
        let settled = pip.frame(of: pip.windows[0], in: space, at: 90 + MotionMetrics.settleMilliseconds)
        #expect(settled.size == size && size.width > rest.width)
        #expect(settled.maxX == 1014 && settled.maxY == 758, "bottom right: \(settled)")
    }

    @Test func flungOffASideItStashesWithATabAndATapBringsItBack() {
        var pip = opened()
        let r19 = pip.touchDown(id: 1, x: 884, y: 685, in: space, now: 0)
        #expect(r19)
        _ = pip.touchMotion(id: 1, x: 934, y: 685, in: space, now: 16)
        _ = pip.touchMotion(id: 1, x: 984, y: 685, in: space, now: 32)
        let r20 = pip.touchUp(id: 1, x: 1020, y: 685, in: space, now: 48, cancelled: false)
        #expect(r20 == .handled)
        let stashed = pip.frame(of: pip.windows[0], in: space, at: 48 + MotionMetrics.settleMilliseconds)
        #expect(stashed.x == 1024 - PictureInPicture.tab && stashed.y == rest.y, "16 pt of it show at the right: \(stashed)")
        #expect(pip.shown(in: space, at: 1000)[0].stashedLeft == false)
        // A slow drag that ends beside the edge is no fling: it stays on screen.
        var slow = opened()
        let r21 = slow.touchDown(id: 1, x: 884, y: 685, in: space, now: 0)
        #expect(r21)
        _ = slow.touchMotion(id: 1, x: 950, y: 685, in: space, now: 300)
        _ = slow.touchUp(id: 1, x: 950, y: 685, in: space, now: 600, cancelled: false)
        #expect(slow.shown(in: space, at: 2000)[0].stashedLeft == nil)
        // A tap on the tab: back in its corner.
        let r22 = tap(&pip, x: 1016, y: 685, at: 1000)
        #expect(r22 == .handled)
        #expect(pip.frame(of: pip.windows[0], in: space, at: 1080 + MotionMetrics.settleMilliseconds) == rest)
        #expect(pip.shown(in: space, at: 2000)[0].stashedLeft == nil)
        #expect(!pip.shown(in: space, at: 2000)[0].controls, "the tap on the tab only brings it back")
    }

    @Test func restoreBringsTheWindowsAppBackAsThePrimary() throws {
        var s = try shell("ipad", .landscape, .split23)
        let effects = s.restore(S, now: 0)
        #expect(s.primary == S && s.secondary == P)
        #expect(s.arrangement == .full)
        #expect(effects.contains(.lifecycle(P, .willResignActive)) && effects.contains(.layoutChanged) && effects.contains(.activateWhenDrawn(S)))
        let later = s.tick(now: MotionMetrics.settleMilliseconds)
        #expect(later.contains(.lifecycle(P, .didEnterBackground)))
        // The primary's own: nothing to do.
        let r23 = s.restore(S, now: 1000).isEmpty
        #expect(r23)
    }

    @Test func underReduceMotionASettleIsACrossFadeAndNothingMovesByItself() throws {
        var s = try shell("ipad", .landscape, .split23)
        s.reduceMotion = true
        // The divider dragged towards ½ and let go: the panes are there at once, cross-faded.
        let effects = s.drag(from: 699, to: 520)
        #expect(effects.contains(.crossFade))
        #expect(!s.isSettling(at: 100))
        #expect(s.arrangement == .split12)
        #expect(s.presentation(at: 100).map(\.frame) == s.presentation.map(\.frame))
    }

    @Test func theVideoRectangleIsKeptInsideThePane() {
        let pane = Rect(x: 704, y: 20, width: 320, height: 728)
        // Inside: placed in the pane.
        #expect(PictureInPicture.videoRect(Rect(x: 10, y: 40, width: 300, height: 170), given: pane, pane: pane) == Rect(x: 714, y: 60, width: 300, height: 170))
        // Reaching out of it: cut to it.
        #expect(PictureInPicture.videoRect(Rect(x: -100, y: -50, width: 5000, height: 400), given: pane, pane: pane) == Rect(x: 704, y: 20, width: 320, height: 350))
        // Wholly outside: the pane's centre.
        let centre = PictureInPicture.videoRect(Rect(x: 9000, y: 9000, width: 10, height: 10), given: pane, pane: pane)
        #expect(centre == PictureInPicture.videoRect(nil, given: nil, pane: pane))
        #expect(centre.x + centre.width / 2 == 864 && pane.contains(x: Double(centre.x), y: Double(centre.y)))
        // Given in a 694 pt pane, shown in the full screen: scaled with it.
        let full = Rect(x: 0, y: 0, width: 1024, height: 768)
        #expect(PictureInPicture.videoRect(Rect(x: 0, y: 0, width: 694, height: 768), given: Rect(x: 0, y: 0, width: 694, height: 768), pane: full) == full)
    }
}

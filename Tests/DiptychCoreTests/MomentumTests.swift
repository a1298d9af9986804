// SPDX-License-Identifier: MIT
// Momentum in the pure shell, with injected time: the release velocity, the projection that
// chooses where a flicked thing rests, settles that start at the finger's speed, and the
// overshoot bound.

@testable import DiptychCore
import Testing

struct MomentumTests {
    @Test func releaseVelocityIsTheSlopeOfTheLast100Milliseconds() {
        var t = VelocityTracker()
        #expect(t.velocity(at: 0) == 0)
        t.add(0, at: 0)
        #expect(t.velocity(at: 0) == 0)  // one sample: no velocity
        for i in 1...10 { t.add(Double(i) * 3, at: UInt64(i * 10)) }
        #expect(abs(t.velocity(at: 100) - 0.3) < 1e-9)
        // Older than 100 ms before the release: left out (here a pause, then a fast move).
        var u = VelocityTracker()
        u.add(0, at: 0)
        u.add(0, at: 200)
        u.add(50, at: 250)
        u.add(100, at: 300)
        #expect(abs(u.velocity(at: 300) - 1.0) < 1e-9)
        // Nothing in the last 100 ms: 0.
        #expect(u.velocity(at: 1000) == 0)
    }

    @Test func projectionIsAboutHalfASecondOfTheVelocity() {
        #expect(abs(Momentum.projection(1) - 499) < 1e-6)  // 1000 pt/s → 499 pt
        #expect(Momentum.projection(0) == 0)
    }

    /// The flick: 90 pt in 32 ms towards the ½ split takes the divider there (it went
    /// back to ⅔ before momentum).
    @Test func aFlickOfTheDividerTakesItToTheNextSplit() throws {
        var s = try shell()
        _ = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 654, y: 300, now: 16)
        _ = s.handleTouch(id: 1, phase: .up, x: 609, y: 300, now: 32)
        #expect(s.arrangement == .split12)
        // Slowly to the same place and let go: back to ⅔.
        var slow = try shell()
        _ = slow.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        for i in 1...9 { _ = slow.handleTouch(id: 1, phase: .motion, x: 699 - Double(i) * 10, y: 300, now: UInt64(i) * 100) }
        _ = slow.handleTouch(id: 1, phase: .up, x: 609, y: 300, now: 1000)
        #expect(slow.arrangement == .split23)
    }

    /// A flick alone never dismisses an app: only where the finger let go does.
    @Test func aFlickAloneNeverDismissesByTheDivider() throws {
        var s = try shell()
        _ = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 760, y: 300, now: 16)
        _ = s.handleTouch(id: 1, phase: .up, x: 820, y: 300, now: 32)
        #expect(s.arrangement == .split23 && s.secondaryShown)
    }

    /// The settle carries on at the finger's speed (no stall at the release) and overshoots the
    /// split by at most 8 pt, however hard the flick.
    /// A flick of `step` points a frame (16 ms) to the left, let go after two frames, or (`back`)
    /// one that turns back at the last frame.
    @Test(arguments: [(30.0, false), (90.0, false), (400.0, false), (200.0, true)])
    func theSettleStartsAtTheFingersSpeedAndOvershootsAtMost8Points(step: Double, back: Bool) throws {
        var s = try shell()
        _ = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 699 - step, y: 300, now: 16)
        _ = s.handleTouch(id: 1, phase: .up, x: max(300, back ? 699 - step / 2 : 699 - 2 * step), y: 300, now: 32)
        let target = try #require(s.layout.divider).x
        func dividerX(_ t: UInt64) -> Int? { PresentedPane.divider(between: s.presentation(at: t), screen: s.layout.screen)?.x }
        let releaseX = try #require(dividerX(32))
        let first = try #require(dividerX(48))
        // A flick that needs no clamp: the first settle frame moves at least 0.6 × the finger's
        // last frame (no stall at the release).
        if step == 30 { #expect(Double(releaseX - first) >= 0.6 * step, "first settle frame \(releaseX - first) pt") }
        // Never more than 8 pt outside the path from where it was let go to where it rests.
        let (lo, hi) = (min(releaseX, target), max(releaseX, target))
        var outside = 0
        for t in stride(from: UInt64(32), through: 32 + MotionMetrics.settleMilliseconds, by: 1) {
            guard let x = dividerX(t) else { continue }
            outside = max(outside, lo - x, x - hi)
        }
        #expect(outside <= 8, "\(outside) pt outside the path")
        #expect(dividerX(32 + MotionMetrics.settleMilliseconds) == target)
    }

    /// The Slide Over flick: 89 pt in 32 ms to the right dismisses it (it sprang back).
    @Test func aFlickOfTheSlideOverToTheRightDismissesIt() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        let edge = 1024.0 - 320
        _ = s.handleTouch(id: 1, phase: .down, x: edge, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: edge + 45, y: 300, now: 16)
        _ = s.handleTouch(id: 1, phase: .up, x: edge + 89, y: 300, now: 32)
        #expect(!s.secondaryShown)
        // The same distance slowly: it springs back.
        var slow = try shell("ipad", .landscape, .slideOver)
        _ = slow.handleTouch(id: 1, phase: .down, x: edge, y: 300, now: 0)
        for i in 1...8 { _ = slow.handleTouch(id: 1, phase: .motion, x: edge + Double(i) * 11, y: 300, now: UInt64(i) * 100) }
        _ = slow.handleTouch(id: 1, phase: .up, x: edge + 89, y: 300, now: 900)
        #expect(slow.secondaryShown && slow.arrangement == .slideOver)
    }

    @Test func aSettleFromRestIsTheSpringItWasBefore() {
        // Released at rest: exactly the earlier spring (golden mid-animation frames keep).
        let k = MotionMetrics.stiffness
        for e: UInt64 in [0, 50, 175, 349] {
            let t = Double(e) / 350 * k
            let old = (1 - (1 + t) * Spring.exp(-t)) / (1 - (1 + k) * Spring.exp(-k))
            #expect(abs(Spring.progress(elapsed: e, duration: 350) - old) < 1e-12)
        }
    }
}

/// A flung Picture in Picture window rests in the corner nearest where it was flung, not where
/// the finger lifted, and keeps within 24 pt of its path.
struct PiPMomentumTests {
    @Test func aFlickSendsTheWindowToTheCornerItWasFlungTowards() {
        let space = PiPSpace(screen: Size(width: 1024, height: 768), scale: 2, topInset: 20)
        var pip = PictureInPicture()
        pip.show(AppID(5), bufferSize: Size(width: 520, height: 292))
        // It rests bottom right; picked up and flung up-left, let go still in the right half.
        let start = pip.frame(of: pip.windows[0], in: space, at: 0)
        let (x0, y0) = (Double(start.x + 20), Double(start.y + 20))
        _ = pip.touchDown(id: 1, x: x0, y: y0, in: space, now: 0)
        _ = pip.touchMotion(id: 1, x: x0 - 20, y: y0 - 15, in: space, now: 16)
        _ = pip.touchUp(id: 1, x: x0 - 40, y: y0 - 30, in: space, now: 32, cancelled: false)
        #expect(pip.windows[0].corner == .topLeft)
        // The same path slowly, let go at rest: the corner nearest where it is (bottom right).
        var slow = PictureInPicture()
        slow.show(AppID(5), bufferSize: Size(width: 520, height: 292))
        _ = slow.touchDown(id: 1, x: x0, y: y0, in: space, now: 0)
        _ = slow.touchMotion(id: 1, x: x0 - 80, y: y0 - 60, in: space, now: 200)
        _ = slow.touchUp(id: 1, x: x0 - 80, y: y0 - 60, in: space, now: 400, cancelled: false)
        #expect(slow.windows[0].corner == .bottomRight)
        // The flung window keeps moving at the release and stays within 24 pt of its path.
        let home = PictureInPicture.home(.topLeft, size: PictureInPicture.size(of: Size(width: 520, height: 292), in: space), in: space)
        let released = pip.frame(of: pip.windows[0], in: space, at: 32)
        let next = pip.frame(of: pip.windows[0], in: space, at: 48)
        #expect(next.x < released.x && next.y < released.y)
        for t in stride(from: UInt64(32), through: 32 + MotionMetrics.settleMilliseconds, by: 4) {
            let f = pip.frame(of: pip.windows[0], in: space, at: t)
            #expect(Double(f.x) >= home.x - 24 && Double(f.y) >= home.y - 24, "at \(t): \(f)")
        }
        #expect(pip.frame(of: pip.windows[0], in: space, at: 32 + MotionMetrics.settleMilliseconds).x == Int(home.x))
    }
}

struct RubberBandTests {
    @Test func theRubberBandResistsMoreTheFurtherItIsPulled() {
        let d = 320.0
        #expect(RubberBand.offset(0, dimension: d) == 0)
        let a = RubberBand.offset(50, dimension: d), b = RubberBand.offset(100, dimension: d), c = RubberBand.offset(10_000, dimension: d)
        #expect(a > 0 && a < 50 && b < 100 && b - a < a)  // each more point moves it less
        #expect(c < d)  // never as far as its width
        #expect(abs(RubberBand.offset(d / 0.55, dimension: d) - d / 2) < 1e-9)  // the formula's half-way point
    }

    /// The Slide Over pulled left of its place follows with resistance, then springs back.
    @Test func theSlideOverPulledLeftRubberBandsAndSpringsBack() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        _ = s.handleTouch(id: 1, phase: .down, x: 710, y: 400, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 510, y: 400, now: 200)
        let pulled = s.presentation[1].frame.x
        #expect(pulled < 704 && pulled > 704 - 200, "\(pulled)")
        _ = s.handleTouch(id: 1, phase: .up, x: 510, y: 400, now: 400)
        #expect(s.arrangement == .slideOver)
        #expect(s.presentation(at: 400 + MotionMetrics.settleMilliseconds)[1].frame.x == 704)
    }
}

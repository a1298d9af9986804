// SPDX-License-Identifier: MIT
// The multitasking shell driven by timed touches, as SPEC §7 describes each gesture.

import DiptychCore
import Testing

let P = AppID(1), S = AppID(2)

func shell(_ device: String = "ipad", _ o: Orientation = .landscape, _ a: Arrangement = .split23, fullScreenPrimary: Bool = false) throws -> Shell {
    var s = Shell(profile: try DeviceProfile.named(device), orientation: o, arrangement: a)
    _ = s.add(P, preferring: .primary, requiresFullScreen: fullScreenPrimary)
    _ = s.add(S, preferring: .secondary, requiresFullScreen: false)
    return s
}

extension Shell {
    /// A one-finger drag from x0 to x1 (points) at mid-height; returns every effect.
    mutating func drag(from x0: Double, to x1: Double, at t: UInt64 = 0, steps: Int = 4, id: Int32 = 1) -> [ShellEffect] {
        var e = handleTouch(id: id, phase: .down, x: x0, y: 300, now: t)
        for i in 1...steps { e += handleTouch(id: id, phase: .motion, x: x0 + (x1 - x0) * Double(i) / Double(steps), y: 300, now: t + UInt64(16 * i)) }
        e += handleTouch(id: id, phase: .up, x: x1, y: 300, now: t + UInt64(16 * (steps + 1)))
        return e
    }
}

struct ShellDividerTests {
    @Test func dragTwoThirdsToHalfOnIPad() throws {
        var s = try shell()
        let down = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        #expect(down.prefix(2) == [.lifecycle(P, .willResignActive), .lifecycle(S, .willResignActive)])
        guard case .requestSnapshots(P, let pp) = down[2], case .requestSnapshots(S, let sp) = down[3] else {
            Issue.record("no snapshot requests: \(down)")
            return
        }
        #expect(pp.map(\.frame.width) == [694, 507, 1024])  // split-2/3, split-1/2, full
        #expect(sp.map(\.frame.width) == [320, 507, 1024])
        #expect(sp.map(\.frame.x) == [704, 517, 0])
        _ = s.handleTouch(id: 1, phase: .motion, x: 600, y: 300, now: 16)
        // Mid-drag the panes follow the finger, anchored at their outer edges.
        let mid = s.presentation
        #expect(mid[0].frame.width == 595 && mid[0].anchor == .leading && mid[0].prefersSnapshots)
        #expect(mid[1].frame.x == 605 && mid[1].frame.maxX == 1024 && mid[1].anchor == .trailing)
        #expect(s.layout.arrangement == .split23)  // nothing configured until release
        let up = s.handleTouch(id: 1, phase: .up, x: 530, y: 300, now: 32)
        #expect(up == [.dropSnapshots, .layoutChanged, .activateWhenDrawn(P), .activateWhenDrawn(S)])
        #expect(s.arrangement == .split12)
        #expect(s.layout.pane(.primary)?.frame.width == 507)
    }

    @Test func dragThatReturnsChangesNothing() throws {
        var s = try shell()
        let before = s.layout
        _ = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        for (i, x) in [600.0, 450, 300, 600, 699].enumerated() {
            _ = s.handleTouch(id: 1, phase: .motion, x: x, y: 300, now: UInt64(16 * (i + 1)))
        }
        let up = s.handleTouch(id: 1, phase: .up, x: 699, y: 300, now: 200)
        #expect(s.layout == before)
        #expect(up == [.dropSnapshots, .layoutChanged, .activateWhenDrawn(P), .activateWhenDrawn(S)])
    }

    @Test func dragToTheRightEdgeDismissesTheSecondary() throws {
        var s = try shell()
        let e = s.drag(from: 699, to: 1010)
        #expect(e.contains(.lifecycle(S, .didEnterBackground)))
        #expect(s.arrangement == .full && s.primary == P && !s.secondaryShown)
        #expect(s.layout.pane(.primary)?.horizontalSizeClass == .regular)
    }

    @Test func dragIntoTheLeftQuarterDismissesThePrimary() throws {
        var s = try shell()
        let e = s.drag(from: 699, to: 200)
        #expect(e.contains(.lifecycle(P, .didEnterBackground)))
        #expect(e.contains(.activateWhenDrawn(S)))
        #expect(s.primary == S && s.secondary == P && s.arrangement == .full)
        #expect(s.pane(of: S)?.frame.width == 1024 && s.pane(of: S)?.role == .primary)
    }

    @Test func portraitOffersOnlyTwoThirds() throws {
        var s = try shell("ipad", .portrait)
        _ = s.drag(from: 443, to: 384)  // the middle of a 768 pt screen
        #expect(s.arrangement == .split23)
    }
}

struct ShellSlideOverTests {
    @Test func edgeSwipeBringsTheSecondaryInAndCancelsTheTouch() throws {
        var s = try shell("ipad", .landscape, .full)
        #expect(!s.secondaryShown)
        let down = s.handleTouch(id: 4, phase: .down, x: 1020, y: 200, now: 0)
        #expect(down == [.touch(P, id: 4, phase: .down, x: 1020, y: 200)])  // delivered to the app first
        let small = s.handleTouch(id: 4, phase: .motion, x: 1000, y: 200, now: 16)
        #expect(small == [.touch(P, id: 4, phase: .motion, x: 1000, y: 200)])
        let claimed = s.handleTouch(id: 4, phase: .motion, x: 960, y: 200, now: 32)
        #expect(claimed == [.touch(P, id: 4, phase: .cancel, x: 960, y: 200), .lifecycle(S, .willEnterForeground), .layoutChanged, .activateWhenDrawn(S)])
        #expect(s.arrangement == .slideOver)
        #expect(s.handleTouch(id: 4, phase: .up, x: 900, y: 200, now: 48).isEmpty)  // swallowed
    }

    @Test func tapOnTheEdgePinsAndDragDismisses() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        _ = s.handleTouch(id: 1, phase: .down, x: 706, y: 300, now: 0)
        #expect(s.handleTouch(id: 1, phase: .up, x: 708, y: 300, now: 120) == [.layoutChanged])
        #expect(s.arrangement == .split23)

        var d = try shell("ipad", .landscape, .slideOver)
        let e = d.drag(from: 704, to: 900)
        #expect(e == [.lifecycle(S, .didEnterBackground), .layoutChanged])
        #expect(d.arrangement == .full)

        var back = try shell("ipad", .landscape, .slideOver)
        #expect(back.drag(from: 704, to: 780).isEmpty)  // not past W − c/2: it stays
        #expect(back.arrangement == .slideOver)
    }

    @Test func slowTouchOnTheEdgeDoesNotPin() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        _ = s.handleTouch(id: 1, phase: .down, x: 704, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .up, x: 704, y: 300, now: 400)
        #expect(s.arrangement == .slideOver)
    }

    @Test func requiresFullScreenPrimaryRefusesThePinAndSplits() throws {
        var s = try shell("ipad", .landscape, .slideOver, fullScreenPrimary: true)
        _ = s.handleTouch(id: 1, phase: .down, x: 704, y: 300, now: 0)
        #expect(s.handleTouch(id: 1, phase: .up, x: 704, y: 300, now: 50).isEmpty)
        #expect(s.arrangement == .slideOver)
        let split = try shell("ipad", .landscape, .split23, fullScreenPrimary: true)
        #expect(split.arrangement == .slideOver)
    }

    @Test func noMultitaskingKeepsEverythingFullScreen() throws {
        var s = Shell(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23, multitasking: false)
        _ = s.add(P, preferring: .primary, requiresFullScreen: false)
        #expect(s.add(S, preferring: .secondary, requiresFullScreen: false).contains(.lifecycle(S, .didEnterBackground)))
        #expect(s.arrangement == .full)
        let e = s.drag(from: 1020, to: 900)
        #expect(e.allSatisfy { if case .touch(P, _, _, _, _) = $0 { return true } else { return false } })
        #expect(s.arrangement == .full)
    }
}

struct ShellRotationAndTouchTests {
    @Test func rotationDuringADragEndsInAValidArrangement() throws {
        var s = try shell("ipad-pro", .landscape, .split12)
        _ = s.handleTouch(id: 1, phase: .down, x: 683, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 900, y: 300, now: 16)
        let r = s.rotate(to: .portrait)
        #expect(r.first == .layoutChanged && r.contains(.activateWhenDrawn(P)) && r.contains(.dropSnapshots))
        #expect(s.drag == nil)
        #expect(s.arrangement == .split23)  // split-1/2 shows as 2/3 in portrait ...
        #expect(s.handleTouch(id: 1, phase: .up, x: 100, y: 300, now: 32).isEmpty)
        _ = s.rotate(to: .landscape)
        #expect(s.arrangement == .split12)  // ... and comes back
    }

    @Test func touchesGoToThePaneUnderThemInLocalPoints() throws {
        var s = try shell()
        #expect(s.handleTouch(id: 2, phase: .down, x: 800, y: 100, now: 0) == [.touch(S, id: 2, phase: .down, x: 96, y: 100)])
        // It stays with that app wherever it moves.
        #expect(s.handleTouch(id: 2, phase: .motion, x: 500, y: 100, now: 16) == [.touch(S, id: 2, phase: .motion, x: -204, y: 100)])
        #expect(s.handleTouch(id: 3, phase: .down, x: 10, y: 20, now: 20) == [.touch(P, id: 3, phase: .down, x: 10, y: 20)])
        #expect(s.handlePen(phase: .proximityIn, x: 710, y: 5, pressure: 0, tiltX: 0, tiltY: 0) == [.pen(S, phase: .proximityIn, x: 6, y: 5, pressure: 0, tiltX: 0, tiltY: 0)])
    }

    @Test func aPenNeverStartsACompositorGesture() throws {
        var s = try shell()
        #expect(s.handlePen(phase: .proximityIn, x: 699, y: 300, pressure: 0, tiltX: 0, tiltY: 0).isEmpty)  // over the divider
        _ = s.handlePen(phase: .down, x: 699, y: 300, pressure: 1, tiltX: 0, tiltY: 0)
        _ = s.handlePen(phase: .motion, x: 500, y: 300, pressure: 1, tiltX: 0, tiltY: 0)
        #expect(s.drag == nil && s.arrangement == .split23)
        var full = try shell("ipad", .landscape, .full)
        let e = full.handlePen(phase: .proximityIn, x: 1020, y: 300, pressure: 0, tiltX: 0, tiltY: 0)
        #expect(e == [.pen(P, phase: .proximityIn, x: 1020, y: 300, pressure: 0, tiltX: 0, tiltY: 0)])
        _ = full.handlePen(phase: .motion, x: 900, y: 300, pressure: 0, tiltX: 0, tiltY: 0)
        #expect(full.arrangement == .full)  // no Slide Over from a pen at the edge
    }

    @Test func aDepartingPrimaryLeavesTheSecondaryFullScreen() throws {
        var s = try shell()
        let e = s.remove(P)
        #expect(s.primary == S && s.secondary == nil && s.arrangement == .full)
        #expect(e == [.layoutChanged, .activateWhenDrawn(S)])
    }

    /// Random gestures never leave the shell in an invalid state.
    @Test(arguments: 0..<4)
    func randomGesturesKeepTheLayoutValid(seed: UInt64) throws {
        var g = SplitMix(state: seed)
        for device in ["ipad", "ipad-pro"] {
            var s = try shell(device, .landscape, Arrangement.allCases.randomElement(using: &g)!)
            var t: UInt64 = 0
            for _ in 0..<400 {
                t += UInt64.random(in: 1...200, using: &g)
                let w = Double(s.layout.screen.width)
                switch Int.random(in: 0..<10, using: &g) {
                case 0: _ = s.rotate(to: Orientation.allCases.randomElement(using: &g)!)
                default:
                    let phase = [TouchPhase.down, .motion, .motion, .up, .cancel].randomElement(using: &g)!
                    _ = s.handleTouch(id: Int32.random(in: 1...2, using: &g), phase: phase, x: Double.random(in: 0..<w, using: &g), y: 100, now: t)
                }
                let screen = Rect(x: 0, y: 0, width: s.layout.screen.width, height: s.layout.screen.height)
                #expect(s.layout.panes.allSatisfy { screen.contains($0.frame) })
                #expect(s.primary != nil && s.secondary != nil && s.primary != s.secondary)
                for p in s.presentation { #expect(p.frame.width >= 0 && p.frame.minX >= 0 && p.frame.x <= screen.width + 1) }
                if s.orientation == .portrait { #expect(s.arrangement != .split12) }
            }
        }
    }
}

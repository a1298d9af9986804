// SPDX-License-Identifier: MIT
// The multitasking shell driven by timed touches, as the contract describes each gesture.

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
    /// `stepMilliseconds` apart (a slow drag, long ones: it lets go at rest).
    mutating func drag(from x0: Double, to x1: Double, at t: UInt64 = 0, steps: Int = 4, id: Contact = 1, stepMilliseconds: UInt64 = 16) -> [ShellEffect] {
        var e = handleTouch(id: id, phase: .down, x: x0, y: 300, now: t)
        for i in 1...steps { e += handleTouch(id: id, phase: .motion, x: x0 + (x1 - x0) * Double(i) / Double(steps), y: 300, now: t + stepMilliseconds * UInt64(i)) }
        e += handleTouch(id: id, phase: .up, x: x1, y: 300, now: t + stepMilliseconds * UInt64(steps + 1))
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
        // Configured at once; the snapshots stay while the panes settle.
        #expect(up == [.layoutChanged, .activateWhenDrawn(P), .activateWhenDrawn(S)])
        #expect(s.arrangement == .split12)
        #expect(s.layout.pane(.primary)?.frame.width == 507)
        #expect(s.isSettling(at: 48) && s.motion?.end == 32 + MotionMetrics.settleMilliseconds)
        #expect(s.tick(now: 100).isEmpty)
        #expect(s.tick(now: 32 + MotionMetrics.settleMilliseconds) == [.dropSnapshots])
        #expect(s.motion == nil && s.presentation(at: 1000)[0].frame.width == 507)
    }

    @Test func anAppIsDimmedAsTheDividerNearsTheEdgeThatDismissesIt() throws {
        var s = try shell()
        _ = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 0)
        // At a split nothing is dimmed; both are blurred while the divider is held.
        #expect(s.presentation.map(\.dim) == [0, 0] && s.presentation.map(\.blur) == [1, 1])
        // Towards the right edge the secondary darkens, most where the release dismisses it
        // (half the 320 pt column).
        var dims: [Double] = []
        for (i, x) in [760.0, 800, 840, 864, 900].enumerated() {
            _ = s.handleTouch(id: 1, phase: .motion, x: x, y: 300, now: 16 * UInt64(i + 1))
            dims.append(s.presentation[1].dim)
            #expect(s.presentation[0].dim == 0)
        }
        #expect(dims[0] > 0 && zip(dims, dims.dropFirst()).allSatisfy { $1 >= $0 } && dims[2] < PresentedPane.maxDim && dims.last == PresentedPane.maxDim, "\(dims)")
        // Towards the left edge, the primary.
        _ = s.handleTouch(id: 1, phase: .motion, x: 200, y: 300, now: 200)
        #expect(s.presentation[0].dim == PresentedPane.maxDim && s.presentation[1].dim == 0)
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
        // Nothing to settle: the snapshots go at once.
        #expect(up == [.dropSnapshots, .layoutChanged, .activateWhenDrawn(P), .activateWhenDrawn(S)])
    }

    @Test func dragToTheRightEdgeDismissesTheSecondary() throws {
        var s = try shell()
        let e = s.drag(from: 699, to: 1010)
        // In the background once it has slid off.
        #expect(!e.contains(.lifecycle(S, .didEnterBackground)))
        #expect(s.motion?.onFinish == [.lifecycle(S, .didEnterBackground), .dropSnapshots])
        #expect(s.tick(now: 1000) == [.lifecycle(S, .didEnterBackground), .dropSnapshots])
        #expect(s.arrangement == .full && s.primary == P && !s.secondaryShown)
        #expect(s.layout.pane(.primary)?.horizontalSizeClass == .regular)
    }

    @Test func dragIntoTheLeftQuarterDismissesThePrimary() throws {
        var s = try shell()
        let e = s.drag(from: 699, to: 200) + s.tick(now: 1000)
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
    @Test func edgeSwipeIsHeldBackThenBringsTheSecondaryInUnderTheFinger() throws {
        var s = try shell("ipad", .landscape, .full)
        #expect(!s.secondaryShown)
        // Held back: the app sees nothing of a touch the swipe may claim.
        #expect(s.handleTouch(id: 4, phase: .down, x: 1020, y: 200, now: 0).isEmpty)
        #expect(s.handleTouch(id: 4, phase: .motion, x: 1000, y: 200, now: 16).isEmpty)
        let claimed = s.handleTouch(id: 4, phase: .motion, x: 960, y: 200, now: 32)
        #expect(claimed == [.lifecycle(S, .willEnterForeground), .layoutChanged, .activateWhenDrawn(S)])
        #expect(s.arrangement == .slideOver)
        // The Slide Over follows the finger, its left edge under it, never past W − c.
        #expect(s.presentation(at: 32)[1].frame.x == 960 && s.presentation(at: 32)[1].floating == 1)
        _ = s.handleTouch(id: 4, phase: .motion, x: 850, y: 200, now: 48)
        #expect(s.presentation(at: 48)[1].frame.x == 850)
        _ = s.handleTouch(id: 4, phase: .motion, x: 500, y: 200, now: 64)
        #expect(s.presentation(at: 64)[1].frame.x == 704)
        _ = s.handleTouch(id: 4, phase: .motion, x: 1000, y: 200, now: 80)
        #expect(s.isMoving(at: 80))
        // Released: it settles at W − c, gently and without overshooting.
        #expect(s.handleTouch(id: 4, phase: .up, x: 1000, y: 200, now: 96).isEmpty)
        var xs: [Int] = []
        for t in stride(from: UInt64(96), through: 96 + MotionMetrics.settleMilliseconds, by: 16) { xs.append(s.presentation(at: t)[1].frame.x) }
        #expect(xs.first == 1000 && s.presentation(at: 96 + MotionMetrics.settleMilliseconds)[1].frame.x == 704)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 <= $0 } && xs.allSatisfy { $0 >= 704 })
        #expect(xs.filter { $0 != 1000 && $0 != 704 }.count >= 4)
    }

    @Test func anEdgeTouchThatIsNotASwipeReachesTheAppFromItsDown() throws {
        // Lifted: a tap for the app, down and up.
        var tap = try shell("ipad", .landscape, .full)
        #expect(tap.handleTouch(id: 1, phase: .down, x: 1018, y: 200, now: 0).isEmpty)
        #expect(tap.handleTouch(id: 1, phase: .up, x: 1018, y: 200, now: 50) == [
            .touch(P, id: 1, phase: .down, x: 1018, y: 200), .touch(P, id: 1, phase: .up, x: 1018, y: 200),
        ])
        // Held 150 ms: given to the app with every motion held, then it flows.
        var slow = try shell("ipad", .landscape, .full)
        _ = slow.handleTouch(id: 2, phase: .down, x: 1018, y: 200, now: 0)
        _ = slow.handleTouch(id: 2, phase: .motion, x: 1012, y: 204, now: 16)
        #expect(slow.nextDeadline == MotionMetrics.edgeHoldMilliseconds)
        #expect(slow.tick(now: 149).isEmpty)
        #expect(slow.tick(now: 150) == [.touch(P, id: 2, phase: .down, x: 1018, y: 200), .touch(P, id: 2, phase: .motion, x: 1012, y: 204)])
        #expect(slow.handleTouch(id: 2, phase: .motion, x: 900, y: 210, now: 170) == [.touch(P, id: 2, phase: .motion, x: 900, y: 210)])
        #expect(!slow.secondaryShown)
        // Along the edge (a scroll): given to the app as soon as it leaves that way.
        var along = try shell("ipad", .landscape, .full)
        _ = along.handleTouch(id: 3, phase: .down, x: 1018, y: 200, now: 0)
        #expect(along.handleTouch(id: 3, phase: .motion, x: 1017, y: 240, now: 16) == [
            .touch(P, id: 3, phase: .down, x: 1018, y: 200), .touch(P, id: 3, phase: .motion, x: 1017, y: 240),
        ])
        // A cancelled held touch never reached the app: nothing to cancel.
        var pen = try shell("ipad", .landscape, .full)
        _ = pen.handleTouch(id: 5, phase: .down, x: 1018, y: 200, now: 0)
        #expect(pen.handleTouch(id: 5, phase: .cancel, x: 1018, y: 200, now: 10).isEmpty)
    }

    @Test func aFullScreenOnlyAppIsNeverBroughtInAsSlideOver() throws {
        var s = Shell(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .full)
        _ = s.add(P, preferring: .primary, requiresFullScreen: false)
        _ = s.add(S, preferring: .secondary, requiresFullScreen: true)
        // Not held back either: the swipe does nothing, the app has its touch.
        #expect(s.handleTouch(id: 1, phase: .down, x: 1020, y: 200, now: 0) == [.touch(P, id: 1, phase: .down, x: 1020, y: 200)])
        _ = s.handleTouch(id: 1, phase: .motion, x: 900, y: 200, now: 16)
        _ = s.handleTouch(id: 1, phase: .up, x: 900, y: 200, now: 32)
        #expect(s.arrangement == .full && s.layout.panes.count == 1)
        // Asked for at start-up, it stays in the background too.
        var t = Shell(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .slideOver)
        _ = t.add(P, preferring: .primary, requiresFullScreen: false)
        #expect(t.add(S, preferring: .secondary, requiresFullScreen: true).contains(.lifecycle(S, .didEnterBackground)))
    }

    @Test func tapOnTheEdgePinsAndDragDismisses() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        _ = s.handleTouch(id: 1, phase: .down, x: 706, y: 300, now: 0)
        #expect(s.handleTouch(id: 1, phase: .up, x: 708, y: 300, now: 120) == [.layoutChanged])
        #expect(s.arrangement == .split23)
        // The primary narrows to make room; the chrome fades as the divider appears.
        let mid = s.presentation(at: 120 + MotionMetrics.settleMilliseconds / 3)
        #expect(mid[0].frame.width < 1024 && mid[0].frame.width > 694 && mid[1].floating > 0 && mid[1].floating < 1)
        #expect(s.presentation(at: 1000)[0].frame.width == 694 && s.presentation(at: 1000)[1].floating == 0)
        #expect(s.dividerRect(at: 1000) == Rect(x: 694, y: 0, width: 10, height: 768))

        var d = try shell("ipad", .landscape, .slideOver)
        let e = d.drag(from: 704, to: 900)
        // Inactive first; in the background once it has slid off the right edge.
        #expect(e == [.lifecycle(S, .willResignActive), .layoutChanged])
        #expect(d.arrangement == .full)
        let end = d.motion!.end
        #expect(d.presentation(at: end - 1).last!.frame.x > 900 && d.presentation(at: end - 1).last!.leaving)
        #expect(d.tick(now: end) == [.lifecycle(S, .didEnterBackground)])
        #expect(d.presentation(at: end).count == 1)

        var back = try shell("ipad", .landscape, .slideOver)
        #expect(back.drag(from: 704, to: 780, stepMilliseconds: 120).isEmpty)  // not past W − c/2, let go at rest: it stays
        #expect(back.arrangement == .slideOver)
        #expect(back.presentation(at: back.motion!.start)[1].frame.x == 780 && back.presentation(at: back.motion!.end)[1].frame.x == 704)
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
    @Test func rotationDuringADragKeepsTheDragAndSnapsInTheNewOrientation() throws {
        var s = try shell("ipad-pro", .landscape, .split12)
        _ = s.handleTouch(id: 1, phase: .down, x: 683, y: 300, now: 0)
        _ = s.handleTouch(id: 1, phase: .motion, x: 900, y: 300, now: 16)
        let r = s.rotate(to: .portrait)
        #expect(r.first == .layoutChanged && r.contains(.dropSnapshots))
        // Snapshots at the portrait sizes (split-2/3 and full), for both apps.
        let asked = r.compactMap { e -> [Pane]? in if case .requestSnapshots(_, let p) = e { p } else { nil } }
        #expect(asked.count == 2 && asked.allSatisfy { $0.allSatisfy { $0.frame.height == 1366 } && $0.count == 2 })
        #expect(s.drag != nil && !r.contains(.activateWhenDrawn(P)))
        #expect(s.arrangement == .split23)  // split-1/2 shows as 2/3 in portrait ...
        // The divider stays in proportion (895 of 1366 pt → 670 of 1024) and follows the finger.
        #expect(s.dividerRect(at: 16)?.x == 670)
        _ = s.handleTouch(id: 1, phase: .motion, x: 500, y: 300, now: 32)
        #expect(s.dividerRect(at: 32)?.x == 495)
        let up = s.handleTouch(id: 1, phase: .up, x: 500, y: 300, now: 48)
        #expect(up.contains(.activateWhenDrawn(P)) && up.contains(.activateWhenDrawn(S)))
        #expect(s.arrangement == .split23 && s.tick(now: 1000) == [.dropSnapshots])
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
                    _ = s.handleTouch(id: .finger(Int32.random(in: 1...2, using: &g)), phase: phase, x: Double.random(in: 0..<w, using: &g), y: 100, now: t)
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

struct ShellArrivalOrderTests {
    /// A secondary that says hello before the primary waits in the background, and is brought
    /// to the foreground and activated when the primary comes (live `run` admits at hello).
    @Test func aSecondaryBeforeItsPrimaryIsActivatedWhenThePrimaryComes() throws {
        var shell = Shell(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23)
        let p = AppID(1), s = AppID(2)
        #expect(shell.add(s, preferring: .secondary, requiresFullScreen: false) == [.layoutChanged, .lifecycle(s, .didEnterBackground)])
        let effects = shell.add(p, preferring: .primary, requiresFullScreen: false)
        #expect(effects == [.layoutChanged, .activateWhenDrawn(p), .lifecycle(s, .willEnterForeground), .activateWhenDrawn(s)])
        #expect(shell.arrangement == .split23 && shell.pane(of: s) != nil)
    }
}

/// Hands off while the divider is held: a finger already in an app is cancelled, new fingers and
/// the pen reach no app, and after the drag touches reach the apps again.
struct ShellHandsOffTests {
    @Test func otherHandsDoNotReachTheAppsDuringADividerDrag() throws {
        var s = try shell()
        // A finger drawing in the primary, and the pen over the secondary.
        #expect(s.handleTouch(id: 7, phase: .down, x: 100, y: 300, now: 0) == [.touch(P, id: 7, phase: .down, x: 100, y: 300)])
        #expect(!s.handlePen(phase: .proximityIn, x: 800, y: 300, pressure: 0, tiltX: 0, tiltY: 0).isEmpty)
        let down = s.handleTouch(id: 1, phase: .down, x: 699, y: 300, now: 16)
        // The finger in the app is cancelled, the pen leaves, then the apps resign active.
        #expect(down.first == .touch(P, id: 7, phase: .cancel, x: 347, y: 384))
        #expect(down.contains { if case .pen(S, phase: .proximityOut, _, _, _, _, _) = $0 { true } else { false } })
        #expect(down.contains(.lifecycle(P, .willResignActive)))
        // During the drag: the cancelled finger, a new finger and the pen reach nobody.
        #expect(s.handleTouch(id: 7, phase: .motion, x: 150, y: 300, now: 32).isEmpty)
        #expect(s.handleTouch(id: 8, phase: .down, x: 200, y: 500, now: 32).isEmpty)
        #expect(s.handleTouch(id: 8, phase: .motion, x: 250, y: 500, now: 48).isEmpty)
        #expect(s.handlePen(phase: .down, x: 200, y: 200, pressure: 0.5, tiltX: 0, tiltY: 0).isEmpty)
        _ = s.handleTouch(id: 1, phase: .motion, x: 650, y: 300, now: 48)
        _ = s.handleTouch(id: 1, phase: .up, x: 650, y: 300, now: 64)
        _ = s.handleTouch(id: 8, phase: .up, x: 250, y: 500, now: 64)
        _ = s.handleTouch(id: 7, phase: .up, x: 150, y: 300, now: 64)
        // Afterwards a finger reaches its app again.
        let after = s.handleTouch(id: 9, phase: .down, x: 100, y: 300, now: 1000)
        #expect(after.contains { if case .touch(P, id: 9, phase: .down, _, _) = $0 { true } else { false } })
    }
}

/// The Slide Over's handles: the grabber at its top centre and the strip inside its left edge;
/// none over the primary.
struct SlideOverHandleTests {
    @Test func aTapJustLeftOfTheSlideOverReachesThePrimary() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        // The issue's tap: 9 pt left of the Slide Over's edge (704), on notes.
        let down = s.handleTouch(id: 1, phase: .down, x: 695, y: 400, now: 0)
        let up = s.handleTouch(id: 1, phase: .up, x: 695, y: 400, now: 80)
        #expect(down == [.touch(P, id: 1, phase: .down, x: 695, y: 400)] && up == [.touch(P, id: 1, phase: .up, x: 695, y: 400)])
        #expect(s.arrangement == .slideOver)
    }

    @Test func aTapOnTheStripInsideTheEdgePins() throws {
        var s = try shell("ipad", .landscape, .slideOver)
        #expect(s.handleTouch(id: 1, phase: .down, x: 715, y: 400, now: 0).isEmpty)
        _ = s.handleTouch(id: 1, phase: .up, x: 715, y: 400, now: 80)
        #expect(s.arrangement == .split23)
        // Past the strip it is the app's.
        var t = try shell("ipad", .landscape, .slideOver)
        #expect(t.handleTouch(id: 1, phase: .down, x: 740, y: 400, now: 0) == [.touch(S, id: 1, phase: .down, x: 36, y: 380)])
    }

    @Test func theGrabberPulledDownPinsAndDraggedRightDismisses() throws {
        // The grabber: 44 × 30 pt at the top centre (x 864) of the Slide Over (20 pt down).
        var pin = try shell("ipad", .landscape, .slideOver)
        #expect(pin.handleTouch(id: 1, phase: .down, x: 864, y: 30, now: 0).isEmpty)  // never the app's
        for i in 1...6 { #expect(pin.handleTouch(id: 1, phase: .motion, x: 866, y: 30 + Double(i) * 20, now: UInt64(i * 16)).isEmpty) }
        _ = pin.handleTouch(id: 1, phase: .up, x: 866, y: 150, now: 112)
        #expect(pin.arrangement == .split23)

        var away = try shell("ipad", .landscape, .slideOver)
        _ = away.handleTouch(id: 1, phase: .down, x: 864, y: 30, now: 0)
        for i in 1...4 { _ = away.handleTouch(id: 1, phase: .motion, x: 864 + Double(i) * 40, y: 32, now: UInt64(i * 16)) }
        _ = away.handleTouch(id: 1, phase: .up, x: 1024, y: 32, now: 80)
        #expect(!away.secondaryShown)

        // Sideways first, then down: no pin; let go slowly near its place: it stays.
        var stay = try shell("ipad", .landscape, .slideOver)
        _ = stay.handleTouch(id: 1, phase: .down, x: 864, y: 30, now: 0)
        _ = stay.handleTouch(id: 1, phase: .motion, x: 914, y: 30, now: 100)
        _ = stay.handleTouch(id: 1, phase: .motion, x: 914, y: 150, now: 300)
        _ = stay.handleTouch(id: 1, phase: .up, x: 914, y: 150, now: 600)
        #expect(stay.arrangement == .slideOver)
    }
}

/// Swapping sides: a Split View pane's pill dragged over the other pane swaps the apps; the
/// widths stay with the sides and the app now on the left is the primary.
struct SwapSidesTests {
    @Test func thePillDraggedOverTheOtherPaneSwapsTheApps() throws {
        var s = try shell()
        // The secondary's pill: top centre of its pane (704 + 320 / 2), in the bar's band.
        #expect(s.handleTouch(id: 1, phase: .down, x: 864, y: 10, now: 0).isEmpty)
        #expect(s.handleTouch(id: 1, phase: .motion, x: 600, y: 200, now: 16).isEmpty)
        // Held, the pane is lifted: drawn over the other, following the finger sideways.
        let held = s.presentation(at: 16)
        #expect(held.last?.app == S && held.last?.lifted == true && held.last?.frame.x == 704 - 264)
        #expect(held.first?.app == P && held.first?.lifted == false && held.first?.frame.x == 0)
        let up = s.handleTouch(id: 1, phase: .up, x: 300, y: 300, now: 32)
        #expect(up.contains(.layoutChanged))
        #expect(s.primary == S && s.secondary == P)
        #expect(s.layout.pane(.primary)?.frame.width == 694 && s.pane(of: S)?.frame.x == 0)
        #expect(s.pane(of: P)?.frame.x == 704)
        // Animated: mid-way the panes are between their old and new places.
        let mid = s.presentation(at: 32 + MotionMetrics.settleMilliseconds / 3)
        let sx = try #require(mid.first { $0.app == S }).frame.x
        #expect(sx > 0 && sx < 704 - 264, "it goes on from where it was lifted to")
        #expect(mid.allSatisfy { !$0.lifted })
        // Let go over its own pane: nothing changes.
        var t = try shell()
        _ = t.handleTouch(id: 1, phase: .down, x: 864, y: 10, now: 0)
        #expect(t.handleTouch(id: 1, phase: .up, x: 900, y: 300, now: 32).isEmpty)
        #expect(t.primary == P)
    }
}

// SPDX-License-Identifier: MIT
// Picture in Picture windows as a pure model: size, corners, drags and settles.

import DiptychCore
import Testing

struct PictureInPictureTests {
    /// iPad landscape: 1024 × 768 pt at 2×, under a 20 pt status bar.
    let space = PiPSpace(screen: Size(width: 1024, height: 768), scale: 2, topInset: 20)
    let tv = AppID(7)

    @Test func aWindowIsAQuarterOfTheScreenWideWithItsBuffersAspect() {
        // About a quarter wide already (520 px at 2× = 260 pt): pixel for pixel.
        #expect(PictureInPicture.size(of: Size(width: 520, height: 292), in: space) == Size(width: 260, height: 146))
        // A 1080p buffer is scaled to a quarter of the width, keeping 16:9.
        #expect(PictureInPicture.size(of: Size(width: 1920, height: 1080), in: space) == Size(width: 256, height: 144))
        // A tall buffer is held to half the screen's height.
        let tall = PictureInPicture.size(of: Size(width: 300, height: 1200), in: space)
        #expect(tall.height == 384 && tall.width == 96)
    }

    @Test func windowsOpenInFreeCornersTenPointsIn() {
        var pip = PictureInPicture()
        let opened = pip.show(tv, bufferSize: Size(width: 520, height: 292))
        let again = pip.show(tv, bufferSize: Size(width: 520, height: 292))
        #expect(opened && !again, "a second commit updates, it does not open another")
        let f = pip.frame(of: pip.windows[0], in: space, at: 0)
        #expect(f == Rect(x: 1024 - 10 - 260, y: 768 - 10 - 146, width: 260, height: 146))
        pip.show(AppID(8), bufferSize: Size(width: 520, height: 292))
        let g = pip.frame(of: pip.windows[1], in: space, at: 0)
        // Top right, below the status bar.
        #expect(g == Rect(x: 1024 - 10 - 260, y: 20 + 10, width: 260, height: 146))
        let closed = pip.close(tv), twice = pip.close(tv)
        #expect(closed && !twice)
        #expect(pip.windows.map(\.app) == [AppID(8)])
    }

    @Test func aDragFollowsTheFingerAndSettlesInTheNearestCornerWithoutOvershoot() {
        var pip = PictureInPicture()
        pip.show(tv, bufferSize: Size(width: 520, height: 292))
        let start = pip.frame(of: pip.windows[0], in: space, at: 0)
        let beside = pip.touchDown(id: 1, x: 100, y: 100, in: space, now: 0)
        #expect(!beside, "a touch beside the window is not its")
        let on = pip.touchDown(id: 2, x: Double(start.x + 20), y: Double(start.y + 20), in: space, now: 0)
        #expect(on)
        #expect(pip.holds(2) && pip.isHeld)
        let moved = pip.touchMotion(id: 2, x: 300, y: 250, in: space, now: 16)
        #expect(moved)
        let held = pip.frame(of: pip.windows[0], in: space, at: 16)
        #expect(held.x == 280 && held.y == 230, "the grab point stays under the finger")
        // Dragged far past the screen's edges it follows with growing resistance (iOS's rubber
        // band): a little past them, never as far as its own size.
        _ = pip.touchMotion(id: 2, x: -500, y: -500, in: space, now: 32)
        let banded = pip.frame(of: pip.windows[0], in: space, at: 16)
        #expect(banded.x < 0 && banded.x > -banded.width && banded.y < 0 && banded.y > -banded.height, "\(banded)")
        #expect(abs(Double(banded.x) - -RubberBand.offset(520, dimension: Double(banded.width))) <= 1)
        _ = pip.touchMotion(id: 2, x: 300, y: 250, in: space, now: 48)
        // Let go after holding still (no velocity): the corner nearest where it is.
        let lifted = pip.touchUp(id: 2, x: 300, y: 250, in: space, now: 200, cancelled: false)
        #expect(lifted == .handled)
        #expect(pip.windows[0].corner == .topLeft)
        // Settling: at least 4 frames between, each nearer, none past the corner.
        let home = (x: 10, y: 30)
        var last = held
        var between = 0
        for t in stride(from: UInt64(216), through: 200 + MotionMetrics.settleMilliseconds, by: 16) {
            let f = pip.frame(of: pip.windows[0], in: space, at: t)
            #expect(f.x >= home.x && f.y >= home.y && f.x <= last.x && f.y <= last.y)
            if f.x != home.x || f.y != home.y { between += 1 }
            last = f
        }
        #expect(between >= 4)
        let rest = pip.frame(of: pip.windows[0], in: space, at: 200 + MotionMetrics.settleMilliseconds)
        #expect(rest.x == home.x && rest.y == home.y)
        #expect(!pip.isSettling(at: 200 + MotionMetrics.settleMilliseconds))
    }

    @Test func absurdBuffersAreRefusedNamingTheRule() {
        #expect(PictureInPicture.refusal(bufferSize: Size(width: 640, height: 360), longestSide: 2732) == nil)
        #expect(PictureInPicture.refusal(bufferSize: Size(width: 4096, height: 16), longestSide: 2732)?.contains("larger than the screen") == true)
        #expect(PictureInPicture.refusal(bufferSize: Size(width: 2000, height: 100), longestSide: 2732)?.contains("1:4") == true)
        #expect(PictureInPicture.refusal(bufferSize: Size(width: 8, height: 8), longestSide: 2732)?.contains("smaller") == true)
    }

    @Test func theSceneDrawsTheWindowOverThePanesUnderTheStatusBar() {
        let profile = try! DeviceProfile.named("ipad")
        let image = ImageRef(id: 9, width: 520, height: 292)
        let window = FloatingWindow(app: tv, frame: Rect(x: 754, y: 612, width: 260, height: 146), image: image)
        let graph = SceneBuilder.build(
            panes: [PresentedPane(app: AppID(1), role: .primary, frame: Rect(x: 0, y: 0, width: 1024, height: 768), anchor: .leading, prefersSnapshots: false)],
            profile: profile, orientation: .landscape, floating: [window], statusBar: StatusBar(style: .dark, time: "09:41")
        ) { _ in AppContent(live: ImageRef(id: 1, width: 2048, height: 1536)) }
        let keys = graph.nodes.map(\.key)
        let pip = keys.firstIndex(of: .pip(tv)), shadow = keys.firstIndex(of: .pipShadow(tv)), surface = keys.firstIndex(of: .surface(AppID(1)))
        let status = keys.firstIndex { if case .status = $0 { true } else { false } }
        #expect(surface! < shadow! && shadow! < pip! && pip! < status!)
        let node = graph.nodes[pip!]
        #expect(node.imageRect == Rect(x: 1508, y: 1224, width: 520, height: 292) && node.cornerRadius == 20)
    }
}

// SPDX-License-Identifier: MIT
// The one scene builder and the one damage tracker, tested directly.

@testable import DiptychCore
import Testing

struct SceneBuilderTests {
    let profile = try! DeviceProfile.named("ipad")

    func image(_ id: UInt64, _ w: Int, _ h: Int = 1536) -> ImageRef { ImageRef(id: id, width: w, height: h) }

    @Test func aLayoutShowsEachLiveSurfaceAtItsPanesTopLeft() throws {
        let layout = try LayoutEngine.layout(profile: profile, orientation: .landscape, arrangement: .split23)
        let panes = PresentedPane.panes(of: layout) { $0 == .primary ? AppID(1) : AppID(2) }
        let graph = SceneBuilder.build(panes: panes, profile: profile, orientation: .landscape) { app in
            AppContent(live: app == AppID(1) ? image(10, 1388) : image(20, 640))
        }
        #expect(graph.size == Size(width: 2048, height: 1536))
        // The primary with its pill, the divider with its handle between the panes, the
        // secondary with its pill.
        #expect(graph.nodes.map(\.key) == [.surface(AppID(1)), .grabber(AppID(1)), .divider, .handle, .surface(AppID(2)), .grabber(AppID(2))])
        let surfaces = graph.surfaces
        #expect(surfaces[0].imageRect == Rect(x: 0, y: 0, width: 1388, height: 1536) && surfaces[0].clip.width == 1388)
        #expect(surfaces[1].imageRect.x == 1408 && surfaces[1].clip == Rect(x: 1408, y: 0, width: 640, height: 1536))
        #expect(surfaces.allSatisfy { $0.live })
        #expect(graph.nodes[2].clip == Rect(x: 1388, y: 0, width: 20, height: 1536) && graph.nodes[2].content == .solid(ChromeStyle.dividerColor))
        // The handle: 4 × 40 pt, centred on the divider.
        #expect(graph.nodes[3].clip == Rect(x: 1394, y: 728, width: 8, height: 80))
        // Each pane's pill: 36 × 5 pt at its top centre, in the status bar's band.
        #expect(graph.nodes[1].clip == Rect(x: (1388 - 72) / 2, y: 12, width: 72, height: 10))
        #expect(graph.nodes[5].clip == Rect(x: 1408 + (640 - 72) / 2, y: 12, width: 72, height: 10))
    }

    @Test func aDragShowsTheNearestSnapshotAnchoredAtTheOuterEdge() {
        let left = PresentedPane(app: AppID(1), role: .primary, frame: Rect(x: 0, y: 0, width: 595, height: 768), anchor: .leading, prefersSnapshots: true)
        let right = PresentedPane(app: AppID(2), role: .secondary, frame: Rect(x: 605, y: 0, width: 419, height: 768), anchor: .trailing, prefersSnapshots: true)
        let graph = SceneBuilder.build(panes: [left, right], profile: profile, orientation: .landscape) { app in
            app == AppID(1)
                ? AppContent(live: image(1, 1388), snapshots: [image(2, 1388), image(3, 1014), image(4, 2048)])
                : AppContent(live: image(5, 640), snapshots: [])
        }
        let surfaces = graph.surfaces
        // 1190 px wide: the 1014 px snapshot is nearest, pinned at the left edge ...
        #expect(surfaces[0].image?.id == 3 && !surfaces[0].live && surfaces[0].imageRect.x == 0)
        // ... over a placeholder tile filling the pane, with the app's icon in the bare band.
        #expect(graph.nodes[0].key == .placeholder(AppID(1)) && graph.nodes[0].clip == Rect(x: 1014, y: 0, width: 176, height: 1536))
        // No snapshot yet: the live surface, flush with the right edge and clipped to the pane.
        #expect(surfaces[1].image?.id == 5 && surfaces[1].live)
        #expect(surfaces[1].imageRect.maxX == 2048 && surfaces[1].clip.x == 1210)
    }

    @Test func aHeldDividerShowsEachAppBlurredWithItsIconAndTheBlurFadesAsItSettles() {
        func image(_ id: UInt64, _ w: Int) -> ImageRef { ImageRef(id: id, width: w, height: 1536) }
        var pane = PresentedPane(app: AppID(1), role: .primary, frame: Rect(x: 0, y: 0, width: 700, height: 768), anchor: .leading, prefersSnapshots: true)
        pane.blur = 1
        let content = AppContent(live: image(5, 2048), snapshots: [image(3, 1014)], name: "notes", icon: ImageRef(id: 7, width: 120, height: 120),
                                 blurs: [3: ImageRef(id: 8, width: 127, height: 192), 5: ImageRef(id: 9, width: 256, height: 192)])
        let held = SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in content }.nodes
        // The snapshot nearest the pane's 1400 px is the 1014 px one: its blurred copy where
        // the snapshot would land, its edges extended over the pane, then the icon; nothing sharp.
        #expect(held.map(\.key) == [.blur(AppID(1)), .icon(AppID(1))])
        #expect(held[0].image?.id == 8)
        #expect(held[0].imageRect == Rect(x: 0, y: 0, width: 1014, height: 1536) && held[0].padded && held[0].clip == Rect(x: 0, y: 0, width: 1400, height: 1536))
        #expect(held[1].image?.id == 7 && held[1].imageRect == Rect(x: 640, y: 708, width: 120, height: 120))
        // Half way through the settle: the sharp snapshot under the blur at half opacity.
        pane.blur = 0.5
        let settling = SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in content }.nodes
        #expect(settling.map(\.key) == [.placeholder(AppID(1)), .surface(AppID(1)), .blur(AppID(1)), .icon(AppID(1))])
        #expect(settling[2].opacity == 128 && settling[3].opacity == 128)
        // Held near the edge that dismisses it: dimmed (drawn translucent over black).
        pane.blur = 1
        pane.dim = PresentedPane.maxDim
        let dimmed = SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in content }.nodes
        #expect(dimmed.map(\.opacity) == [128, 128])
        pane.dim = 0
        // Settled: no blur.
        pane.blur = 0
        #expect(!SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in content }.nodes.contains { $0.key == .blur(AppID(1)) })
    }

    @Test func anAppWithNothingToShowLeavesItsPaneOut() {
        let pane = PresentedPane(app: AppID(1), role: .primary, frame: Rect(x: 0, y: 0, width: 1024, height: 768), anchor: .leading, prefersSnapshots: false)
        // Nothing drawn yet: a neutral placeholder with the app's monogram, never black.
        let waiting = SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in AppContent(live: nil, name: "notes") }.nodes
        #expect(waiting.map(\.key) == [.placeholder(AppID(1)), .icon(AppID(1))])
        #expect(waiting[0].content == .solid(ChromeStyle.neutralTile) && waiting[0].clip == Rect(x: 0, y: 0, width: 2048, height: 1536))
        #expect(waiting[1].content == .chrome(.monogram("N", ChromeStyle.neutralTile, corner: ChromeStyle.iconCornerRadius * 2)))
        #expect(waiting[1].imageRect.x + waiting[1].imageRect.width / 2 == 1024)
        // An app the compositor does not know (gone): nothing.
        #expect(SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in nil }.nodes.isEmpty)
    }
}

struct ChromeTests {
    let profile = try! DeviceProfile.named("ipad")

    @Test func aSlideOverHasRoundedCornersAShadowOnThePrimaryAndAGrabber() throws {
        let layout = try LayoutEngine.layout(profile: profile, orientation: .landscape, arrangement: .slideOver)
        let panes = PresentedPane.panes(of: layout) { $0 == .primary ? AppID(1) : AppID(2) }
        #expect(panes[1].floating == 1 && panes[0].floating == 0)
        let graph = SceneBuilder.build(panes: panes, profile: profile, orientation: .landscape) { app in
            AppContent(live: ImageRef(id: app.rawValue, width: app == AppID(1) ? 2048 : 640, height: 1536))
        }
        // Bottom to top: the primary, the shadow it receives, the dark bar along the Slide
        // Over's left edge and its handle, the Slide Over, its grabber. No divider: the Slide
        // Over floats.
        #expect(graph.nodes.map(\.key) == [.surface(AppID(1)), .shadow(AppID(2)), .edgeBar(AppID(2)), .edgeHandle(AppID(2)), .surface(AppID(2)), .grabber(AppID(2))])
        #expect(graph.nodes[4].cornerRadius == 20 && graph.nodes[0].cornerRadius == 0)
        // It floats below the status bar: 20 pt from the top and the bottom.
        #expect(graph.nodes[4].clip == Rect(x: 1408, y: 40, width: 640, height: 1536 - 80))
        let bar = graph.nodes[2].imageRect
        #expect(bar.maxX == 1408 && bar.width == ChromeStyle.edgeBarWidth * 2 && bar.minY >= 40 && bar.maxY <= 1536 - 40)
        // At least 8 pt of shadow, falling to the left of the Slide Over's edge.
        let shadow = graph.nodes[1]
        #expect(shadow.imageRect.maxX == 1408 && shadow.imageRect.width >= 16)
        let grabber = graph.nodes[5].imageRect
        #expect(grabber.x + grabber.width / 2 == 1408 + 320 && grabber.minY > 40 && grabber.maxY < 80)
    }

    @Test func chromeFadesWithTheFloatingShare() {
        let pane = PresentedPane(app: AppID(2), role: .secondary, frame: Rect(x: 704, y: 0, width: 320, height: 768), anchor: .leading, prefersSnapshots: false, floating: 0.5)
        let graph = SceneBuilder.build(panes: [pane], profile: profile, orientation: .landscape) { _ in
            AppContent(live: ImageRef(id: 1, width: 640, height: 1536))
        }
        #expect(graph.surfaces[0].cornerRadius == 10)
        guard case .chrome(.shadow(let alpha)) = graph.nodes[0].content else {
            Issue.record("no shadow")
            return
        }
        #expect(alpha > 30 && alpha < 50)
    }
}

struct DamageTrackerTests {
    let geometry = OutputGeometry.native(logical: Size(width: 100, height: 50))

    func node(_ app: UInt64, image: UInt64, live: Bool = true, imageX: Int, clip: Rect) -> SceneNode {
        SceneNode(app: AppID(app), image: ImageRef(id: image, width: 60, height: 50), live: live, imageRect: Rect(x: imageX, y: 0, width: 60, height: 50), clip: clip)
    }

    func scene(_ nodes: SceneNode...) -> SceneGraph { SceneGraph(size: Size(width: 100, height: 50), nodes: nodes) }

    @Test func aMovingFlatColourRepaintsOnlyWhatItGainedAndLost() {
        var t = DamageTracker(geometry: geometry)
        func divider(_ x: Int) -> SceneNode {
            let r = Rect(x: x, y: 0, width: 10, height: 50)
            return SceneNode(key: .divider, content: .solid(ChromeStyle.dividerColor), imageRect: r, clip: r)
        }
        _ = t.take(scene(divider(40)))
        #expect(t.take(scene(divider(43)))?.area == 6 * 50)
        // Rounded corners that change repaint the corners only.
        let a = node(1, image: 1, imageX: 0, clip: Rect(x: 0, y: 0, width: 60, height: 50))
        var b = a
        b.cornerRadius = 4
        _ = t.take(scene(a))
        #expect(t.take(scene(b))?.area == 4 * 16)
    }

    /// A piece of the status bar laid out again (a new minute) is diffed node by node:
    /// a piece whose text alone changed (the clock) still repaints where it lies.
    @Test func aPieceWhoseTextChangedInPlaceRepaintsItsRect() {
        var t = DamageTracker(geometry: geometry)
        let r = Rect(x: 40, y: 0, width: 30, height: 12)
        func clock(_ text: String) -> SceneNode {
            SceneNode(key: .status(.time), content: .chrome(.text(text, RGB(red: 0, green: 0, blue: 0), pixelSize: 12)), imageRect: r, clip: r)
        }
        let kept = [clock("09:41")]
        _ = t.take(scene(kept[0]))
        #expect(t.take(scene(kept[0])) == Region())
        #expect(t.take(scene(clock("09:42")))?.area == 30 * 12)
    }

    /// Asking whether a scene would repaint takes nothing: the damage then taken is the same
    /// as taking it without asking, and asking about another scene does not leak into it.
    @Test func askingBeforeTakingGivesTheSameDamage() {
        func divider(_ x: Int) -> SceneNode {
            let r = Rect(x: x, y: 0, width: 10, height: 50)
            return SceneNode(key: .divider, content: .solid(ChromeStyle.dividerColor), imageRect: r, clip: r)
        }
        var asked = DamageTracker(geometry: geometry), plain = DamageTracker(geometry: geometry)
        _ = asked.take(scene(divider(40)))
        _ = plain.take(scene(divider(40)))
        let moved = scene(divider(47))
        let still = asked.wouldRepaint(scene(divider(40))), changed = asked.wouldRepaint(moved)
        #expect(!still && changed)
        asked.add(Rect(x: 0, y: 0, width: 2, height: 2))
        plain.add(Rect(x: 0, y: 0, width: 2, height: 2))
        let a = asked.take(moved), p = plain.take(moved)
        #expect(a == p && a?.area == 2 * 7 * 50 + 4)
        // Asked about one scene, then given another: the other's own changes.
        let other = asked.wouldRepaint(scene(divider(20)))
        let taken = asked.take(scene(divider(50)))
        #expect(other && taken?.area == 3 * 50 * 2)
    }

    @Test func theFirstFrameRepaintsEverythingThenOnlyWhatChanged() {
        var t = DamageTracker(geometry: geometry)
        let a = node(1, image: 1, imageX: 0, clip: Rect(x: 0, y: 0, width: 60, height: 50))
        #expect(t.repaintsEverything)
        #expect(t.take(scene(a)) == nil)
        #expect(!t.hasDamage)
        #expect(t.take(scene(a)) == Region())  // nothing moved, nothing committed
    }

    @Test func aCommitIsPlacedWhereTheImageLandsAndClippedToItsPane() {
        var t = DamageTracker(geometry: geometry)
        let b = node(2, image: 7, imageX: 50, clip: Rect(x: 70, y: 0, width: 30, height: 50))
        _ = t.take(scene(b))
        t.commit([Rect(x: 0, y: 0, width: 30, height: 10), Rect(x: 40, y: 40, width: 5, height: 5)], at: b)
        // Buffer x 0..30 lands at 50..80 and is clipped to 70..80; the second box at 90..95.
        #expect(t.hasDamage)
        let d = t.take(scene(b))
        #expect(d?.area == 10 * 10 + 5 * 5)
        #expect(d?.contains(x: 75, y: 5) == true && d?.contains(x: 65, y: 5) == false)
    }

    /// A Picture in Picture window whose app commits a buffer of another size with the same
    /// aspect keeps its frame: the window is repainted whole all the same.
    @Test func aLiveImageOfAnotherSizeInTheSameFrameRepaintsIt() {
        var t = DamageTracker(geometry: geometry)
        let frame = Rect(x: 10, y: 10, width: 32, height: 18)
        func window(_ id: UInt64, _ w: Int, _ h: Int) -> SceneNode {
            SceneNode(key: .pip(AppID(1)), content: .image(ImageRef(id: id, width: w, height: h), live: true), imageRect: frame, clip: frame, cornerRadius: 2)
        }
        _ = t.take(scene(window(1, 1280, 720)))
        #expect(t.take(scene(window(2, 1280, 720))) == Region())  // a new buffer of the same size: its commit says what changed
        #expect(t.take(scene(window(3, 1920, 1080)))?.area == frame.width * frame.height)
    }

    @Test func aClipThatMovesOverTheSameContentRepaintsTheStrip() {
        var t = DamageTracker(geometry: geometry)
        _ = t.take(scene(node(1, image: 1, live: false, imageX: 0, clip: Rect(x: 0, y: 0, width: 40, height: 50))))
        let d = t.take(scene(node(1, image: 1, live: false, imageX: 0, clip: Rect(x: 0, y: 0, width: 46, height: 50))))
        #expect(d == Region(Rect(x: 40, y: 0, width: 6, height: 50)))
    }

    @Test func anotherImageRepaintsOldAndNewClips() {
        var t = DamageTracker(geometry: geometry)
        _ = t.take(scene(node(1, image: 1, live: false, imageX: 0, clip: Rect(x: 0, y: 0, width: 40, height: 50))))
        let d = t.take(scene(node(1, image: 2, live: false, imageX: 0, clip: Rect(x: 0, y: 0, width: 30, height: 50))))
        #expect(d?.area == 40 * 50)
        // A pane that goes away repaints its clip.
        #expect(t.take(scene())?.area == 30 * 50)
    }

    @Test func aDroppedFramesDamageComesBack() {
        var t = DamageTracker(geometry: geometry)
        let a = node(1, image: 1, imageX: 0, clip: Rect(x: 0, y: 0, width: 60, height: 50))
        _ = t.take(scene(a))
        t.commit([Rect(x: 0, y: 0, width: 4, height: 4)], at: a)
        let lost = t.take(scene(a))
        #expect(lost?.area == 16 && !t.hasDamage)
        t.keep(lost)
        #expect(t.take(scene(a)) == lost)
        t.keep(nil)
        #expect(t.repaintsEverything && t.take(scene(a)) == nil)
    }

    @Test func damageIsGrownThroughAScalingTransform() {
        var t = DamageTracker(geometry: OutputGeometry(logical: Size(width: 2732, height: 2048), panel: Size(width: 2048, height: 1536)))
        let a = SceneNode(app: AppID(1), image: ImageRef(id: 1, width: 2732, height: 2048), live: true, imageRect: Rect(x: 0, y: 0, width: 2732, height: 2048), clip: Rect(x: 0, y: 0, width: 2732, height: 2048))
        _ = t.take(SceneGraph(size: Size(width: 2732, height: 2048), nodes: [a]))
        t.commit([Rect(x: 400, y: 400, width: 4, height: 4)], at: a)
        let d = t.take(SceneGraph(size: Size(width: 2732, height: 2048), nodes: [a]))
        // 4 logical px scale to 3 panel px; the bilinear footprint adds a pixel each side.
        #expect(d?.rects.count == 1 && (d?.area ?? 0) >= 9 && d?.contains(x: 300, y: 300) == true)
    }
}

struct GestureTests {
    let splits: [(Arrangement, Int)] = [(.split23, 694), (.split12, 507)]

    @Test func aReleasedDividerSnapsOrDismisses() {
        var d = DividerDrag(fingerX: 700, dividerX: 694, arrangement: .split23)
        d.move(fingerX: 520, at: 0)
        #expect(d.outcome(cancelled: false, screenWidth: 1024, dividerWidth: 10, compactWidth: 320, splits: splits) == .split(.split12))
        d.move(fingerX: 1000, at: 1000)
        #expect(d.outcome(cancelled: false, screenWidth: 1024, dividerWidth: 10, compactWidth: 320, splits: splits) == .dismissSecondary)
        d.move(fingerX: 200, at: 2000)
        #expect(d.outcome(cancelled: false, screenWidth: 1024, dividerWidth: 10, compactWidth: 320, splits: splits) == .dismissPrimary)
        // Cancelled, it goes back where it began.
        #expect(d.outcome(cancelled: true, screenWidth: 1024, dividerWidth: 10, compactWidth: 320, splits: splits) == .split(.split23))
        #expect(d.drawnX(screenWidth: 1024, dividerWidth: 10) == 194)
    }

    @Test func aSlideOverEdgeTapPinsAndAPushDismisses() {
        let tap = SlideOverEdgeDrag(startX: 704, startTime: 1000)
        #expect(tap.release(fingerX: 706, now: 1100, screenWidth: 1024, compactWidth: 320) == .pin)
        #expect(tap.release(fingerX: 706, now: 1400, screenWidth: 1024, compactWidth: 320) == .stay)  // too long for a tap
        var push = SlideOverEdgeDrag(startX: 704, startTime: 0)
        push.move(fingerX: 900, at: 100)
        #expect(push.offset == 196)
        #expect(push.release(fingerX: 900, now: 500, screenWidth: 1024, compactWidth: 320) == .dismiss)
        push.move(fingerX: 800, at: 300)
        #expect(push.release(fingerX: 800, now: 500, screenWidth: 1024, compactWidth: 320) == .stay)
    }

    @Test func anEdgeSwipeIsClaimedAfterItsDistance() {
        let s = EdgeHold(app: AppID(1), x: 1020, y: 300, now: 0)
        #expect(!s.claims(fingerX: 1000) && s.claims(fingerX: 972))
        // However long it is held, at most 32 motions are kept, the newest last.
        var held = s
        for i in 0..<100 { held.hold(x: 1020, y: 300 + Double(i)) }
        #expect(held.motions.count == EdgeHold.sampleLimit && held.motions.last?.y == 399)
        // Moving along the edge is not a swipe: the app gets the touch.
        #expect(s.leftOtherwise(x: 1015, y: 330) && !s.leftOtherwise(x: 990, y: 320))
    }
}

// SPDX-License-Identifier: MIT
// The one repaint path: a frame in three stages, layout (the scene, its damage and the pixman
// operations that draw it), composite (pixman executing them into the output's buffer) and
// present (the output shows it; apps whose commits it shows get `frameDone`), then the second
// screen's frame. The live loop, `render`, scenarios and the profiler all draw through it;
// whoever records frames watches it (`FrameObserver`).

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux
import DiptychRender

extension Compositor {
    /// A frame being drawn: its scene (with the region to repaint), its pixman operations,
    /// and its graph.
    public struct Frame {
        public var scene: Scene
        /// What changed since the frame on screen (nil: everything). The scene repaints this
        /// and, in an older buffer, what changed since that buffer was shown.
        public var damage: Region?
        /// The output buffer it is drawn into.
        var target: FrameTarget
        public var operations: [RenderOperation]
        public var graph: SceneGraph
        public var stats: RenderStats
        /// All apps' commit count when the frame was laid out: the commits the frame shows.
        var commits: UInt64
    }

    /// The scene as presented now: each pane's live surface, or during a divider drag the
    /// snapshot nearest the pane's width, anchored at the pane's outer edge and clipped to it.
    public func sceneGraph(cursor: Bool = true) -> SceneGraph {
        // A blank screen is black.
        if isBlanked { return SceneGraph(size: desk.shell.profile.pixelSize(desk.shell.orientation)) }
        let desk = desk.presentation(at: now, pipTopInset: pipTopInset)
        var graph = SceneBuilder.build(
            panes: desk.panes, profile: desk.profile, orientation: desk.orientation, floating: floatingWindows(desk.windows),
            text: renderer.chrome.metrics
        ) { session($0)?.content ?? ghostContent($0) }
        // The status bar over everything, as `SceneBuilder` puts it: a layer laid out again only
        // when what it shows changes.
        // The apps' menus and alerts over their panes (under the status bar and the keyboard).
        if let presented = presentationLayer(scale: desk.profile.scale) { graph.append(.presentations, nodes: presented) }
        if let bar = statusBarLayer(width: graph.size.width, scale: desk.profile.scale) {
            graph.append(.statusBar, generation: bar.generation, nodes: bar.nodes)
        }
        // The on-screen keyboard over the apps and their windows, while it shows.
        if let keys = keyboardLayer(scale: desk.profile.scale) { graph.append(.keyboard, nodes: keys) }
        // The pointer's cursor over everything, while it shows.
        if cursor, let nodes = cursorLayer(scale: desk.profile.scale) { graph.append(.cursor, nodes: nodes) }
        return graph
    }

    /// Where an app's live surface is drawn on the main screen: in the last frame's scene (its
    /// damage tracker's), if that frame showed it live (not a snapshot). A surface that moved or
    /// appeared since is repainted whole by the next frame's diff anyway.
    func liveNode(of c: ClientSession) -> SceneNode? {
        main.lastScene.layers.lazy.flatMap(\.nodes).first { $0.key == .surface(c.app) && $0.live }
    }

    /// Whether something waits to be shown: an app committed since the last frame, the scene
    /// changed (a gesture moved a pane, an app came or went), or the output must be repainted.
    /// A finger resting on the divider asks for nothing. (A look: nothing is taken.)
    public var needsRepaint: Bool { wantedFrame() != nil }

    /// The scene of the frame that waits to be shown, if one does (see `needsRepaint`).
    func wantedFrame() -> SceneGraph? {
        let graph = sceneGraph()
        return framePending(graph) || main.wouldRepaint(graph) || fade != nil ? graph : nil
    }

    /// Whether an app waits for a frame that shows its commit.
    private func framePending(_ graph: SceneGraph) -> Bool {
        graph.contains { n in
            guard n.image != nil, let c = n.app.flatMap({ session($0) }) else { return false }
            if case .pip = n.key { return c.waitsForPiPFrame }
            return c.waitsForPaneFrame
        }
    }

    /// The scene as presented now and its damage since the last frame, taken.
    private func takeFrame() -> (graph: SceneGraph, damage: Region?) {
        let graph = sceneGraph()
        // A cross-fade repaints the whole output while it runs, and once more when it ends.
        if fade != nil { main.invalidate() }
        return (graph, main.takeDamage(graph))
    }

    // MARK: - The repaint path

    /// The live loop's frame: the scene as presented now and what changed since the last
    /// frame, taken (diffed once), then drawn as `drawFrame` draws, if it shows anything new
    /// or an app waits for it; nil (the empty damage taken) when nothing changed on screen.
    public func drawWantedFrame() -> FrameReport? {
        let t0 = MonotonicClock.nanoseconds
        let taken = takeFrame()
        if let d = taken.damage, d.isEmpty, fade == nil, !framePending(taken.graph) { return nil }
        return draw(taken, since: t0)
    }

    /// Draws a frame of the main screen whatever changed (render, scenarios, the profiler):
    /// the one repaint path. See `draw`.
    @discardableResult
    public func drawFrame() -> FrameReport {
        let t0 = MonotonicClock.nanoseconds
        return draw(takeFrame(), since: t0)
    }

    /// Draws a frame and returns what it drew (see `drawFrame`).
    @discardableResult
    public func repaint() -> RenderStats { drawFrame().stats }

    /// The one repaint path, as `wlr_scene_output_commit` or `weston_output_repaint`: the main
    /// screen's frame in three stages (layout: the pixman operations of the scene's damage and
    /// what the output buffer lacks besides; composite; present, telling the apps it shows),
    /// then the second screen's, if it wants one now. The observer is told what the frame did.
    /// `taken`: the scene and its damage since the last frame; `since`: when taking began.
    private func draw(_ taken: (graph: SceneGraph, damage: Region?), since t0: UInt64) -> FrameReport {
        let observed = frameObserver != nil
        let motion = observed ? motionKind : nil, turnDegrees = observed ? self.turnDegrees : nil
        let frame = layOut(taken)
        let t1 = MonotonicClock.nanoseconds
        frameObserver?.laidOut(frame)
        let t2 = MonotonicClock.nanoseconds
        PixmanRenderer.replay(frame.operations, into: frame.target)
        if configuration.debugDamage, let d = frame.scene.damage {
            // Tint what was repainted, so a person can see the damage.
            frame.target.image.tint(d.rects)
        }
        main.composited(frame.graph, commits: frame.commits)
        renderer.chrome.frameDrawn(now: now)
        let t3 = MonotonicClock.nanoseconds
        let result = present()
        frameToVNC(frame.target.image, damage: frame.damage)
        drawSecondScreen(mirroring: frame.graph)
        let t4 = MonotonicClock.nanoseconds
        var report = FrameReport(
            damage: frame.damage, operations: frame.operations, stats: frame.stats, result: result,
            layoutStart: t0, layoutEnd: t1, compositeStart: t2, compositeEnd: t3, presentEnd: t4)
        if let observer = frameObserver {
            report.motion = motion
            report.turn = turnDegrees
            report.shown = shownPanes
            report.keyboard = keyboardRecord
            observer.presented(report)
        }
        return report
    }

    /// Layout: the frame's scene with the region to repaint (the damage since the frame on
    /// screen and what the output buffer it goes into lacks besides, by the buffer's age), and
    /// the pixman operations that draw it. Nothing is drawn, so the output need not be ready.
    private func layOut(_ taken: (graph: SceneGraph, damage: Region?)) -> Frame {
        let (graph, frameDamage) = taken
        // The desk learns whether the frame shows the cursor (it hides by time: a frame then).
        if !cursorOnPlane { desk.cursorDrawn(showing: graph.layers.contains { $0.kind == .cursor }) }
        let (target, repaint) = main.beginFrame(changed: frameDamage)
        let turn = desk.turn(at: now)
        let (scene, planned, stats) = composition(graph, transform: geometry.transform, size: geometry.panel, damage: repaint, planned: turn == nil)
        var ops = planned
        if let turn { drawTurn(turn, graph: graph) }
        if let op = fadeOperation() { ops.append(op) }
        return Frame(scene: scene, damage: frameDamage, target: target, operations: ops, graph: graph, stats: stats, commits: clients.commitCount)
    }

    /// A frame of a rotation's turn, drawn reduced: the new scene into the turn's picture, then
    /// the old and new pictures turned into the turn's frame (the fade operation scales it up
    /// over the output).
    private func drawTurn(_ t: (old: (angle: Double, opacity: UInt8), new: (angle: Double, opacity: UInt8)), graph: SceneGraph) {
        guard let turn = main.fadePictures?.turn else { return }
        let fresh = turn.fresh
        let reduce = AffineTransform(a: Double(fresh.width) / Double(geometry.panel.width), b: 0, c: 0, d: Double(fresh.height) / Double(geometry.panel.height), tx: 0, ty: 0)
        if t.new.opacity > 0 { compose(graph, transform: reduce.concatenating(geometry.transform), into: fresh) }
        turn.draw(old: t.old, new: t.new)
    }

    /// How far the old picture of a rotation has turned now, in degrees (nil: no turn runs).
    public var turnDegrees: Double? { desk.turn(at: now).map { $0.old.angle * 180 / .pi } }

    /// The one composition every picture of the scene goes through: a frame of either screen,
    /// a turn's reduced frame, both screenshots, a measurement. `graph` with the apps' pixels and
    /// the chrome, seen through `transform` on a target of `size`, only `damage` of it (nil:
    /// all); the pixman operations that draw it (none when not `planned`: a turn draws its
    /// own).
    func composition(_ graph: SceneGraph, transform: AffineTransform, size: Size, damage: Region? = nil, planned: Bool = true)
        -> (scene: Scene, operations: [RenderOperation], stats: RenderStats)
    {
        let scene = Scene(graph, images: pixels(of:), chrome: renderer.chrome, transform: transform, outputSize: size, damage: damage)
        guard planned else { return (scene, [], RenderStats()) }
        let (operations, stats) = renderer.plan(scene)
        return (scene, operations, stats)
    }

    /// Draws `graph` into `target` now (`composition` then the operations replayed): with
    /// `pixmanOnly`, pixman's bilinear where the box filter would be; `kernel`: the
    /// area-average kernel's path.
    func compose(_ graph: SceneGraph, transform: AffineTransform, into target: PixelImage, damage: Region? = nil, pixmanOnly: Bool = false, kernel: BoxKernel? = nil) {
        let planned = composition(graph, transform: transform, size: Size(width: target.width, height: target.height), damage: damage)
        PixmanRenderer.replay(planned.operations, into: target, pixmanOnly: pixmanOnly, kernel: kernel)
    }

    /// Draws `graph` into an output's buffer for a frame (its damage only; what needs the
    /// buffer read back composed in its shadow when it has one).
    func compose(_ graph: SceneGraph, transform: AffineTransform, into target: FrameTarget, damage: Region?) {
        let planned = composition(graph, transform: transform, size: Size(width: target.image.width, height: target.image.height), damage: damage)
        PixmanRenderer.replay(planned.operations, into: target)
    }

    /// The pixels a node of the scene shows, if it shows an app's image that is still held.
    func pixels(of node: SceneNode) -> PixelImage? {
        guard let image = node.image, let app = node.app else { return nil }
        return session(app)?.pixels(image)
    }

    /// Present: shows the frame; apps whose commits it shows get `frameDone` (a commit that
    /// arrived after the frame was laid out waits for the next). A frame the output dropped
    /// sends none, and its damage is repainted with the next. A second screen that mirrors
    /// this one wants the frame too.
    private func present() -> PresentResult {
        let result = main.present()
        if let s = secondScreen, screenHolder?.screenSurface == nil { s.output.wantFrame() }
        guard case .presented(let shown) = result else { return result }
        let atFlip = virtualTime == nil && backend.reportsPresentation
        if atFlip { main.awaitFlip(telling: []) } else { hooks.onFrameShown?(main.shownCommits, MonotonicClock.nanoseconds) }
        // The apps whose pane or window the frame showed, as it was laid out, and that waited
        // for it (an app drawing both hears once).
        var shownTo: [ClientID] = []
        for c in clients.all where c.waitsForMainFrame {
            let pane = c.waitsForPaneFrame && main.shownGraph?.showsPane(of: c.app) == true
            let window = c.waitsForPiPFrame && desk.pip.windows.contains { $0.app == c.app }
            if c.mainFrameShown(laidOut: main.shownCommits, showsPane: pane, showsPiP: window) { shownTo.append(c.id) }
        }
        guard !shownTo.isEmpty else { return result }
        // Live on a panel the frame reaches the screen at its flip: the apps hear then, with
        // the flip's time. In memory, or in a scenario's virtual time, it is on screen now.
        if atFlip {
            main.awaitFlip(telling: shownTo)
        } else {
            tellFrameShown(to: shownTo, at: virtualTime ?? shown)
        }
        return result
    }

    /// Sends `frameDone` (with the time the frame reached the screen) to the apps it showed.
    func tellFrameShown(to apps: [ClientID], at time: UInt64) {
        let refresh = refreshMilliseconds(of: main), seq = main.frames
        for id in apps { if let c = clients[id] { send(.frameDone(time: time, refresh: refresh, seq: seq), to: c) } }
    }

    /// The scene as presented now drawn whole into a new image, for measurements (not
    /// frames): on the panel through the output's transform with the renderer's filters (or,
    /// with `pixmanOnly`, pixman's bilinear as before the box filter), or at the logical size
    /// unscaled (`logical`); `kernel`: the area-average kernel's path (the current one).
    public func drawWholeFrame(logical: Bool = false, pixmanOnly: Bool = false, kernel: BoxKernel? = nil, cursor: Bool = true) -> PixelImage {
        let size = logical ? geometry.logical : geometry.panel
        let image = PixelImage(width: size.width, height: size.height)
        compose(sceneGraph(cursor: cursor), transform: logical ? .identity : geometry.transform, into: image, pixmanOnly: pixmanOnly, kernel: kernel)
        return image
    }

    /// The milliseconds of virtual time between a scenario's frames.
    public static let virtualFrameInterval: UInt64 = 16

    /// The refresh period `frameDone` tells of `output`: its own, or in virtual time the
    /// scenario's frame interval (so a scenario's logs are the same on any output).
    func refreshMilliseconds(of output: Output) -> Double {
        virtualTime == nil ? output.refreshMilliseconds : Double(Compositor.virtualFrameInterval)
    }

    /// The repaint window of the main output: how far ahead of its vblank frames are composed.
    public var repaintWindow: RepaintWindow {
        get { main.repaintWindow }
        set { main.repaintWindow = newValue }
    }

    /// The window in effect now, in milliseconds (0: off).
    public var repaintWindowMilliseconds: Double { Double(main.windowNanoseconds) / 1_000_000 }

    /// Frames composed at a deadline so far: those on screen by the vblank they aimed at, and
    /// those later.
    public var framesAtDeadline: (onTime: Int, late: Int) { (main.framesOnTime, main.framesLate) }

    /// Whether events wait to be written to apps.
    public var hasUnflushedEvents: Bool { clients.hasUnflushed }

    /// Bytes held in snapshots by all apps now.
    public var snapshotBytes: Int { clients.all.reduce(0) { $0 + $1.snapshotBytes } }
    /// The blurred pictures made for drags so far, and the mean time one took (ms).
    public var blurCost: (count: Int, meanMilliseconds: Double) {
        (clients.blurs.count, clients.blurs.count == 0 ? 0 : Double(clients.blurs.nanoseconds) / Double(clients.blurs.count) / 1e6)
    }
}

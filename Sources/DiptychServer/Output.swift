// SPDX-License-Identifier: MIT
// One screen the compositor draws on: its backend, what changed on it since the frame on
// screen (a damage tracker in its own geometry), the damage of the frames shown lately (for a
// buffer older than one frame), and its frame count. The main screen and the second screen are
// two of them, drawn through the same two calls: `beginFrame` and `present`. Its repaint
// schedule says when a wanted frame is composed: at a deadline before the next vblank.

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychRender
import DiptychLinux

/// A screen. Confined to the compositor's thread.
final class Output {
    let backend: any OutputBackend
    /// What changed on it since the frame on screen, in its pixels.
    private var damage: DamageTracker
    /// The damage of the frames presented lately, oldest first.
    private(set) var history: [Region?] = []
    /// What the frame being drawn repaints since the frame on screen (nil: everything).
    private(set) var drawing: Region?
    /// Frames presented on it.
    private(set) var frames: UInt64 = 0
    /// Something changed its picture since its last frame was drawn (frames are asked for,
    /// not polled: the live loop draws an output only when this is set and it is ready).
    private(set) var wantsFrame = true
    /// When frames are composed: its refresh, the vblank it last presented at, the window.
    private var schedule: RepaintSchedule
    /// The pictures of the cross-fade or turn running on it, if one does (the main screen's).
    var fadePictures: CrossFadePictures?
    /// The status bar's clock, battery and layout, kept between frames (the main screen's).
    var statusBar = StatusBarCache()
    /// Frames the live loop found wanted though none was asked for (debug builds look on every
    /// idle turn): a place that changes the picture without `scheduleFrame`. Zero, or a bug.
    var unscheduledFrames = 0
    /// The scene of the last frame drawn (what a mirror shows), and the commit stamp it was laid
    /// out at: apps whose last commit is no later are shown by it.
    private(set) var shownGraph: SceneGraph?
    private(set) var shownCommits: UInt64 = 0
    /// While a frame's flip is pending: the commit stamp it shows, and the apps to tell
    /// `frameDone` when it completes.
    private var flip: (commits: UInt64, apps: [ClientID])?
    /// Frames of damage kept: as many as a swap chain has buffers, and one more.
    static let historyLength = 4

    /// The panel size the logical screen is fitted to (nil: shown natively), and its rotation.
    private(set) var fit: (panel: Size?, rotation: OutputRotation)
    /// How the logical screen lands on it.
    private(set) var geometry: OutputGeometry

    /// The logical screen on a panel of that size (emulation, or a real output), else shown
    /// natively, turned by `rotation`.
    static func geometry(logical: Size, panel: Size?, rotation: OutputRotation) -> OutputGeometry {
        panel.map { OutputGeometry(logical: logical, panel: $0, rotation: rotation) } ?? .native(logical: logical, rotation: rotation)
    }

    /// An output showing a logical screen of `logical` pixels as `fit` says.
    convenience init(backend: any OutputBackend, logical: Size, fit: (panel: Size?, rotation: OutputRotation), window: RepaintWindow = .off) {
        let geometry = Self.geometry(logical: logical, panel: fit.panel, rotation: fit.rotation)
        self.init(backend: backend, geometry: geometry, window: window)
        self.fit = fit
    }

    /// Shows a logical screen of `logical` pixels, turned by `rotation` on the panel (nil: as
    /// it is): what it shows is repainted whole.
    func refit(logical: Size, rotation: OutputRotation? = nil) {
        if let rotation { fit.rotation = rotation }
        geometry = Self.geometry(logical: logical, panel: fit.panel, rotation: fit.rotation)
        damage.setGeometry(geometry)
    }

    /// Shows the picture through `geometry` from now on (the second screen: the main screen
    /// fitted to it, or its holder's buffer): what it shows is repainted whole.
    func show(geometry: OutputGeometry) {
        self.geometry = geometry
        damage.setGeometry(geometry)
    }

    /// An output whose geometry is given (the second screen fits the picture itself).
    init(backend: any OutputBackend, geometry: OutputGeometry, window: RepaintWindow = .off) {
        self.backend = backend
        self.geometry = geometry
        fit = (nil, geometry.rotation)
        damage = DamageTracker(geometry: geometry)
        schedule = RepaintSchedule(refresh: 1_000_000_000_000 / UInt64(max(1, backend.refreshMillihertz)), window: window)
    }

    /// The deadline of the frame wanted now, once the loop has set it, and the vblank it aims
    /// at (nil with the window off).
    private var deadline: UInt64?
    private var aim: UInt64?
    /// The vblank the frame on its way to the screen aimed at.
    private var flightAim: UInt64?
    /// Frames composed at a deadline that reached the screen by the vblank they aimed at, and
    /// those that came later.
    var framesOnTime = 0, framesLate = 0

    /// When to compose the frame wanted since `now` (monotonic ns): at the repaint window
    /// before the next vblank the frame can make, for an output that shows frames at its vblank;
    /// at once for one that shows them as soon as they are given. Set once per frame (a wake a
    /// little past it still draws for that vblank), until `drew()`.
    func repaintDeadline(now: UInt64) -> UInt64 {
        if let deadline { return deadline }
        var d = now
        aim = nil
        if backend.reportsPresentation, schedule.windowNanoseconds > 0, schedule.lastPresentation != nil {
            d = schedule.deadline(now: now)
            aim = d + schedule.windowNanoseconds
        }
        deadline = d
        return d
    }

    /// Asks for a frame: something changed its picture.
    func wantFrame() { wantsFrame = true }

    /// Asks for a whole frame: everything is repainted (it came back, it turned, the picture
    /// may differ anywhere).
    func redraw() {
        damage.invalidate()
        wantsFrame = true
    }

    /// Everything is repainted at the next frame, whenever that is asked for.
    func invalidate() { damage.invalidate() }

    /// What changed since the frame on screen if `graph` were shown now, taken: the next
    /// diff starts from `graph` (nil: everything).
    func takeDamage(_ graph: SceneGraph) -> Region? { damage.take(graph) }

    /// Whether showing `graph` would repaint anything.
    func wouldRepaint(_ graph: SceneGraph) -> Bool { damage.wouldRepaint(graph) }

    /// The scene the damage was last taken against.
    var lastScene: SceneGraph { damage.lastScene }

    /// A commit's damage (buffer pixels) at `node`, as the output sees it.
    func commitDamage(_ bufferDamage: [Rect], at node: SceneNode) { damage.commit(bufferDamage, at: node) }

    /// Rectangles of damage waiting for the next frame (a bound the tests read).
    var pendingDamageRectangles: Int { damage.pendingRectangles }

    /// Time spent composing a frame (ns), which the repaint window learns from.
    func worked(_ nanoseconds: UInt64) { schedule.worked(nanoseconds) }

    /// The repaint window: how far ahead of its vblank frames are composed.
    var repaintWindow: RepaintWindow {
        get { schedule.window }
        set { schedule.window = newValue }
    }
    var windowNanoseconds: UInt64 { schedule.windowNanoseconds }

    /// The chrome the screen shows (pictures of the last frame drawn).
    var shownChrome: [(chrome: Chrome, size: Size)] {
        (shownGraph?.layers ?? []).flatMap { layer in
            layer.nodes.compactMap { n in if case .chrome(let c) = n.content { (c, n.imageRect.size) } else { nil } }
        }
    }

    /// A frame of `graph`, laid out at the commit stamp `commits`, was drawn into its buffer.
    func composited(_ graph: SceneGraph, commits: UInt64) {
        shownGraph = graph
        shownCommits = commits
    }

    /// The frame just presented reaches the screen at its flip: `apps` hear then.
    func awaitFlip(telling apps: [ClientID]) {
        var waiting = flip?.apps ?? []
        waiting += apps.filter { !waiting.contains($0) }
        flip = (shownCommits, waiting)
    }

    /// The flip completed: the commit stamp it showed and the apps waiting to hear it.
    func flipCompleted() -> (commits: UInt64, apps: [ClientID]) {
        defer { flip = nil }
        return flip ?? (shownCommits, [])
    }

    /// The wanted frame was drawn (or found to show nothing new).
    func drew() {
        wantsFrame = false
        deadline = nil
    }

    /// The frame presented last reached the screen at the vblank `nanoseconds`.
    func shown(at nanoseconds: UInt64) {
        schedule.presented(at: nanoseconds)
        if let a = flightAim {
            // Within a millisecond of it: the kernel's timestamp of a vblank is not the grid's.
            if nanoseconds <= a + 1_000_000 { framesOnTime += 1 } else { framesLate += 1 }
        }
        flightAim = nil
    }

    /// The buffer the next frame goes into, and what of it to repaint: what `changed` since the
    /// frame on screen (nil: everything) and what that buffer lacks besides, by its age.
    func beginFrame(changed: Region?) -> (target: FrameTarget, repaint: Region?) {
        drawing = changed
        let target = backend.beginFrame()
        return (target, target.repaintRegion(changed, history: history))
    }

    /// Shows the frame drawn since `beginFrame`. A frame the output dropped leaves what it
    /// would have repainted to the next one.
    func present() -> PresentResult {
        let result = backend.present(damage: drawing)
        if case .presented = result {
            history.push(drawing, keeping: Self.historyLength)
            frames += 1
            flightAim = aim
            aim = nil
            // An output that shows a frame at once: it is on screen now.
            if !backend.reportsPresentation { schedule.presented(at: MonotonicClock.nanoseconds) }
        } else {
            damage.keep(drawing)
        }
        return result
    }

    /// Milliseconds between its refreshes.
    var refreshMilliseconds: Double { 1_000_000 / Double(max(1, backend.refreshMillihertz)) }
}

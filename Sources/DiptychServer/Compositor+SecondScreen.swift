// SPDX-License-Identifier: MIT
// The second physical screen: an `Output` like the main one (a second KMS connector with its
// CRTC, or a headless image) with its own damage, frames and repaint schedule, given to the
// primary app alone. The primary hears `screenConnected` and may commit buffers to it (fitted
// to the screen); until it does, and once it gives the screen back, the screen mirrors the main
// one: the main screen's last scene drawn through the fit to this screen (as emulation fits the
// logical screen to a panel), so a frame repaints only what changed there too. When the
// primary changes the screen passes on (`screenDisconnected` to the old one).

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychRender
import DiptychWire

/// The second screen: an output like the main one, and the app it is given to.
final class SecondScreen {
    /// Its number on the wire (the main screen is 1).
    static let number: UInt32 = 2
    /// The screen: its damage tracker, repaint schedule and frames, as the main one's.
    let output: Output
    var backend: any OutputBackend { output.backend }
    /// The app that was told `screenConnected` (the primary), if any.
    var owner: ClientID?

    init(backend: any OutputBackend, logical: Size) {
        output = Output(backend: backend, geometry: Self.fit(logical, into: backend.size))
    }

    /// A picture of `size` fitted to a screen of `screen`: uniform scale, centred.
    static func fit(_ size: Size, into screen: Size) -> OutputGeometry {
        OutputGeometry(logical: size, panel: screen, rotation: .none)
    }

    /// The scene of a holder's buffer: the buffer alone, at its own size.
    static func scene(of surface: CommittedSurface, app: AppID) -> SceneGraph {
        let ref = surface.image.ref, whole = Rect(x: 0, y: 0, width: ref.width, height: ref.height)
        return SceneGraph(size: Size(width: ref.width, height: ref.height), nodes: [SceneNode(app: app, image: ref, live: true, imageRect: whole, clip: whole)])
    }
}

extension Compositor {
    /// Gives the compositor a second screen (the DRM backend's second connector; the headless
    /// one comes from the configuration).
    public func attachSecondScreen(_ backend: any OutputBackend) throws {
        for fd in backend.eventDescriptors where !self.backend.eventDescriptors.contains(fd) {
            try loop.add(fd, token: LoopToken.output(fd).rawValue)
        }
        secondScreenChanged(SecondScreen(backend: backend, logical: geometry.logical))
        updateSecondScreen()
    }

    /// Whether a second screen is there now.
    public var secondScreenConnected: Bool { secondScreen?.backend.isConnected ?? false }

    /// The second screen's last frame, for captures.
    public var secondScreenOutput: PixelImage? { secondScreen?.backend.lastFrame }

    /// The client that holds the second screen (for tests and logs).
    public var secondScreenOwner: String? { screenHolder?.label }

    /// The app the second screen is given to, if any.
    var screenHolder: ClientSession? { secondScreen?.owner.flatMap { clients[$0] } }

    /// Hands the screen to the primary (the one admitted now), or takes it back when it went
    /// away: the old holder hears `screenDisconnected`, the new one `screenConnected`.
    func updateSecondScreen() {
        guard let s = secondScreen else { return }
        let size = s.backend.size
        let wanted = s.backend.isConnected ? session(.primary).flatMap { $0.admitted ? $0 : nil } : nil
        guard wanted?.id != s.owner else { return }
        if let old = screenHolder {
            old.dropScreenSurface()
            send(.screenDisconnected(screen: SecondScreen.number, pixelWidth: size.width, pixelHeight: size.height), to: old)
        }
        s.owner = wanted?.id
        s.output.redraw()
        if let wanted {
            send(.screenConnected(screen: SecondScreen.number, pixelWidth: size.width, pixelHeight: size.height), to: wanted)
            logger.debug("second screen given to the primary", metadata: ["client.app": "\(wanted.label)", "screen.size": "\(size)"])
        }
    }

    /// `screenCommit`: the holder shows a buffer on the screen.
    func screenCommit(_ screen: UInt32, buffer id: UInt32, damage bufferDamage: [Rect], from c: ClientSession) throws(ProtocolError) {
        let buffer = try c.buffers.buffer(id, for: "screenCommit")
        // A commit that crosses an unplug or a change of primary is declined, not fatal.
        guard screen == SecondScreen.number, let s = secondScreen, s.backend.isConnected else {
            refuse(c, request: "secondScreen", reason: "not-connected", "screenCommit to screen \(screen), which is not connected", releasing: id)
            return
        }
        guard s.owner == c.id else {
            refuse(c, request: "secondScreen", reason: "not-primary", "screenCommit: only the primary app may draw on the second screen", releasing: id)
            return
        }
        let before = c.screenSurface?.image.ref
        c.showOnScreen(hold(buffer), damage: bufferDamage, stamp: clients.stampCommit())
        s.output.wantFrame()
        // The screen showed a buffer of this size: what the commit damaged; else (a new size,
        // or the first buffer after mirroring) all of it.
        if let before, let now = c.screenSurface, before.width == now.image.ref.width, before.height == now.image.ref.height {
            s.output.commitDamage(bufferDamage, at: SecondScreen.scene(of: now, app: c.app).nodes[0])
        } else {
            s.output.invalidate()
        }
    }

    /// `screenRelease`: the holder gives the screen back; it mirrors the main screen again.
    func screenRelease(_ screen: UInt32, from c: ClientSession) throws(ProtocolError) {
        guard screen == SecondScreen.number, let s = secondScreen, s.backend.isConnected else {
            refuse(c, request: "secondScreen", reason: "not-connected", "screenRelease of screen \(screen), which is not connected")
            return
        }
        guard s.owner == c.id else {
            refuse(c, request: "secondScreen", reason: "not-primary", "screenRelease: the second screen is not this app's")
            return
        }
        guard c.screenSurface != nil else { return }
        c.dropScreenSurface()
        s.output.redraw()
    }

    /// A commit to a surface the main screen shows at `node`: the main screen's damage, and a
    /// mirroring second screen's.
    func damageCommit(_ bufferDamage: [Rect], at node: SceneNode) {
        main.commitDamage(bufferDamage, at: node)
        if let s = secondScreen, screenHolder?.screenSurface == nil { s.output.commitDamage(bufferDamage, at: node) }
    }

    /// The second screen's frame, when it wants one and can take it: its holder's buffer
    /// fitted to it, or the main screen mirrored (`graph`, the scene of the main frame just
    /// drawn; nil, drawn on its own: the scene as presented now, whose images are all still
    /// held), drawn for its damage through the same output calls as the main screen's.
    /// Returns whether it presented a frame.
    @discardableResult
    func drawSecondScreen(mirroring mainScene: SceneGraph? = nil) -> Bool {
        guard let s = secondScreen, s.output.wantsFrame, s.backend.isConnected, s.backend.readyForFrame else { return false }
        s.output.drew()
        let holder = screenHolder, held = holder?.screenSurface
        let graph: SceneGraph
        if let holder, let held {
            graph = SecondScreen.scene(of: held, app: holder.app)
        } else {
            graph = mainScene ?? sceneGraph()
        }
        let fit = SecondScreen.fit(graph.size, into: s.backend.size)
        if s.output.geometry != fit { s.output.show(geometry: fit) }
        let damage = s.output.takeDamage(graph)
        let waiting = holder.map { $0.screen.frameDonePending } ?? false
        if let damage, damage.isEmpty, !waiting { return false }
        let (target, repaint) = s.output.beginFrame(changed: damage)
        compose(graph, transform: fit.transform, into: target, damage: repaint)
        s.output.composited(graph, commits: clients.commitCount)
        guard case .presented(let shown) = s.output.present() else {
            s.output.wantFrame()
            return false
        }
        if let holder, holder.screenFrameShown(laidOut: s.output.shownCommits) {
            send(.frameDone(time: virtualTime ?? shown, refresh: refreshMilliseconds(of: s.output), seq: s.output.frames), to: holder)
        }
        return true
    }

    /// The second screen as it is now composited again into `image`, of its size (its holder's
    /// buffer, or the main screen mirrored, fitted to it; no cursor): false without one.
    func secondScreenImage(into image: PixelImage) -> Bool {
        guard let s = secondScreen, s.backend.isConnected else { return false }
        let graph = screenHolder.flatMap { h in h.screenSurface.map { SecondScreen.scene(of: $0, app: h.app) } } ?? sceneGraph(cursor: false)
        compose(graph, transform: SecondScreen.fit(graph.size, into: s.backend.size).transform, into: image)
        return true
    }

    /// Waits until the second screen's last frame is on it (its flip completed), for a
    /// capture read back from the hardware.
    public func waitUntilSecondScreenReady(timeoutMilliseconds: Int = 2000) throws {
        guard let s = secondScreen else { return }
        try run(timeoutMilliseconds: timeoutMilliseconds) { s.backend.readyForFrame || !s.backend.isConnected }
    }

    /// What the second screen's output reported (a hotplug): the screen comes or goes.
    func handleSecondScreen(_ events: [OutputEvent]) {
        guard let s = secondScreen else { return }
        for e in events {
            switch e {
            case .reconnected, .disconnected:
                s.output.redraw()
            case .frameDone(let time): s.output.shown(at: time)
            case .connectorsChanged: break
            }
        }
        updateSecondScreen()
    }
}

extension Compositor {
    /// A hotplug: without a second screen, one is looked for (`secondScreenProvider`); with
    /// one, its connector is re-read.
    func connectorsChanged() {
        if secondScreen == nil, let provider = hooks.secondScreen, let backend = provider() {
            do { try attachSecondScreen(backend) } catch {
                logger.warning("system error: cannot watch the second screen", metadata: ["error": "\(error)"])
            }
            return
        }
        pollSecondScreen()
    }

    /// The second screen's periodic check (a connector that changed without an event).
    public func pollSecondScreen() {
        guard let s = secondScreen else { return }
        handleSecondScreen(s.backend.poll())
    }
}

// SPDX-License-Identifier: MIT
// The second physical screen: an output of its own (a second KMS connector with its
// CRTC, or a headless image), given to the primary app alone. The primary hears
// `screenConnected` and may commit buffers to it (fitted to the screen); until it does, and once
// it gives the screen back, the screen mirrors the main one: the same scene graph drawn through
// one more transform (the logical screen fitted to this one, as emulation fits it to a panel),
// with its own damage tracker, so a frame repaints only what changed there too. When the
// primary changes the screen passes on (`screenDisconnected` to the old one).

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychRender
import DiptychWire

/// The second screen's state. Confined to the compositor's thread.
final class SecondScreen {
    /// Its number on the wire (the main screen is 1).
    static let number: UInt32 = 2
    /// The screen; its damage tracker is the mirror's: the main scene's changes, through the
    /// fit to this screen.
    let output: Output
    var backend: any OutputBackend { output.backend }
    /// The app that was told `screenConnected` (the primary), if any.
    var owner: ClientID?
    /// The owner's commits since the last frame, in this screen's pixels.
    var pending = Region()
    /// The next frame repaints everything (the content's source changed).
    var full = true
    /// Whether the owner's last commit waits for a frame that shows it.
    var frameDonePending = false

    init(backend: any OutputBackend, logical: Size) {
        output = Output(backend: backend, geometry: Self.fit(logical, into: backend.size))
    }

    /// A picture of `size` fitted to a screen of `screen`: uniform scale, centred.
    static func fit(_ size: Size, into screen: Size) -> OutputGeometry {
        OutputGeometry(logical: size, panel: screen, rotation: .none)
    }
}

extension Compositor {
    /// Gives the compositor a second screen (the DRM backend's second connector; the headless
    /// one comes from the configuration).
    public func attachSecondScreen(_ backend: any OutputBackend) throws {
        for fd in backend.eventDescriptors where !self.backend.eventDescriptors.contains(fd) {
            try loop.add(fd, token: LoopToken.output(fd).rawValue)
        }
        secondScreen = SecondScreen(backend: backend, logical: geometry.logical)
        updateSecondScreen()
    }

    /// Whether the second screen has a frame to show of its own (its holder's commit, or all
    /// of it again): a mirror otherwise follows the main screen's frames.
    var secondScreenWantsFrame: Bool {
        guard let s = secondScreen else { return false }
        return s.full || !s.pending.isEmpty || s.frameDonePending
    }

    /// Whether a second screen is there now.
    public var secondScreenConnected: Bool { secondScreen?.backend.isConnected ?? false }

    /// The second screen's last frame, for captures.
    public var secondScreenOutput: PixelImage? { secondScreen?.backend.lastFrame }

    /// The client that holds the second screen (for tests and logs).
    public var secondScreenOwner: String? { secondScreen?.owner.flatMap { clients[$0]?.label } }

    /// Hands the screen to the primary (the one admitted now), or takes it back when it went
    /// away: the old holder hears `screenDisconnected`, the new one `screenConnected`.
    func updateSecondScreen() {
        guard let s = secondScreen else { return }
        let size = s.backend.size
        let wanted = s.backend.isConnected ? session(.primary).flatMap { $0.admitted ? $0 : nil } : nil
        guard wanted?.id != s.owner else { return }
        if let old = s.owner.flatMap({ clients[$0] }) {
            old.dropScreenSurface()
            send(.screenDisconnected(screen: SecondScreen.number, pixelWidth: size.width, pixelHeight: size.height), to: old)
        }
        s.owner = wanted?.id
        s.full = true
        s.frameDonePending = false
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
        let old = c.screenSurface.map { Size(width: $0.image.pixels.width, height: $0.image.pixels.height) }
        c.showOnScreen(hold(buffer), damage: bufferDamage)
        s.frameDonePending = true
        let size = Size(width: buffer.pixels.width, height: buffer.pixels.height)
        if old != size {
            s.full = true
        } else {
            let fit = SecondScreen.fit(size, into: s.backend.size)
            for r in bufferDamage { if let d = fit.damage(r) { s.pending.formUnion(d, collapsingPast: Region.damageRectangleLimit) } }
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
        s.full = true
        s.frameDonePending = false
    }

    /// A commit to a surface the main screen shows at `node`: both screens' damage.
    func damageCommit(_ bufferDamage: [Rect], at node: SceneNode) {
        main.damage.commit(bufferDamage, at: node)
        secondScreen?.output.damage.commit(bufferDamage, at: node)
    }

    /// Draws and presents the second screen's frame if it has one to show and can take it:
    /// the holder's buffer fitted to it, or the main scene mirrored (`graph`, the main frame's
    /// scene when called as it is presented; nil: the scene as presented now, built once).
    @discardableResult
    public func presentSecondScreen(mirroring graph: SceneGraph? = nil) -> Bool {
        guard let s = secondScreen, s.backend.isConnected, s.backend.readyForFrame else { return false }
        let held = s.owner.flatMap { clients[$0]?.screenSurface }
        let mirrored = held == nil ? (graph ?? sceneGraph()) : nil
        // The mirror's damage is taken once, here: nothing changed there and nothing else to
        // show, no frame.
        var mirrorDamage: Region?
        if let mirrored {
            if s.full { s.output.damage.invalidate() }
            mirrorDamage = s.output.damage.take(mirrored)
        }
        guard secondScreenWantsFrame || mirrorDamage.map({ !$0.isEmpty }) ?? (mirrored != nil) else { return false }
        let size = s.backend.size
        if let surface = held {
            let pixels = surface.image.pixels
            let source = Size(width: pixels.width, height: pixels.height)
            let (target, repaint) = s.output.beginFrame(changed: s.full ? nil : s.pending)
            let scene = Scene(
                size: source, surfaces: [SceneSurface(image: pixels, origin: (0, 0), clip: Rect(x: 0, y: 0, width: source.width, height: source.height))],
                transform: SecondScreen.fit(source, into: size).transform, outputSize: size, damage: repaint)
            PixmanRenderer.replay(renderer.plan(scene).operations, into: target)
        } else {
            let (target, repaint) = s.output.beginFrame(changed: mirrorDamage)
            // Built for its damage, as the main frame is (what lies outside is left out).
            let scene = Scene(
                mirrored!, images: pixels(of:), chrome: renderer.chrome, transform: s.output.damage.geometry.transform, outputSize: size, damage: repaint)
            PixmanRenderer.replay(renderer.plan(scene).operations, into: target)
        }
        guard case .presented(let shown) = s.output.present() else {
            s.full = true
            return false
        }
        s.full = false
        s.pending = Region()
        if s.frameDonePending, let owner = s.owner.flatMap({ clients[$0] }) {
            s.frameDonePending = false
            send(.frameDone(time: virtualTime ?? shown, refresh: refreshMilliseconds(of: s.output), seq: s.output.frames), to: owner)
        }
        return true
    }

    /// Waits until the second screen's last frame is on it (its flip completed), for a
    /// capture read back from the hardware.
    public func waitUntilSecondScreenReady(timeoutMilliseconds: Int = 2000) throws {
        guard let s = secondScreen else { return }
        try run(timeoutMilliseconds: timeoutMilliseconds) { s.backend.readyForFrame || !s.backend.isConnected }
    }

    /// The main screen's logical size changed (rotation, emulation): the mirror is refitted.
    func refitSecondScreen() {
        guard let s = secondScreen else { return }
        s.output.damage.setGeometry(SecondScreen.fit(geometry.logical, into: s.backend.size))
    }

    /// What the second screen's output reported (a hotplug): the screen comes or goes.
    func handleSecondScreen(_ events: [OutputEvent]) {
        guard let s = secondScreen else { return }
        for e in events {
            switch e {
            case .reconnected, .disconnected: s.full = true
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

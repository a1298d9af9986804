// SPDX-License-Identifier: MIT
// What apps ask for: each message of a session read, checked against its state and carried
// out (hello, acks, buffers, commits, snapshots, round trips, the primary's requests), and the
// damage of a commit bounded as the compositor takes it.

import DiptychCore
import Glibc
import DiptychLinux
import DiptychWire

extension Compositor {
    func read(_ c: ClientSession) {
        c.receive { message throws(ProtocolError) in try handle(message, from: c) }
    }

    private func handle(_ message: ClientMessage, from c: ClientSession) throws(ProtocolError) {
        if c.name == nil {
            // Nothing before hello: a connection that has not said who it is can make the
            // compositor hold or do nothing.
            guard case .hello = message else { throw ProtocolError(.badState, "\(message.name) before hello") }
        }
        switch message {
        case .ack, .syncDone, .createBuffer, .destroyBuffer, .hello, .textInput: break
        // Whatever shows something new (or stops showing it) asks for a frame.
        default: scheduleFrame()
        }
        switch message.boundingDamage {
        case .hello(let name, let requiresFullScreen):
            guard c.name == nil else { throw ProtocolError(.badState, "hello was already sent") }
            // What a client sends is escaped before it reaches a log line.
            c.hello(name: name, requiresFullScreen: requiresFullScreen)
            admission.helloGate.left(c.id.rawValue)
            logger.debug("hello", metadata: ["client.id": "\(c.id)", "client.name": "\(name.escapedForLog)"])
            // An app that connected by itself comes in without the keyboard (the user gives it
            // with a tap); one the compositor launched comes in as the operator set it up.
            if admission.atHello, let effects = join(c) { apply(effects, byUser: c.launchRole != nil) }
        case .ack(let serial):
            try c.acknowledge(serial)
        case .createBuffer(let id, let layout):
            try c.createBuffer(id, layout)
        case .destroyBuffer(let id):
            try c.destroyBuffer(id)
        case .commit(let id, let bufferDamage):
            guard let acked = c.ackedSerial else {
                throw ProtocolError(.badState, "commit before acking a configure")
            }
            let stamp = clients.stampCommit()
            c.commit(hold(try c.buffers.buffer(id, for: "commit")), serial: acked, damage: bufferDamage, stamp: stamp)
            hooks.onCommit?(c.id, stamp)
            if let node = liveNode(of: c) { damageCommit(bufferDamage, at: node) }
            activateIfDrawn(c)
            if c.commits == 1 { sendDeferredConfigures() }
        case .snapshot(let serial, let id):
            let buffer = try c.buffers.buffer(id, for: "snapshot")
            guard let pane = c.takeSnapshotRequest(serial) else {
                throw ProtocolError(.unknownSerial, "snapshot for serial \(serial), which was never requested")
            }
            // A snapshot that arrives after its drag ended, or for an orientation the screen
            // has left, is simply not used.
            let current = pane.frame.height == layout.screen.height
            let image = hold(buffer)
            let shown = desk.shell.drag != nil && current
            c.takeSnapshot(image, duringDrag: shown)
            // Blurred once, when it comes: the drag shows it blurred.
            if shown { clients.blur(c, image, factor: blurFactor) }
        case .syncDone(let serial):
            c.answeredRoundTrip(serial, at: MonotonicClock.nanoseconds)
        case .statusBarStyle(let style):
            setStatusBarStyle(style, from: c)
        case .pipCommit(let id, let playing, let sourceRect, let bufferDamage):
            try pipCommit(id, playing: playing, sourceRect: sourceRect, damage: bufferDamage, from: c)
        case .pipClose:
            pipClose(from: c)
        case .screenCommit(let screen, let id, let bufferDamage):
            try screenCommit(screen, buffer: id, damage: bufferDamage, from: c)
        case .textInput(let t):
            textInput(t, from: c)
        case .presentMenu(let m):
            try presentMenu(m, from: c)
        case .presentAlert(let a):
            presentAlert(a, from: c)
        case .dismissPresented(let id):
            dismissPresented(id, from: c)
        case .idleInhibit(let on):
            setIdleInhibit(c.app, on)
        case .screenRelease(let screen):
            try screenRelease(screen, from: c)
        case .setIcon(let id):
            try setIcon(id, from: c)
        }
    }

    /// The blurred pictures a drag shows are this many times smaller than the images they are
    /// made from (4 points a pixel: a blur keeps nothing finer).
    var blurFactor: Int { 4 * desk.shell.profile.scale }

    /// `setIcon`: the app's icon, copied at the size the screen shows it. A buffer that is no
    /// icon (not ARGB, not square, outside 120…1024 pixels) is a protocol error; more than one
    /// a second is refused.
    private func setIcon(_ id: UInt32, from c: ClientSession) throws(ProtocolError) {
        let buffer = try c.buffers.buffer(id, for: "setIcon")
        let p = buffer.pixels
        guard p.format == .argb8888 else { throw ProtocolError(.badFormat, "setIcon buffer \(id) is not ARGB8888") }
        guard p.width == p.height, Wire.iconSides.contains(p.width) else {
            throw ProtocolError(.badDimensions, "setIcon buffer \(id) is \(p.width)x\(p.height); an icon is square, \(Wire.iconSides.lowerBound) to \(Wire.iconSides.upperBound) pixels a side")
        }
        if let last = c.icon?.setAt, now < last + Wire.iconInterval {
            refuse(c, request: "setIcon", reason: "rate", "an icon is taken at most once a second", releasing: buffer.uses == 0 ? id : nil)
            return
        }
        // All of a user's apps share one allowance (4 at once, then 1 a second), so apps that
        // connect, set an icon and leave cannot make the loop scale icons without end.
        guard admission.iconBudget.take(c.connection.credentials?.uid ?? getuid(), at: now) else {
            refuse(c, request: "setIcon", reason: "rate", "this user's apps set icons more than once a second", releasing: buffer.uses == 0 ? id : nil)
            return
        }
        let scale = desk.shell.profile.scale
        let side = ChromeStyle.iconPoints * scale
        let icon = p.icon(side: side, corner: ChromeStyle.iconCornerRadius * scale)
        admission.iconsTaken += 1
        c.setIcon(icon, ref: ImageRef(id: clients.newImageID(), width: side, height: side), at: now)
        if buffer.uses == 0 { c.send(.release(buffer: id)) }
    }

    /// Gives a buffer's content an identity for scenes, for as long as it is held.
    func hold(_ buffer: ClientBuffer) -> HeldImage {
        HeldImage(ref: ImageRef(id: clients.newImageID(), width: buffer.pixels.width, height: buffer.pixels.height), buffer: buffer)
    }

    func send(_ event: ServerEvent, to c: ClientSession) { c.send(event) }

    /// Declines a request the policy does not allow now: the app is told (`refused`), the
    /// buffer it sent with it (if any) is given back at once, nothing else changes, and the
    /// app lives on.
    func refuse(_ c: ClientSession, request: String, reason: String, _ message: String, releasing buffer: UInt32? = nil) {
        logger.debug("request refused", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "request": "\(request)", "reason": "\(reason)"])
        send(.refused(request: request, reason: reason, message: message), to: c)
        if let buffer { send(.release(buffer: buffer), to: c) }
    }
}
extension ClientMessage {
    /// The message with its damage as the compositor takes it: past
    /// `Region.commitRectangleLimit` rectangles, their bounding box (the message stays legal;
    /// per-glyph damage costs one rectangle, not hundreds).
    var boundingDamage: ClientMessage {
        switch self {
        case .commit(let b, let d) where d.count > Region.commitRectangleLimit: .commit(buffer: b, damage: Region.bounded(d))
        case .pipCommit(let b, let p, let r, let d) where d.count > Region.commitRectangleLimit: .pipCommit(buffer: b, playing: p, sourceRect: r, damage: Region.bounded(d))
        case .screenCommit(let s, let b, let d) where d.count > Region.commitRectangleLimit:
            .screenCommit(screen: s, buffer: b, damage: Region.bounded(d))
        default: self
        }
    }
}

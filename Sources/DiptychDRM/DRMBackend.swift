// SPDX-License-Identifier: MIT
// A KMS output: one connector, its CRTC, two dumb buffers the renderer draws into directly
// (each repainted by its age), page flips paced by the kernel's events, and the CRTC put back
// on exit. The card (`DRMCard`: the device, DRM master, hotplug events, whose flip each event
// is) may drive a second output (a second screen); the first output watches the card's
// descriptors for both.

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux
import Logging

/// An output on a KMS device. Confined to the compositor's thread.
public final class DRMBackend: OutputBackend {
    /// The card it is on.
    public let card: DRMCard
    public var device: any KMSDevice { card.device }
    public let connector: ConnectorInfo
    public let mode: DisplayMode
    public let crtc: UInt32
    public var size: Size { Size(width: mode.width, height: mode.height) }
    public var refreshMillihertz: Int { mode.refreshMillihertz }
    /// The main output's frames reach the screen at its flip events (a second output's flips
    /// only make it ready again).
    public var reportsPresentation: Bool { !isSecond }
    public private(set) var flipsCompleted = 0
    public private(set) var flipFailures = 0
    /// The primary plane when atomic modesetting is in use; nil for the legacy API.
    public private(set) var atomicPlane: UInt32?
    /// "atomic" or "legacy".
    public var api: String { atomicPlane == nil ? "legacy" : "atomic" }
    private let saved: CRTCState
    private let buffers: [ScanoutBuffer]
    /// The buffers shown in turn and their ages.
    private let chain: SwapChain
    private var flipPending = false
    private var nextToken: UInt64
    private var pendingToken: UInt64 = 0
    private let logger: Logger
    private var restored = false
    /// The cursor plane's buffer, made the first time a cursor is shown (nil until then, or
    /// when the driver has none).
    private var cursor: (handle: UInt32, image: PixelImage)?
    /// Whether this output is a second one on its card (the first watches the card).
    public let isSecond: Bool

    /// On a card of its own made from `device`: takes the first connected connector, its mode
    /// (preferred or `requested`) and a CRTC, and shows a black frame. With `first`, the output
    /// is a second one on that output's card: another connected connector and another CRTC.
    public convenience init(device: any KMSDevice, requestedMode: ModeRequest? = nil, logger: Logger, secondTo first: DRMBackend? = nil) throws {
        try self.init(card: first?.card ?? DRMCard(device: device, logger: logger), requestedMode: requestedMode, logger: logger)
    }

    /// The next output on `card`: a connected connector that no output of the card drives, its
    /// mode (preferred or `requested`) and a free CRTC, showing a black frame.
    public init(card: DRMCard, requestedMode: ModeRequest? = nil, logger: Logger) throws {
        self.card = card
        self.logger = logger
        let first = card.firstOutput
        isSecond = first != nil
        nextToken = card.tokenBase(forOutput: card.outputCount)
        let device = card.device
        func giveUp(_ why: String) -> KMSError {
            if first == nil { card.release() }
            return KMSError(why)
        }
        let res = try device.resources()
        let connectors = try res.connectors.filter { $0 != first?.connector.id }.map { try device.connector($0) }
        guard let c = connectors.first(where: { $0.connected && !$0.modes.isEmpty }) else {
            throw giveUp("no \(first == nil ? "" : "other ")connected connector with modes among \(connectors.count) connectors")
        }
        guard let m = KMSPlanner.chooseMode(c.modes, requested: requestedMode) else {
            let available = c.modes.map(\.description).joined(separator: ", ")
            throw giveUp("connector \(c.name) has no mode \(requestedMode.map { "\($0.width)x\($0.height)" } ?? ""); available: \(available)")
        }
        let encoders = try res.encoders.map { try device.encoder($0) }
        guard let (_, crtcID) = KMSPlanner.chooseCRTC(connector: c, encoders: encoders, crtcs: res.crtcs, taken: first.map { [$0.crtc] } ?? []) else {
            throw giveUp("no \(first == nil ? "" : "free ")CRTC can drive connector \(c.name)")
        }
        connector = c
        mode = m
        crtc = crtcID
        saved = try device.saveCRTC(crtcID)
        var made: [ScanoutBuffer] = []
        for _ in 0..<2 { made.append(try device.createScanoutBuffer(width: m.width, height: m.height)) }
        buffers = made
        for b in buffers { b.image.fill(Rect(x: 0, y: 0, width: m.width, height: m.height), color: RGB(red: 0, green: 0, blue: 0)) }
        chain = SwapChain(buffers: buffers.map(\.image), front: 0)
        // Atomic where the driver has it, checked with a test-only commit first; the legacy
        // API otherwise, or when the check fails.
        var plane: UInt32?
        if device.enableAtomic(), let p = try? device.primaryPlane(for: crtcID) {
            do {
                try device.atomicModeset(crtc: crtcID, connector: c.id, plane: p, framebuffer: buffers[0].framebuffer, modeIndex: m.index, size: Size(width: m.width, height: m.height), testOnly: true)
                try device.atomicModeset(crtc: crtcID, connector: c.id, plane: p, framebuffer: buffers[0].framebuffer, modeIndex: m.index, size: Size(width: m.width, height: m.height), testOnly: false)
                plane = p
            } catch {
                logger.warning("atomic modeset refused; falling back to the legacy API", metadata: ["error": "\(error)"])
            }
        }
        if plane == nil {
            try device.setCRTC(crtcID, framebuffer: buffers[0].framebuffer, connector: c.id, modeIndex: m.index)
        }
        atomicPlane = plane
        card.attach(self)
        logger.info(first == nil ? "modeset" : "modeset of the second screen", metadata: ["drm.connector": "\(c.name)", "drm.crtc": "\(crtcID)", "output.mode": "\(m)", "drm.api": "\(plane == nil ? "legacy" : "atomic")"])
    }

    deinit { restore() }

    /// The first output watches the card; a second one shares its descriptors.
    public var eventDescriptors: [Int32] { isSecond ? [] : card.descriptors }

    /// Page flips on the device's descriptor (each handed to the output that queued it: this
    /// one's become events); connector changes on the hotplug monitor's.
    public func dispatch(_ descriptor: Int32) -> [OutputEvent] {
        let (mine, hotplug) = card.dispatch(descriptor, for: self)
        var events = mine.map { OutputEvent.frameDone(nanoseconds: $0) }
        if hotplug { events += rescan() + [.connectorsChanged] }
        return events
    }

    /// A flip with `token` completed: whether it was this output's pending one.
    func flipCompleted(_ token: UInt64) -> Bool {
        guard token == pendingToken && flipPending else { return false }
        flipPending = false
        flipsCompleted += 1
        return true
    }

    /// Not every driver sends a uevent for every change: the connector is re-read each second.
    public var pollInterval: UInt64? { 1000 }
    public func poll() -> [OutputEvent] { rescan() }

    /// Whether the connector is connected (frames are dropped while it is not).
    public private(set) var connected = true

    /// Re-reads the connector after a hotplug event or on the poll. When it goes away frames
    /// are dropped and the compositor keeps running; when it comes back the mode is set again
    /// and the next frame is copied whole. Returns what changed.
    public func rescan() -> [OutputEvent] {
        guard !suspended else { return [] }
        let now = device.isConnected(connector.id)
        guard now != connected else { return [] }
        connected = now
        if !now {
            flipPending = false
            logger.warning(isSecond ? "second screen disconnected" : "output disconnected; dropping frames until it returns", metadata: ["drm.connector": "\(connector.name)"])
            return [.disconnected]
        }
        do {
            try setMode(framebuffer: buffers[chain.front].framebuffer)
            chain.invalidate()
            logger.warning(isSecond ? "second screen reconnected; mode restored" : "output reconnected; mode restored", metadata: ["drm.connector": "\(connector.name)", "output.mode": "\(mode)"])
            return [.reconnected]
        } catch {
            connected = false
            logger.warning("system error: cannot restore the mode after reconnection", metadata: ["error": "\(error)"])
            return []
        }
    }

    public func beginFrame() -> FrameTarget { chain.target() }
    /// The frame on screen (reading scanout memory is slow: for captures only).
    public var lastFrame: PixelImage { chain.buffers[chain.front] }
    public var readyForFrame: Bool { !flipPending && connected && !suspended && !poweredOff }

    /// The CRTC is off (the screen blanked by DPMS): no frames until it is on again.
    public private(set) var poweredOff = false

    public func setPowered(_ on: Bool) -> Bool {
        if on {
            guard poweredOff else { return true }
            poweredOff = false
            guard connected, !suspended else { return true }
            do {
                try setMode(framebuffer: buffers[chain.front].framebuffer)
                chain.invalidate()
                logger.info("output on again", metadata: ["drm.connector": "\(connector.name)"])
            } catch {
                logger.warning("system error: cannot turn the output on again", metadata: ["error": "\(error)"])
            }
            return true
        }
        guard !poweredOff else { return true }
        do {
            try device.powerOff(crtc: crtc, connector: connector.id, atomic: atomicPlane != nil)
        } catch {
            logger.warning("cannot turn the output off (DPMS); blanking shows black instead", metadata: ["error": "\(error)"])
            return false
        }
        poweredOff = true
        flipPending = false
        logger.info("output off (DPMS)", metadata: ["drm.connector": "\(connector.name)"])
        return true
    }

    /// The session is on another VT: no frames until `resume` (the seat manager holds master).
    public private(set) var suspended = false

    /// The session went to another VT: frames stop; a flip in flight is forgotten.
    public func suspend() {
        suspended = true
        flipPending = false
        if !isSecond { card.others(than: self).forEach { $0.suspend() } }
    }

    /// The session is back: the card is ours again, the mode is set again (the console may have
    /// changed the CRTC) and the next frame repaints everything.
    public func resume() -> [OutputEvent] {
        guard suspended else { return [] }
        suspended = false
        if !isSecond { card.others(than: self).forEach { _ = $0.resume() } }
        guard connected else { return [] }
        do {
            try device.becomeMaster()
            try setMode(framebuffer: buffers[chain.front].framebuffer)
            chain.invalidate()
            logger.info("session active again; mode restored", metadata: ["drm.connector": "\(connector.name)", "output.mode": "\(mode)"])
            return [.reconnected]
        } catch {
            logger.warning("system error: cannot restore the mode after a VT switch", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func setMode(framebuffer: UInt32) throws {
        if let plane = atomicPlane {
            try device.atomicModeset(crtc: crtc, connector: connector.id, plane: plane, framebuffer: framebuffer, modeIndex: mode.index, size: size, testOnly: false)
        } else {
            try device.setCRTC(crtc, framebuffer: framebuffer, connector: connector.id, modeIndex: mode.index)
        }
    }
    public var isConnected: Bool { connected }

    /// Queues a flip to the back buffer, which the renderer drew. A flip that fails is logged
    /// and the frame dropped (the server repaints its damage with the next one).
    public func present(damage: Region?) -> PresentResult {
        guard !flipPending, connected, !suspended, !poweredOff else {
            // Whatever was drawn into the back buffer was not shown.
            chain.presentFailed()
            return .dropped
        }
        let framebuffer = buffers[chain.back].framebuffer
        let token = nextToken
        nextToken += 1
        do {
            if let plane = atomicPlane {
                // FB_DAMAGE_CLIPS: what changed since the frame on screen.
                try device.atomicFlip(plane: plane, framebuffer: framebuffer, damage: damage?.rects, token: token)
            } else {
                try device.pageFlip(crtc, framebuffer: framebuffer, token: token)
            }
            chain.presented()
            flipPending = true
            pendingToken = token
            return .presented(time: MonotonicClock.milliseconds)
        } catch {
            flipFailures += 1
            chain.presentFailed()
            logger.warning("system error: page flip failed; retrying next frame", metadata: ["error": "\(error)"])
            return .dropped
        }
    }

    /// Puts back the CRTC as it was found, frees the buffers, drops master. Idempotent.
    /// The cursor plane: 64 × 64, the size every KMS driver with a cursor takes.
    public var cursorSize: Int { 64 }

    public func setCursor(_ image: PixelImage?, hotspot: (x: Int, y: Int)) -> Bool {
        guard let image else { return device.setCursor(crtc, handle: nil, size: cursorSize, hotspot: (0, 0)) }
        if cursor == nil { cursor = try? device.createCursorBuffer(size: cursorSize) }
        guard let c = cursor, image.width <= cursorSize, image.height <= cursorSize else { return false }
        c.image.clear()
        c.image.blit(Rect(x: 0, y: 0, width: image.width, height: image.height), from: image, sourceOffset: (0, 0))
        return device.setCursor(crtc, handle: c.handle, size: cursorSize, hotspot: hotspot)
    }

    public func moveCursor(x: Int, y: Int) { _ = device.moveCursor(crtc, x: x, y: y) }

    public func restore() {
        guard !restored else { return }
        restored = true
        do { try device.restoreCRTC(saved, connector: connector.id) } catch {
            logger.warning("system error: cannot restore the CRTC", metadata: ["error": "\(error)"])
        }
        for b in buffers { device.destroyScanoutBuffer(b) }
        if !isSecond { card.release() }
    }
}

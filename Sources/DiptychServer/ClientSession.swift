// SPDX-License-Identifier: MIT
// One connected app: its connection (`ClientConnection`), and its state as the compositor sees
// it: hello, configure serials, committed surfaces, snapshots, buffer objects and what uses
// them. A session that breaks the protocol is failed alone: it gets the error and is closed.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychWire
import Glibc

/// Identifies a client for its lifetime.
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public var description: String { "client-\(rawValue)" }
}

/// A buffer's content as a scene shows it: the buffer, and an identity for this commit (a
/// buffer committed again is new content for the damage tracker).
struct HeldImage {
    var ref: ImageRef
    var buffer: ClientBuffer
    /// As shown: opaque (see `ClientBuffer.opaquePixels`).
    var pixels: PixelImage { buffer.opaquePixels }
}

/// A committed buffer as the compositor holds it.
struct CommittedSurface {
    var image: HeldImage
    /// The configure serial the client had acked when it committed.
    var serial: UInt32
    var damage: [Rect]
}

/// Why a session ended.
enum SessionEnd: CustomStringConvertible {
    /// The client broke the protocol (it was told so).
    case violation(ProtocolError)
    /// The connection went away, or the compositor dropped it.
    case closed(String)

    var description: String {
        switch self {
        case .violation(let e): "protocol error \(e)"
        case .closed(let why): why
        }
    }
}

/// An app's round trips: the last `sync` serial it answered, and when (monotonic ns); one that
/// missed a round trip is no longer waited for (a scenario then costs one timeout, not one per
/// frame).
struct RoundTripState {
    var answered: UInt32 = 0
    var answeredAt: UInt64 = 0
    var unresponsive = false
}

/// An app's Picture in Picture: the buffer its window shows while one is open, whether it waits
/// for the frame that shows it, and whether the app may open one although it is not the
/// primary (it was the primary when it went to the background).
struct PiPSurfaceState {
    var surface: CommittedSurface?
    var frameDonePending = false
    var eligible = false
    /// The user closed the window while the app was not on screen: it may not open it again
    /// until it is on screen again.
    var closedByUser = false
    /// The video's rectangle in the app's pane (points), as its last `pipCommit` gave it.
    var sourceRect: Rect?
    /// The app's pane when it gave `sourceRect` (points of the screen).
    var sourcePane: Rect?
    /// The last picture, shown while the closed window shrinks back into the app: its buffer
    /// is held (not copied) and released once the window is gone.
    var departing: (ref: ImageRef, image: HeldImage)?
}

/// A connected client. Confined to the compositor's thread.
final class ClientSession {
    let id: ClientID
    /// Its socket, messages in and events out.
    let connection: ClientConnection

    /// The app's name from hello (nil before hello).
    var name: String? { didSet { updateContent() } }
    /// The name its placeholder shows.
    var displayName: String { content.name }
    var requiresFullScreen = false
    /// The role asked for at launch (apps that connect by themselves take the first free one).
    let launchRole: Role?
    /// When the shell took this app (after hello; the compositor's clock, ms); nil while it
    /// does not hold it.
    var admittedAt: UInt64?
    /// Whether the shell holds this app.
    var admitted: Bool { admittedAt != nil }
    /// Snapshot requests sent and not answered, by serial.
    var snapshotRequests: [UInt32: Pane] = [:]
    /// Snapshots received during the current drag.
    var snapshots: [HeldImage] = [] { didSet { updateContent() } }
    /// Its round trips: the last `sync` answered.
    var roundTrip = RoundTripState()
    /// The status bar style the app asked for (used while it is primary).
    /// The status-bar style the app asked for (nil: none).
    var statusBarStyle: StatusBarStyle?
    /// A label for messages: the launch name or the hello name.
    var label: String {
        didSet {
            connection.label = label
            updateContent()
        }
    }
    /// What the app has been told of its pane and what it acked.
    private var configures = ConfigureSerials()
    /// The last configure sent.
    var configure: Configure? { configures.newest }
    /// The serials sent and not yet acked (at most `ConfigureSerials.limit`).
    var unackedSerials: [UInt32] { configures.unacked }
    /// The newest serial acked.
    var ackedSerial: UInt32? { configures.acked }
    /// The live surface; its dominant colour (its placeholder's tile) is worked out once per
    /// commit, from an 8×8 grid of samples.
    var surface: CommittedSurface? {
        didSet {
            if surface?.image.ref.id != oldValue?.image.ref.id { tint = surface?.image.pixels.dominantColor() }
            updateContent()
        }
    }
    private(set) var tint: RGB?
    /// Its Picture in Picture window's surface, and whether it may open one.
    var pip = PiPSurfaceState()
    /// The app's buffer objects.
    var buffers = BufferTable()
    var frameDonePending = false
    var commits = 0

    /// A session on `socket`, watched by `loop`; `onClose` is told once, when it ends.
    init(id: ClientID, socket: consuming FileDescriptor, role: Role?, label: String, loop: Epoll, onClose: @escaping (ClientSession, SessionEnd) -> Void) {
        self.id = id
        launchRole = role
        self.label = label
        content = AppContent(live: nil, name: label)
        connection = ClientConnection(socket: socket, token: .client(id), label: label, loop: loop)
        connection.onClose = { [weak self] end in if let self { onClose(self, end) } }
        connection.onReplaceableWritten = { [unowned self] in configures.wrote() }
    }

    var app: AppID { AppID(id.rawValue) }
    var isOpen: Bool { connection.isOpen }
    var end: SessionEnd? { connection.end }
    var token: LoopToken { connection.token }

    /// Handles what the app sent (within the turn's bounds; see `ClientConnection.receive`).
    func receive(_ handle: (ClientMessage) throws(ProtocolError) -> Void) { connection.receive(helloSaid: name != nil, handle) }
    /// Queues an event for the app (written once per turn of the loop).
    func send(_ event: ServerEvent) { connection.send(event) }
    /// Tells the app what it did wrong, then closes the session.
    func fail(_ error: ProtocolError) { connection.fail(error) }
    func close(reason: String) { connection.close(reason: reason) }
    func flush() { connection.flush() }

    /// Whether the client has committed a buffer after acking its latest configure.
    var hasCommittedForConfigure: Bool {
        guard let c = configure, let s = surface else { return false }
        return s.serial == c.serial
    }

    /// What the app can show in a scene now (every frame reads it): kept up to date by what
    /// changes it (a commit, snapshots, its name).
    private(set) var content: AppContent

    private func updateContent() {
        content = AppContent(
            live: surface?.image.ref, snapshots: snapshots.map(\.ref), name: name ?? label, tint: tint, icon: icon?.ref,
            blurs: blurs.mapValues(\.ref))
    }

    /// The app's icon as the screen shows it (from `setIcon`), and when it was last set.
    private(set) var icon: (ref: ImageRef, pixels: PixelImage, setAt: UInt64)? { didSet { updateContent() } }

    /// Takes `pixels` (the icon at the size shown) as the app's icon, set at `now`.
    func setIcon(_ pixels: PixelImage, ref: ImageRef, at now: UInt64) {
        icon = (ref, pixels, now)
    }

    /// Blurred copies of the images a drag shows (its snapshots, and the live surface when
    /// the drag began), by the id of the image each was made from: each made once.
    private var blurs: [UInt64: (ref: ImageRef, pixels: PixelImage)] = [:] { didSet { updateContent() } }

    /// Makes the blurred copy of `image` (at 1/`factor` of its size; the live surface when
    /// nil, for a drag that begins) unless there is one. Returns whether it made one.
    func blur(_ image: HeldImage?, factor: Int, id: () -> UInt64) -> Bool {
        guard let image = image ?? surface?.image, blurs[image.ref.id] == nil else { return false }
        let b = image.pixels.blurred(factor: factor)
        blurs[image.ref.id] = (ImageRef(id: id(), width: b.width, height: b.height), b)
        return true
    }

    /// Bytes held in snapshots.
    var snapshotBytes: Int { snapshots.reduce(0) { $0 + $1.pixels.stride * $1.pixels.height } }

    /// The pixels of an image this session holds.
    func pixels(_ ref: ImageRef) -> PixelImage? {
        if let s = surface, s.image.ref.id == ref.id { return s.image.pixels }
        if let s = pip.surface, s.image.ref.id == ref.id { return s.image.pixels }
        if let d = pip.departing, d.ref.id == ref.id { return d.image.pixels }
        if let i = icon, i.ref.id == ref.id { return i.pixels }
        if let b = blurs.values.first(where: { $0.ref.id == ref.id }) { return b.pixels }
        return snapshots.first { $0.ref.id == ref.id }?.pixels
    }

    // MARK: - Buffers

    /// Registers the message's memfd as buffer `id`: validated against `layout` and mapped
    /// read-only, once. The descriptor is closed here; the mapping keeps the pixels.
    func createBuffer(_ id: UInt32, _ layout: BufferLayout) throws(ProtocolError) {
        let fd = try connection.takeDescriptor()
        try buffers.create(id) { () throws(ProtocolError) in try ClientBuffer.map(id: id, layout: layout, fd: fd) }
    }

    /// Destroys buffer `id`; one in use stays mapped until its last use ends.
    func destroyBuffer(_ id: UInt32) throws(ProtocolError) {
        _ = try buffers.destroy(id)
    }

    /// The compositor starts reading `buffer` (a commit shows it, or a drag shows it as a
    /// snapshot).
    func use(_ buffer: ClientBuffer) { buffer.uses += 1 }

    /// The compositor stopped reading `buffer` in one place: when no place reads it, the app
    /// gets `release` (or, if it destroyed it, the mapping goes).
    func endUse(_ buffer: ClientBuffer) {
        precondition(buffer.uses > 0)
        buffer.uses -= 1
        guard buffer.uses == 0 else { return }
        if buffer.destroyed {
            buffers.letGo(buffer)
        } else {
            send(.release(buffer: buffer.id))
        }
    }

    /// Shows `image` as the live surface; the buffer it replaces is released.
    func show(_ image: HeldImage, serial: UInt32, damage: [Rect]) {
        let old = surface
        surface = held(image, serial: serial, damage: damage)
        endUse(old)
    }

    /// `image` as a surface the compositor reads (its buffer in use from now on).
    private func held(_ image: HeldImage, serial: UInt32, damage: [Rect]) -> CommittedSurface {
        use(image.buffer)
        return CommittedSurface(image: image, serial: serial, damage: damage)
    }

    /// A surface no longer read (replaced or emptied; its slot already changed, so nothing
    /// holds the slot while the release is sent): its buffer's use ends.
    private func endUse(_ surface: CommittedSurface?) {
        if let buffer = surface?.image.buffer { endUse(buffer) }
    }

    /// Shows `image` in the Picture in Picture window; the buffer it replaces is released.
    func showPiP(_ image: HeldImage, damage: [Rect]) {
        let old = pip.surface
        pip.surface = held(image, serial: ackedSerial ?? 0, damage: damage)
        endUse(old)
    }

    /// The closed window shrinks into the app showing its last picture: the buffer stays held
    /// (no copy) under a new identity until `endDeparture`.
    func beginDeparture(as ref: ImageRef) {
        guard let s = pip.surface else { return }
        endDeparture()
        use(s.image.buffer)
        pip.departing = (ref, s.image)
    }

    /// The closed window finished shrinking: its picture's buffer is let go (released).
    func endDeparture() {
        guard let d = pip.departing else { return }
        pip.departing = nil
        endUse(d.image.buffer)
    }

    /// The Picture in Picture window closed: its buffer is released.
    func hidePiP() {
        let old = pip.surface
        pip.frameDonePending = false
        pip.surface = nil
        endUse(old)
    }

    /// The compositor's commit count at this app's last commit (either surface).
    var lastCommit: UInt64 = 0

    /// The buffer the app shows on the second screen, while it holds it and has committed.
    var screenSurface: CommittedSurface?

    /// Shows `image` on the second screen; the buffer it replaces is released.
    func showOnScreen(_ image: HeldImage, damage: [Rect]) {
        let old = screenSurface
        screenSurface = held(image, serial: ackedSerial ?? 0, damage: damage)
        endUse(old)
    }

    /// The second screen mirrors the main one again: the app's buffer there is released.
    func dropScreenSurface() {
        let old = screenSurface
        screenSurface = nil
        endUse(old)
    }

    /// Takes a snapshot buffer: kept for the drag showing it, or, when no drag is on any more,
    /// let go at once (released unless something else still reads it, such as the surface).
    func takeSnapshot(_ image: HeldImage, duringDrag: Bool) {
        use(image.buffer)
        if duringDrag {
            snapshots.append(image)
        } else {
            endUse(image.buffer)
        }
    }

    /// Lets go of the drag's snapshots (released to the app) and their blurred copies.
    func dropSnapshots() {
        let old = snapshots
        snapshots.removeAll()
        if !blurs.isEmpty { blurs.removeAll() }
        for s in old { endUse(s.buffer) }
    }

    // MARK: - Configures

    /// Queues `new` as the app's configure, with `sizeClassChanged` when a class changes. One
    /// queued and not yet written is replaced (as xdg-shell coalesces its configures): the app
    /// only ever reads the newest state, and nothing when that is what it was last told.
    func sendConfigure(_ new: Configure) {
        guard isOpen else { return }
        guard let events = configures.queue(new, withdrew: connection.withdrawReplaceable()) else { return }
        connection.sendReplaceable(events)
    }

    /// `ack`: acks `serial` and every configure sent before it (see `ConfigureSerials`).
    func acknowledge(_ serial: UInt32) throws(ProtocolError) {
        try configures.acknowledge(serial)
    }
}

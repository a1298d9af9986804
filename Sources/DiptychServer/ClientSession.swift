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

/// An app's Picture in Picture: the buffer its window shows while one is open, whether it waits
/// for the frame that shows it, and whether the app may open one although it is not the
/// primary (it was the primary when it went to the background).
struct PiPSurfaceState {
    fileprivate(set) var slot = SurfaceSlot()
    var surface: CommittedSurface? { slot.committed }
    fileprivate(set) var eligible = false
    /// The user closed the window while the app was not on screen: it may not open it again
    /// until it is on screen again.
    fileprivate(set) var closedByUser = false
    /// The video's rectangle in the app's pane (points), as its last `pipCommit` gave it.
    fileprivate(set) var sourceRect: Rect?
    /// The app's pane when it gave `sourceRect` (points of the screen).
    fileprivate(set) var sourcePane: Rect?
    /// The last picture, shown while the closed window shrinks back into the app: its buffer
    /// is held (not copied) and released once the window is gone.
    fileprivate(set) var departing: (ref: ImageRef, image: HeldImage)?
}

/// A connected client. Confined to the compositor's thread.
final class ClientSession {
    let id: ClientID
    /// Its socket, messages in and events out.
    let connection: ClientConnection

    /// The app's name from hello (nil before hello).
    private(set) var name: String? { didSet { updateContent() } }
    /// The name its placeholder shows.
    var displayName: String { content.name }
    private(set) var requiresFullScreen = false
    /// The role asked for at launch (apps that connect by themselves take the first free one).
    let launchRole: Role?
    /// When the shell took this app (after hello; the compositor's clock, ms); nil while it
    /// does not hold it.
    private(set) var admittedAt: UInt64?
    /// Replaced by another app in its role (`ctl set-app`): it leaves nothing behind.
    var replaced = false
    /// Whether the shell holds this app.
    var admitted: Bool { admittedAt != nil }
    /// Snapshot requests sent and not answered, by serial.
    private(set) var snapshotRequests: [UInt32: Pane] = [:]
    /// Snapshots received during the current drag.
    private(set) var snapshots: [HeldImage] = [] { didSet { updateContent() } }
    /// Its round trips: the last `sync` answered.
    private(set) var roundTrip = RoundTripState()
    /// The status-bar style the app asked for (used while it is primary; nil: none).
    private(set) var statusBarStyle: StatusBarStyle?
    /// A label for messages: the launch name or the hello name.
    private(set) var label: String {
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
    /// The pane's surface; its dominant colour (its placeholder's tile) is worked out once per
    /// commit, from an 8×8 grid of samples.
    private(set) var pane = SurfaceSlot()
    /// The live surface.
    var surface: CommittedSurface? { pane.committed }
    private(set) var tint: RGB?
    /// Its Picture in Picture window's surface, and whether it may open one.
    private(set) var pip = PiPSurfaceState()
    /// The second screen's surface, while it holds the screen and has committed to it.
    private(set) var screen = SurfaceSlot()
    var screenSurface: CommittedSurface? { screen.committed }
    /// The app's buffer objects.
    private(set) var buffers = BufferTable()
    /// Commits to its pane so far.
    private(set) var commits = 0
    /// Its text input, as taken (`TextInputGate`).
    private(set) var text = TextInputGate()
    /// The serial of the last input event sent (protocol 9: one counter a connection, from 1).
    private var inputSerial: UInt32 = 0
    /// When the user last acted on the app (a touch, pen or key event sent; 0: never).
    private(set) var lastUserInput: UInt64 = 0
    /// The serial of the last finger or pen lift sent.
    private var contactEnd: UInt32 = 0

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

    /// `hello`: the app's name and whether it requires the full screen. An app the compositor
    /// did not launch is labelled by the name it gave (escaped for logs).
    func hello(name: String, requiresFullScreen: Bool) {
        self.name = name
        self.requiresFullScreen = requiresFullScreen
        if launchRole == nil { label = name.escapedForLog }
    }

    /// The shell took the app at `now` (nil: it let go of it).
    func setAdmitted(at now: UInt64?) { admittedAt = now }

    /// A snapshot of `pane` was asked for with `serial`.
    func requestedSnapshot(_ serial: UInt32, of pane: Pane) { snapshotRequests[serial] = pane }

    /// The pane snapshot `serial` was asked for, taken from the requests (nil: never asked).
    func takeSnapshotRequest(_ serial: UInt32) -> Pane? { snapshotRequests.removeValue(forKey: serial) }

    /// The app answered the round trip `serial` at `time` (monotonic ns).
    func answeredRoundTrip(_ serial: UInt32, at time: UInt64) {
        roundTrip.answered = serial
        roundTrip.answeredAt = time
    }

    /// The app missed a round trip: it is no longer waited for.
    func missedRoundTrip() { roundTrip.unresponsive = true }

    /// The status-bar style the app asked for.
    func askedStatusBarStyle(_ style: StatusBarStyle) { statusBarStyle = style }

    /// Offers the app's `textInput` to its gate (see `TextInputGate.offer`).
    func offerTextInput(_ t: TextInputState, focused: Bool, pane: Size, now: UInt64) -> TextInputGate.Outcome {
        text.offer(t, focused: focused, pane: pane, now: now)
    }

    /// The app lost keyboard focus: its text input is off.
    func clearTextInput() { text.clear() }

    /// Handles what the app sent (within the turn's bounds; see `ClientConnection.receive`).
    func receive(_ handle: (ClientMessage) throws(ProtocolError) -> Void) { connection.receive(helloSaid: name != nil, handle) }
    /// Queues an event for the app (written once per turn of the loop). An input event is
    /// stamped with the connection's next serial (protocol 9; its serial is returned, else 0).
    @discardableResult
    func send(_ event: ServerEvent) -> UInt32 {
        if event.isUserInput { lastUserInput = MonotonicClock.nanoseconds }
        guard event.serial != nil, connection.version >= ServerEvent.serialSince, isOpen else {
            connection.send(event)
            return 0
        }
        if inputSerial == .max {
            inputSerial = 0
            text.serialsWrapped()
        }
        inputSerial += 1
        connection.send(event.stamped(inputSerial))
        switch event {
        case .touch(_, .up, _, _, _, _), .pen(.up, _, _, _, _, _, _, _, _, _): contactEnd = inputSerial
        default: break
        }
        return inputSerial
    }

    /// A tap ended in the app's pane (its last contact event was the tap's end): an enable may
    /// name it (protocol 9).
    func tapped() { if contactEnd != 0 { text.tapped(serial: contactEnd) } }
    /// The on-screen keyboard sent the app a key that moves or submits, as `serial`.
    func keyboardKeySent(serial: UInt32) { if serial != 0 { text.keyboardKeySent(serial: serial) } }
    /// The keyboard showed for the app's enable.
    func raisedKeyboard() { text.raisedKeyboard() }
    /// The user dismissed the app's keyboard: nothing sent so far raises it again.
    func keyboardDismissed() { text.keyboardDismissed(last: inputSerial) }
    /// The protocol version the app speaks.
    var version: UInt16 { connection.version }
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
            live: surface?.image.ref ?? standIn?.ref, snapshots: snapshots.map(\.ref), name: name ?? label, tint: tint, icon: icon?.ref,
            blurs: blurs.mapValues(\.ref))
    }

    /// The picture shown for the app until its first commit: the last frame of the app it
    /// replaced (`ctl set-app`), so the pane never shows a placeholder between the two.
    private var standIn: (ref: ImageRef, pixels: PixelImage)? { didSet { updateContent() } }

    /// Shows `pixels` (a copy the session keeps) until the app commits.
    func showStandIn(_ pixels: PixelImage, ref: ImageRef) { standIn = (ref, pixels) }

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
        if let s = screenSurface, s.image.ref.id == ref.id { return s.image.pixels }
        if let d = pip.departing, d.ref.id == ref.id { return d.image.pixels }
        if let i = icon, i.ref.id == ref.id { return i.pixels }
        if let s = standIn, s.ref.id == ref.id { return s.pixels }
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

    /// Lets the pages of buffers no place has read for a while go (`BufferTable.idleHold`).
    func dropIdlePages(now: UInt64) { buffers.dropIdlePages(now: now) }

    /// The app was told it entered the background (or came back): its buffers' pages go after
    /// a while.
    func lifecycleSent(_ event: LifecycleEvent) {
        switch event {
        case .didEnterBackground: buffers.background(true, now: MonotonicClock.milliseconds)
        case .willEnterForeground: buffers.background(false, now: MonotonicClock.milliseconds)
        default: break
        }
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

    /// Shows `image` as the live surface, committed at `stamp`; the buffer it replaces is
    /// released.
    func commit(_ image: HeldImage, serial: UInt32, damage: [Rect], stamp: UInt64) {
        endUse(pane.commit(held(image, serial: serial, damage: damage), stamp: stamp))
        commits += 1
        tint = image.pixels.dominantColor()
        standIn = nil
        updateContent()
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

    /// Shows `image` in the Picture in Picture window, committed at `stamp`, its video at
    /// `sourceRect` of the app's pane `sourcePane`; the buffer it replaces is released.
    func showPiP(_ image: HeldImage, damage: [Rect], stamp: UInt64, sourceRect: Rect?, sourcePane: Rect?) {
        pip.sourceRect = sourceRect
        pip.sourcePane = sourcePane
        endUse(pip.slot.commit(held(image, serial: ackedSerial ?? 0, damage: damage), stamp: stamp))
    }

    /// Whether the app may open Picture in Picture though it is not the primary (it was the
    /// primary when it went to the background).
    func setPiPEligible(_ eligible: Bool) { pip.eligible = eligible }

    /// The user closed the window while the app was off screen (it may not open one until it
    /// is on screen again), or the app came back on screen (`false`).
    func setPiPClosedByUser(_ closed: Bool) { pip.closedByUser = closed }

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
        endUse(pip.slot.clear())
    }

    /// Shows `image` on the second screen, committed at `stamp`; the buffer it replaces is
    /// released.
    func showOnScreen(_ image: HeldImage, damage: [Rect], stamp: UInt64) {
        endUse(screen.commit(held(image, serial: ackedSerial ?? 0, damage: damage), stamp: stamp))
    }

    /// The second screen mirrors the main one again: the app's buffer there is released.
    func dropScreenSurface() {
        endUse(screen.clear())
    }

    /// A frame of the main screen laid out at commit stamp `laidOut` was shown, showing the
    /// app's pane (`showsPane`) and its window (`showsPiP`): whether the app waited for it.
    func mainFrameShown(laidOut: UInt64, showsPane: Bool, showsPiP: Bool) -> Bool {
        let pane = showsPane && self.pane.frameDonePending ? self.pane.shown(laidOut: laidOut) : false
        let window = showsPiP && pip.slot.frameDonePending ? pip.slot.shown(laidOut: laidOut) : false
        return pane || window
    }

    /// A frame of the second screen laid out at `laidOut` was shown: whether the app waited.
    func screenFrameShown(laidOut: UInt64) -> Bool { screen.frameDonePending ? screen.shown(laidOut: laidOut) : false }

    /// Whether the app waits for a frame showing its pane's or its window's last commit.
    var waitsForMainFrame: Bool { pane.frameDonePending || pip.slot.frameDonePending }
    /// Whether it waits for one showing its pane's, or its window's.
    var waitsForPaneFrame: Bool { pane.frameDonePending }
    var waitsForPiPFrame: Bool { pip.slot.frameDonePending }

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

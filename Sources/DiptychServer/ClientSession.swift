// SPDX-License-Identifier: MIT
// One connected client: its socket, incoming message assembly and descriptors, its buffer
// objects and what uses them, the outgoing queue, and its protocol state. A session that breaks
// the protocol is failed alone: it gets the error and is closed.

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
    var pixels: PixelImage { buffer.pixels }
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

/// A connected client. Confined to the compositor's thread.
final class ClientSession {
    let id: ClientID
    let socket: SharedDescriptor
    let credentials: PeerCredentials?
    private var assembler = MessageAssembler()
    /// Descriptors received and not yet claimed by a message; owned here.
    private var queuedDescriptors: [Int32] = []
    private var outgoing: [UInt8] = []
    private var wantsWritable = false
    private let loop: Epoll
    /// Called once when the session closes, with the reason.
    private let onClose: (ClientSession, SessionEnd) -> Void
    /// Why the session ended; nil while it is open.
    private(set) var end: SessionEnd?
    /// The protocol error being reported: if telling the client fails, it is still the reason.
    private var violation: ProtocolError?

    /// The app's name from hello (nil before hello).
    var name: String? {
        didSet {
            displayName = TextLine(name ?? label)
            contentCache = nil
        }
    }
    /// The name its placeholder shows (every frame that shows one reads it).
    private(set) var displayName = TextLine("")
    var requiresFullScreen = false
    /// The role asked for at launch (apps that connect by themselves take the first free one).
    let launchRole: Role?
    /// Whether the shell holds this app (after hello, once admitted).
    var admitted = false
    /// When it was admitted (the compositor's clock, ms).
    var admittedAt: UInt64 = 0
    /// Snapshot requests sent and not answered, by serial.
    var snapshotRequests: [UInt32: Pane] = [:]
    /// Snapshots received during the current drag.
    var snapshots: [HeldImage] = [] {
        didSet {
            snapshotRefs = snapshots.map(\.ref)
            contentCache = nil
        }
    }
    /// What the scene needs of the snapshots, kept as they change (every frame reads it).
    private(set) var snapshotRefs: [ImageRef] = []
    /// The last `sync` serial answered, and when (monotonic ns).
    var syncAnswered: UInt32 = 0
    var syncAnsweredAt: UInt64 = 0
    /// Missed a round trip: no longer waited for (a scenario then costs one timeout, not one
    /// per frame).
    var unresponsive = false
    /// The status bar style the app asked for (used while it is primary).
    var statusBarStyle: StatusBarStyle = .dark
    /// A label for messages: the launch name or the hello name.
    var label: String { didSet { displayName = TextLine(name ?? label) } }
    /// The last configure sent, and the serials sent but not yet acked (the newest
    /// `unackedLimit`: an app that never acks holds no more).
    var configure: Configure?
    private(set) var unackedSerials: [UInt32] = []
    var ackedSerial: UInt32?
    /// The most unacked configure serials remembered; an ack of an older one is late, and
    /// ignored like any late ack.
    static let unackedLimit = 16
    /// The configure not yet written to the socket, with where it (and the size class change
    /// that goes with it) lies in `outgoing`: a newer one replaces it, so the superseded
    /// configure is never sent.
    private var unwrittenConfigure: (configure: Configure, range: Range<Int>)?
    /// The newest configure written to the socket: what the app has been told.
    private var writtenConfigure: Configure?
    /// Configures replaced before they were written, since the session began.
    private(set) var configuresSuperseded = 0
    var surface: CommittedSurface? { didSet { contentCache = nil } }
    /// The buffer shown in the app's Picture in Picture window, while one is open.
    var pipSurface: CommittedSurface?
    var pipFrameDonePending = false
    /// Whether the app may open Picture in Picture although it is not the primary: it was the
    /// primary when it went to the background.
    var pipEligible = false
    /// The app's buffer objects.
    var buffers = BufferTable()
    var frameDonePending = false
    var commits = 0
    /// When it connected (monotonic ms), for the hello deadline.
    var connectedAt: UInt64 = 0

    /// The most bytes queued for a client that does not read before it is dropped.
    static let outgoingLimit = 1 << 20
    /// The most descriptors held for messages not yet read.
    static let descriptorLimit = 28
    /// Reads of one client per loop turn.
    static let readsPerTurn = 4
    /// Messages of one client handled per loop turn, and the time they may take (ns; at least
    /// one is handled): the rest wait for the next turn, so frames keep their time whatever a
    /// message costs (a commit of 256 damage rectangles costs far more than a `syncDone`).
    static let messagesPerTurn = 256
    static let timePerTurn: UInt64 = 2_000_000
    /// Whether whole messages wait to be handled next turn (the socket is not read meanwhile).
    private(set) var hasBacklog = false
    /// The app closed its end; what it sent before is still being handled.
    private var peerClosed = false
    /// Messages handled since the session began.
    private(set) var messagesHandled = 0
    /// The most bytes a connection may send before its hello is read.
    static let preHelloBytes = 16 * 1024
    /// Called when descriptors were lost because the compositor's table is full.
    var onTableFull: () -> Void = {}
    /// Called when bytes are queued for a session that had none: the owner writes them
    /// (`flush`) before it next waits, so that all the events of one turn of the loop go in
    /// one write and wake the app once (as libwayland flushes its clients before polling).
    var onQueued: (ClientSession) -> Void = { _ in }
    /// Where the events written to the app are logged, one JSON line each (`sync` aside), as
    /// the demo apps log theirs: for an app that keeps no log of its own.
    var eventLog: String?
    /// Lines for `eventLog` of events queued and not yet written, each with where its event
    /// ends in `outgoing`: a line goes to the log once its event is written, so the log says
    /// what the app was sent (never a configure that was replaced before it went).
    private var unloggedLines: [(end: Int, line: String)] = []
    /// Events queued, and writes that sent the app bytes, since the session began.
    private(set) var eventsQueued = 0
    private(set) var writes = 0

    /// A session on `socket`, watched by `loop` under `token`.
    init(id: ClientID, socket: consuming FileDescriptor, role: Role?, label: String, loop: Epoll, onClose: @escaping (ClientSession, SessionEnd) -> Void) {
        self.id = id
        credentials = try? UnixSocket.peerCredentials(socket.rawValue)
        self.socket = SharedDescriptor(socket)
        launchRole = role
        self.label = label
        displayName = TextLine(label)
        self.loop = loop
        self.onClose = onClose
    }

    deinit {
        for fd in queuedDescriptors { Glibc.close(fd) }
    }

    var app: AppID { AppID(id.rawValue) }
    var isOpen: Bool { end == nil }
    var token: LoopToken { .client(id) }

    /// Whether the client has committed a buffer after acking its latest configure.
    var hasCommittedForConfigure: Bool {
        guard let c = configure, let s = surface else { return false }
        return s.serial == c.serial
    }

    /// What the app can show in a scene now (every frame reads it: kept until the surface,
    /// the snapshots or the name change).
    var content: AppContent {
        if let c = contentCache { return c }
        let c = AppContent(live: surface?.image.ref, snapshots: snapshotRefs, name: displayName, tint: tint)
        contentCache = c
        return c
    }
    private var contentCache: AppContent?

    /// The dominant colour of the live surface (its placeholder's tile), worked out once per
    /// commit from an 8×8 grid of samples.
    private var tintCache: (id: UInt64, color: RGB?)?
    var tint: RGB? {
        guard let s = surface else { return nil }
        if let c = tintCache, c.id == s.image.ref.id { return c.color }
        let color = s.image.pixels.dominantColor()
        tintCache = (s.image.ref.id, color)
        return color
    }

    /// Bytes held in snapshots.
    var snapshotBytes: Int { snapshots.reduce(0) { $0 + $1.pixels.stride * $1.pixels.height } }

    /// The pixels of an image this session holds.
    func pixels(_ ref: ImageRef) -> PixelImage? {
        if let s = surface, s.image.ref.id == ref.id { return s.image.pixels }
        if let s = pipSurface, s.image.ref.id == ref.id { return s.image.pixels }
        return snapshots.first { $0.ref.id == ref.id }?.pixels
    }

    // MARK: - Reading

    /// Handles up to `messagesPerTurn` messages (or `timePerTurn`), in order: those left from the last turn
    /// first, then what the socket has (at most `readsPerTurn` reads). What is left stays
    /// assembled for the next turn (`hasBacklog`), and the socket is not read again until it
    /// is handled, so a flooding app fills its own socket and waits: one client cannot keep
    /// the loop from the others, from frames or from signals, and nothing it sent is lost. A
    /// message that does not decode, or that `handle` refuses, fails the session. Before hello
    /// a connection may hold little: one descriptor, `preHelloBytes` of unread messages.
    func receive(_ handle: (ClientMessage) throws(ProtocolError) -> Void) {
        var budget = Self.messagesPerTurn
        let deadline = MonotonicClock.nanoseconds + Self.timePerTurn
        defer { hasBacklog = isOpen && assembler.hasWholeMessage }
        func handleAssembled() -> Bool {
            do {
                while isOpen, budget > 0, let (opcode, body) = try assembler.next() {
                    budget -= 1
                    // Out of time (at least one message a turn): the rest waits.
                    if MonotonicClock.nanoseconds > deadline { budget = 0 }
                    messagesHandled += 1
                    try handle(try ClientMessage.decode(opcode: opcode, body: body))
                }
            } catch {
                fail(error)
                return false
            }
            return isOpen && budget > 0
        }
        guard handleAssembled() else { return }
        if peerClosed {
            close(reason: "the app closed its connection")
            return
        }
        var reads = 0
        while isOpen && reads < Self.readsPerTurn {
            reads += 1
            let received: Received?
            do {
                received = try UnixSocket.receive(socket.rawValue, capacity: name == nil ? Self.preHelloBytes : 65536, nonBlocking: true)
            } catch {
                close(reason: "socket error: \(error)")
                return
            }
            guard let r = received else { return }
            if r.endOfStream {
                // What it sent before it went is still handled, over as many turns as it takes.
                if handleAssembled() {
                    close(reason: "the app closed its connection")
                } else if isOpen {
                    peerClosed = true
                }
                return
            }
            queuedDescriptors += r.descriptors
            if r.descriptorsTruncated && !Self.descriptorTableHasRoom() {
                // The kernel could not give us the descriptors because our table is full: not
                // this client's doing, so it is not blamed (its message will miss them).
                onTableFull()
            } else if r.descriptorsTruncated || queuedDescriptors.count > (name == nil ? 1 : Self.descriptorLimit) {
                fail(ProtocolError(.tooManyFDs, "more file descriptors were sent than messages use"))
                return
            }
            assembler.append(r.bytes)
            guard handleAssembled() else { return }
            if name == nil && assembler.pendingBytes > Self.preHelloBytes {
                fail(ProtocolError(.messageTooLong, "\(assembler.pendingBytes) bytes sent before hello; hello takes at most \(Self.preHelloBytes)"))
                return
            }
        }
    }

    /// Whether another descriptor could be opened now (a probe: dup of stdin, closed at once).
    static func descriptorTableHasRoom() -> Bool {
        let fd = fcntl(0, F_DUPFD_CLOEXEC, 0)
        if fd >= 0 {
            Glibc.close(fd)
            return true
        }
        return errno != EMFILE && errno != ENFILE
    }

    /// Takes the oldest queued descriptor, now owned by the caller.
    private func takeDescriptor() throws(ProtocolError) -> FileDescriptor {
        guard !queuedDescriptors.isEmpty else {
            throw ProtocolError(.missingFD, "the message needs a file descriptor and none was sent with it")
        }
        return FileDescriptor(taking: queuedDescriptors.removeFirst())
    }

    // MARK: - Buffers

    /// Registers the message's memfd as buffer `id`: validated against `layout` and mapped
    /// read-only, once. The descriptor is closed here; the mapping keeps the pixels.
    func createBuffer(_ id: UInt32, _ layout: BufferLayout) throws(ProtocolError) {
        let fd = try takeDescriptor()
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
        replace(&surface, with: image, serial: serial, damage: damage)
    }

    /// Puts `image` in a surface the compositor reads; the buffer it replaces is released.
    private func replace(_ slot: inout CommittedSurface?, with image: HeldImage, serial: UInt32, damage: [Rect]) {
        use(image.buffer)
        let old = slot?.image.buffer
        slot = CommittedSurface(image: image, serial: serial, damage: damage)
        if let old { endUse(old) }
    }

    /// Empties a surface: its buffer is released. Returns whether it held one.
    @discardableResult
    private func empty(_ slot: inout CommittedSurface?) -> Bool {
        guard let old = slot?.image.buffer else { return false }
        slot = nil
        endUse(old)
        return true
    }

    /// Shows `image` in the Picture in Picture window; the buffer it replaces is released.
    func showPiP(_ image: HeldImage, damage: [Rect]) {
        replace(&pipSurface, with: image, serial: ackedSerial ?? 0, damage: damage)
    }

    /// The Picture in Picture window closed: its buffer is released.
    func hidePiP() {
        pipFrameDonePending = false
        empty(&pipSurface)
    }

    /// The compositor's commit count at this app's last commit (either surface).
    var lastCommit: UInt64 = 0

    /// The buffer the app shows on the second screen, while it holds it and has committed.
    var screenSurface: CommittedSurface?

    /// Shows `image` on the second screen; the buffer it replaces is released.
    func showOnScreen(_ image: HeldImage, damage: [Rect]) {
        replace(&screenSurface, with: image, serial: ackedSerial ?? 0, damage: damage)
    }

    /// The second screen mirrors the main one again: the app's buffer there is released.
    func dropScreenSurface() { empty(&screenSurface) }

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

    /// Lets go of the drag's snapshots (released to the app).
    func dropSnapshots() {
        let old = snapshots
        snapshots.removeAll()
        for s in old { endUse(s.buffer) }
    }

    // MARK: - Configures

    /// Queues `new` as the app's configure, with `sizeClassChanged` when a class changes. One
    /// queued and not yet written is replaced (as xdg-shell coalesces its configures): the app
    /// only ever reads the newest state, and nothing when that is what it was last told.
    func sendConfigure(_ new: Configure) {
        guard isOpen else { return }
        if let old = unwrittenConfigure {
            outgoing.removeSubrange(old.range)
            unloggedLines.removeAll { old.range.lowerBound < $0.end && $0.end <= old.range.upperBound }
            for i in unloggedLines.indices where unloggedLines[i].end > old.range.upperBound { unloggedLines[i].end -= old.range.count }
            unackedSerials.removeAll { $0 == old.configure.serial }
            configuresSuperseded += 1
            unwrittenConfigure = nil
            configure = writtenConfigure
            if let told = writtenConfigure, told.pane == new.pane { return }
        }
        let told = configure
        configure = new
        unackedSerials.push(new.serial, keeping: Self.unackedLimit)
        let start = outgoing.count
        send(.configure(new))
        if let told, told.horizontalSizeClass != new.horizontalSizeClass || told.verticalSizeClass != new.verticalSizeClass {
            send(.sizeClassChanged(
                horizontal: new.horizontalSizeClass, vertical: new.verticalSizeClass,
                previousHorizontal: told.horizontalSizeClass, previousVertical: told.verticalSizeClass))
        }
        if isOpen, outgoing.count > start { unwrittenConfigure = (new, start..<outgoing.count) }
    }

    /// `ack`: acks `serial` and every configure sent before it. An ack of a serial acked
    /// already, or too old to be remembered, is late and changes nothing; one of a serial
    /// never sent (newer than the newest configure) is an error.
    func acknowledge(_ serial: UInt32) throws(ProtocolError) {
        if let i = unackedSerials.firstIndex(of: serial) {
            unackedSerials.removeFirst(i + 1)
            ackedSerial = serial
            return
        }
        // Serials only grow (wrapping): a serial at or before the newest configure's is late.
        if let newest = configure?.serial, Int32(bitPattern: newest &- serial) >= 0 { return }
        throw ProtocolError(.unknownSerial, "ack of serial \(serial), which was never sent in a configure")
    }

    // MARK: - Writing

    /// Queues an event, written with the others of this turn of the loop (`onQueued`); what
    /// the socket does not take goes when it is writable. A client that lets more than
    /// `outgoingLimit` bytes pile up is closed.
    func send(_ event: ServerEvent, version: UInt16 = Wire.version) {
        guard isOpen else { return }
        let wasEmpty = outgoing.isEmpty
        outgoing += event.encoded(version: version)
        eventsQueued += 1
        if eventLog != nil, event.opcode != ServerEvent.sync(serial: 0, time: 0).opcode {
            let fields = [("app", JSONValue.string(label)), ("event", .string(event.name))] + event.jsonFields
            unloggedLines.append((outgoing.count, JSONValue.object(fields).serialized))
        }
        if outgoing.count > Self.outgoingLimit {
            close(reason: "the app stopped reading its socket (\(outgoing.count) bytes queued)")
            return
        }
        if wasEmpty { onQueued(self) }
    }

    /// Writes queued bytes until the socket would block.
    func flush() {
        while isOpen && !outgoing.isEmpty {
            let n: Int
            do { n = try UnixSocket.send(socket.rawValue, outgoing[...], nonBlocking: true) } catch {
                close(reason: "socket error: \(error)")
                return
            }
            if n == 0 { break }
            writes += 1
            outgoing.removeFirst(n)
            logWritten(n)
            if let u = unwrittenConfigure {
                // Begun to be written: it stays; else it moves down with the rest.
                if n > u.range.lowerBound {
                    writtenConfigure = u.configure
                    unwrittenConfigure = nil
                } else {
                    unwrittenConfigure = (u.configure, (u.range.lowerBound - n)..<(u.range.upperBound - n))
                }
            }
        }
        let wants = isOpen && !outgoing.isEmpty
        if wants != wantsWritable {
            wantsWritable = wants
            try? loop.modify(socket.rawValue, token: token.rawValue, writable: wants)
        }
    }

    /// Logs the lines of the events the last `n` bytes written completed.
    private func logWritten(_ n: Int) {
        guard let eventLog, !unloggedLines.isEmpty else { return }
        var done = 0
        for (end, line) in unloggedLines {
            if end > n { break }
            done += 1
            do { try Files.appendLine(eventLog, line) } catch {
                self.eventLog = nil
                break
            }
        }
        unloggedLines.removeFirst(min(done, unloggedLines.count))
        for i in unloggedLines.indices { unloggedLines[i].end -= n }
    }

    // MARK: - Ending

    /// Tells the client what it did wrong, then closes the session.
    func fail(_ error: ProtocolError) {
        guard isOpen else { return }
        violation = error
        // A client refused for its version is told in the version it spoke (the error event's
        // layout is the same in every version), so it can read why.
        send(.error(error), version: error.code == .unsupportedVersion ? assembler.peerVersion ?? Wire.version : Wire.version)
        // Written now: the socket closes next.
        flush()
        finish(.violation(error))
    }

    /// Closes the session once: stops watching the socket and tells the owner.
    func close(reason: String) { finish(violation.map(SessionEnd.violation) ?? .closed(reason)) }

    private func finish(_ why: SessionEnd) {
        guard isOpen else { return }
        end = why
        loop.remove(socket.rawValue)
        onClose(self, why)
    }
}

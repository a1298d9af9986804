// SPDX-License-Identifier: MIT
// A client's connection: its socket, the messages it sends assembled and handled within the
// per-turn bounds, the descriptors that come with them, the events queued for it (written once
// per turn of the loop, an unwritten one replaceable by a newer one), its event log, and its end.
// A connection that breaks the protocol is told so and closed, alone.

import DiptychCore
import DiptychLinux
import DiptychWire
import Glibc

/// The socket side of a client. Confined to the compositor's thread.
final class ClientConnection {
    let socket: SharedDescriptor
    let credentials: PeerCredentials?
    let token: LoopToken
    /// A label for its log lines (the app's).
    var label: String
    /// Reads messages of any version the compositor serves; the app's first message pins its own.
    private var assembler = MessageAssembler(versions: Wire.servedVersions)
    /// The protocol version the app speaks (known from its first message): events are framed
    /// in it, and an event its version lacks is not sent.
    var version: UInt16 { assembler.version ?? Wire.version }
    /// Descriptors received and not yet claimed by a message; owned here.
    private var queuedDescriptors: [Int32] = []
    /// The events queued and not yet written.
    private var outgoing = OutgoingQueue()
    private var wantsWritable = false
    private let loop: Epoll
    /// Called once when the connection closes, with the reason.
    var onClose: (SessionEnd) -> Void = { _ in }
    /// Why it ended; nil while it is open.
    private(set) var end: SessionEnd?
    /// The protocol error being reported: if telling the client fails, it is still the reason.
    private var violation: ProtocolError?

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
    /// The most bytes a connection may send before its hello is read.
    static let preHelloBytes = 16 * 1024
    /// Whether whole messages wait to be handled next turn (the socket is not read meanwhile).
    private(set) var hasBacklog = false
    /// The app closed its end; what it sent before is still being handled.
    private var peerClosed = false
    /// Messages handled since it opened.
    private(set) var messagesHandled = 0
    /// Called when descriptors were lost because the compositor's table is full.
    var onTableFull: () -> Void = {}
    /// Where the events written to the app are logged, one JSON line each (`sync` aside), as
    /// the demo apps log theirs: for an app that keeps no log of its own.
    var eventLog: String? {
        get { outgoing.eventLog }
        set { outgoing.eventLog = newValue }
    }
    /// Called when the replaceable events begin to be written (they can no longer be replaced).
    var onReplaceableWritten: () -> Void = {}
    /// Events queued, and writes that sent the app bytes, since it opened.
    var eventsQueued: Int { outgoing.eventsQueued }
    var writes: Int { outgoing.writes }
    /// Events wait to be written, and the socket is not known to be full (then the loop writes
    /// them when it becomes writable). The owner writes them (`flush`) before it next waits, so
    /// that all the events of one turn of the loop go in one write and wake the app once (as
    /// libwayland flushes its clients before polling).
    var needsFlush: Bool { !outgoing.isEmpty && !wantsWritable && isOpen }

    init(socket: consuming FileDescriptor, token: LoopToken, label: String, loop: Epoll) {
        credentials = try? UnixSocket.peerCredentials(socket.rawValue)
        self.socket = SharedDescriptor(socket)
        self.token = token
        self.label = label
        self.loop = loop
    }

    deinit {
        for fd in queuedDescriptors { FileDescriptor.closeForeign(fd) }
    }

    var isOpen: Bool { end == nil }

    // MARK: - Reading

    /// Handles up to `messagesPerTurn` messages (or `timePerTurn`), in order: those left from the last turn
    /// first, then what the socket has (at most `readsPerTurn` reads). What is left stays
    /// assembled for the next turn (`hasBacklog`), and the socket is not read again until it
    /// is handled, so a flooding app fills its own socket and waits: one client cannot keep
    /// the loop from the others, from frames or from signals, and nothing it sent is lost. A
    /// message that does not decode, or that `handle` refuses, fails the session. Before hello
    /// a connection may hold little: one descriptor, `preHelloBytes` of unread messages.
    func receive(helloSaid: Bool, _ handle: (ClientMessage) throws(ProtocolError) -> Void) {
        var budget = Self.messagesPerTurn
        let deadline = MonotonicClock.nanoseconds + Self.timePerTurn
        defer { hasBacklog = isOpen && assembler.hasWholeMessage }
        func handleAssembled() -> Bool {
            do throws(ProtocolError) {
                while isOpen, budget > 0, let (opcode, body) = try assembler.next() {
                    budget -= 1
                    // Out of time (at least one message a turn): the rest waits.
                    if MonotonicClock.nanoseconds > deadline { budget = 0 }
                    messagesHandled += 1
                    let message = try ClientMessage.decode(opcode: opcode, body: body, version: version)
                    guard message.since <= version else {
                        throw ProtocolError(.unsupportedVersion, "\(message.name) is a request of protocol version \(message.since); this app speaks version \(version)")
                    }
                    try handle(message)
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
                received = try UnixSocket.receive(socket.rawValue, capacity: helloSaid ? 65536 : Self.preHelloBytes, nonBlocking: true)
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
            } else if r.descriptorsTruncated || queuedDescriptors.count > (helloSaid ? Self.descriptorLimit : 1) {
                fail(ProtocolError(.tooManyFDs, "more file descriptors were sent than messages use"))
                return
            }
            assembler.append(r.bytes)
            guard handleAssembled() else { return }
            if !helloSaid && assembler.pendingBytes > Self.preHelloBytes {
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
    func takeDescriptor() throws(ProtocolError) -> FileDescriptor {
        guard !queuedDescriptors.isEmpty else {
            throw ProtocolError(.missingFD, "the message needs a file descriptor and none was sent with it")
        }
        return FileDescriptor(foreign: queuedDescriptors.removeFirst())
    }


    // MARK: - Writing

    /// Queues an event, written with the others of this turn of the loop (`needsFlush`); what
    /// the socket does not take goes when it is writable. A client that lets more than
    /// `outgoingLimit` bytes pile up is closed.
    func send(_ event: ServerEvent) {
        guard event.since <= version else { return }
        // An input event's layout is its version's: none goes before the app said which (it
        // has no pane before its hello).
        guard event.serial == nil || assembler.version != nil else { return }
        queue(event, version: version)
    }

    /// Queues `event` framed with `version` (the app's; the refusal of an unsupported version
    /// in the version the app spoke, whatever events that version has).
    private func queue(_ event: ServerEvent, version: UInt16) {
        guard isOpen else { return }
        outgoing.append(event, version: version, label: label)
        if outgoing.count > Self.outgoingLimit {
            close(reason: "the app stopped reading its socket (\(outgoing.count) bytes queued)")
        }
    }

    /// Queues `events` as the replaceable ones: until they begin to be written,
    /// `withdrawReplaceable` takes them back (as xdg-shell coalesces configures).
    func sendReplaceable(_ events: [ServerEvent]) {
        let start = outgoing.count
        for e in events { send(e) }
        if isOpen { outgoing.markReplaceable(from: start) }
    }

    /// Takes back the replaceable events if none of their bytes was written; returns whether
    /// it did (they are then never sent, nor logged).
    func withdrawReplaceable() -> Bool { outgoing.withdrawReplaceable() }

    /// Writes queued bytes until the socket would block.
    func flush() {
        guard isOpen else { return }
        do {
            if try outgoing.write(to: socket.rawValue) { onReplaceableWritten() }
        } catch {
            close(reason: "socket error: \(error)")
            return
        }
        let wants = isOpen && !outgoing.isEmpty
        if wants != wantsWritable {
            wantsWritable = wants
            try? loop.modify(socket.rawValue, token: token.rawValue, writable: wants)
        }
    }

    // MARK: - Ending

    /// Tells the client what it did wrong, then closes the connection.
    func fail(_ error: ProtocolError) {
        guard isOpen else { return }
        violation = error
        // A client refused for its version is told in the version it spoke (the error event's
        // layout is the same in every version), so it can read why.
        queue(.error(error), version: error.code == .unsupportedVersion ? assembler.peerVersion ?? Wire.version : version)
        // Written now: the socket closes next.
        flush()
        finish(.violation(error))
    }

    /// Closes the connection once: stops watching the socket and tells the owner.
    func close(reason: String) { finish(violation.map(SessionEnd.violation) ?? .closed(reason)) }

    private func finish(_ why: SessionEnd) {
        guard isOpen else { return }
        end = why
        loop.remove(socket.rawValue)
        onClose(why)
    }
}

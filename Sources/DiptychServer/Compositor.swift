// SPDX-License-Identifier: MIT
// The compositor: the event loop, client connections, the layout, and frames on the headless
// output. Mechanism only; layout policy comes from DiptychCore's LayoutEngine.

import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychWire
import Logging

/// What the compositor starts with.
public struct CompositorConfiguration: Sendable {
    public var profile: DeviceProfile
    public var orientation: Orientation
    public var arrangement: Arrangement
    /// Listen on a socket for clients that connect themselves (launched apps always get their
    /// own inherited socket). With `socketPath` nil the first free default name is used.
    public var listen: Bool
    public var socketPath: String?

    public init(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement, listen: Bool = true, socketPath: String? = nil) {
        self.profile = profile
        self.orientation = orientation
        self.arrangement = arrangement
        self.listen = listen
        self.socketPath = socketPath
    }
}

/// A runtime failure that is not the user's input: exit status 1.
public struct CompositorError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The compositor. Single-threaded: create it and call everything on one thread.
public final class Compositor {
    public let configuration: CompositorConfiguration
    public private(set) var layout: Layout
    /// Where frames go. Without emulation its size is the logical screen in pixels.
    public let backend: any OutputBackend
    /// The last frame presented.
    public var output: PixelImage { backend.lastFrame }
    public let logger: Logger
    /// The socket path clients can connect to, if listening.
    public var socketPath: String? { socketLock?.path }

    private let epoll: Epoll
    private let socketLock: SocketLock?
    private let listener: SharedDescriptor?
    private var clients: [ClientID: ClientConnection] = [:]
    private var roles: [Role: ClientID] = [:]
    private var nextClientID: UInt64 = 100
    private var nextSerial: UInt32 = 1
    private var children: [(role: Role, label: String, process: ChildProcess)] = []
    private let renderer = PixmanRenderer()
    /// Why a role's client went away, for error messages.
    public private(set) var disconnections: [Role: String] = [:]
    /// Every protocol error sent, in order (client label and error), for logs and tests.
    public private(set) var protocolErrors: [(client: String, error: ProtocolError)] = []
    /// Frames rendered so far.
    public private(set) var frameCount = 0

    private static let listenerToken: UInt64 = 1
    private var watchers: [UInt64: () -> Void] = [:]
    private var nextWatchToken: UInt64 = 2

    /// A compositor on `backend`, or on a new headless backend of the logical screen's size.
    public init(configuration: CompositorConfiguration, backend: (any OutputBackend)? = nil, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        layout = try LayoutEngine.layout(profile: configuration.profile, orientation: configuration.orientation, arrangement: configuration.arrangement)
        let px = configuration.profile.pixelSize(configuration.orientation)
        self.backend = backend ?? HeadlessBackend(size: px)
        epoll = try Epoll()
        ignoreBrokenPipes()
        if configuration.listen {
            let lock: SocketLock
            if let path = configuration.socketPath {
                guard let l = try SocketLock.claim(path) else { throw CompositorError("socket \(path) belongs to a running compositor") }
                lock = l
            } else {
                lock = try SocketLock.claimDefault()
            }
            let fd = try UnixSocket.listen(path: lock.path)
            try epoll.add(fd.rawValue, token: Compositor.listenerToken)
            listener = SharedDescriptor(fd)
            socketLock = lock
        } else {
            listener = nil
            socketLock = nil
        }
    }

    deinit { shutdown() }

    // MARK: - Clients

    /// Starts an app as a separate process holding one end of a socket pair as fd 3, already
    /// bound to `role`.
    public func launch(_ arguments: [String], role: Role, label: String) throws {
        let (ours, theirs) = try UnixSocket.pair()
        let local = FileDescriptor(taking: ours), remote = FileDescriptor(taking: theirs)
        let id = ClientID(rawValue: nextClientID)
        nextClientID += 1
        var environment = [RuntimeDirectory.inheritedSocketVariable: "3"]
        if let p = socketPath { environment[RuntimeDirectory.socketVariable] = p }
        let process = try ChildProcess(arguments: arguments, environment: environment, inheritedSocket: remote.rawValue)
        remote.close()
        try local.setNonBlocking()
        let connection = ClientConnection(id: id, socket: local, role: role, label: label)
        try epoll.add(connection.socket.rawValue, token: id.rawValue)
        clients[id] = connection
        roles[role] = id
        children.append((role, label, process))
        logger.debug("launched app", metadata: ["client.id": "\(id)", "client.pid": "\(process.pid)", "client.role": "\(role.rawValue)", "client.app": "\(label)"])
    }

    private func accept() {
        guard let listener else { return }
        while true {
            let fd: FileDescriptor?
            do {
                fd = try UnixSocket.accept(listener.rawValue)
            } catch {
                logger.warning("system error: accept failed", metadata: ["error": "\(error)"])
                return
            }
            guard let fd else { return }
            let id = ClientID(rawValue: nextClientID)
            nextClientID += 1
            let connection = ClientConnection(id: id, socket: fd, role: nil, label: "\(id)")
            do {
                try epoll.add(connection.socket.rawValue, token: id.rawValue)
            } catch {
                logger.warning("system error: cannot watch a client", metadata: ["error": "\(error)"])
                continue
            }
            clients[id] = connection
            logger.debug("client connected", metadata: ["client.id": "\(id)", "client.pid": "\(connection.credentials?.pid ?? -1)"])
        }
    }

    /// The client holding `role`, if connected.
    func client(_ role: Role) -> ClientConnection? { roles[role].flatMap { clients[$0] } }

    /// Whether the app in `role` has committed a buffer for its latest configure.
    public func hasCommittedForConfigure(_ role: Role) -> Bool { client(role)?.hasCommittedForConfigure ?? false }

    /// Whether a client holds `role`.
    public func isConnected(_ role: Role) -> Bool { client(role) != nil }

    /// The label of the app in `role`.
    public func label(_ role: Role) -> String? { client(role)?.label ?? children.first { $0.role == role }?.label }

    /// Runs the loop until every shown app has committed a buffer for its configure.
    ///
    /// - Throws: `CompositorError` naming the app that went away first, or every app that had
    ///   not drawn when `timeoutMilliseconds` ran out.
    public func waitUntilShownAppsHaveDrawn(timeoutMilliseconds: Int) throws {
        let shown = layout.panes.map(\.role)
        var failure: String?
        let ok = try run(timeoutMilliseconds: timeoutMilliseconds) {
            for role in shown where !isConnected(role) {
                // A role is lost once its client disconnected or its launched process exited;
                // until then an app that connects by itself may still arrive.
                guard let why = disconnections[role] ?? exitStatus(role).map({ "it exited with status \($0)" }) else { continue }
                failure = "app '\(label(role) ?? role.rawValue)' (\(role.rawValue)) went away before drawing: \(why)"
                return true
            }
            return shown.allSatisfy { hasCommittedForConfigure($0) }
        }
        if let failure { throw CompositorError(failure) }
        if !ok {
            let late = shown.filter { !hasCommittedForConfigure($0) }
            let names = late.map { "'\(label($0) ?? $0.rawValue)' (\($0.rawValue))" }.joined(separator: " and ")
            let seconds = Double(timeoutMilliseconds) / 1000
            throw CompositorError("app \(names) did not commit a buffer for its configure within \(seconds) s")
        }
    }

    // MARK: - Event loop

    /// Runs the loop until `done()` is true or `timeoutMilliseconds` pass. `done()` is checked
    /// after every batch of events and at least every 10 ms, so it may also watch things that
    /// raise no event here (a child process exiting). Returns whether `done()` became true.
    @discardableResult
    public func run(timeoutMilliseconds: Int, until done: () -> Bool) throws -> Bool {
        let deadline = MonotonicClock.milliseconds + UInt64(timeoutMilliseconds)
        while !done() {
            let now = MonotonicClock.milliseconds
            if now >= deadline { return false }
            try dispatch(timeoutMilliseconds: min(10, Int(deadline - now)))
        }
        return true
    }

    /// Waits up to `timeoutMilliseconds` for events and handles them.
    public func dispatch(timeoutMilliseconds: Int?) throws {
        for (token, readiness) in try epoll.wait(timeoutMilliseconds: timeoutMilliseconds) {
            if token == Compositor.listenerToken {
                accept()
                continue
            }
            if let handler = watchers[token] {
                handler()
                continue
            }
            guard let c = clients[ClientID(rawValue: token)] else { continue }
            if readiness.contains(.writable) { flush(c) }
            if readiness.contains(.readable) || readiness.contains(.hangUp) { read(c) }
        }
    }

    private func read(_ c: ClientConnection) {
        while clients[c.id] != nil {
            let received: Received?
            do {
                received = try UnixSocket.receive(c.socket.rawValue, nonBlocking: true)
            } catch {
                disconnect(c, reason: "socket error: \(error)")
                return
            }
            guard let r = received else { return }
            if r.endOfStream {
                disconnect(c, reason: "the app closed its connection")
                return
            }
            c.queuedDescriptors += r.descriptors
            if r.descriptorsTruncated || c.queuedDescriptors.count > 28 {
                fail(c, ProtocolError(.tooManyFDs, "more file descriptors were sent than messages use"))
                return
            }
            c.assembler.append(r.bytes)
            do {
                while clients[c.id] != nil, let (opcode, body) = try c.assembler.next() {
                    try handle(try ClientMessage.decode(opcode: opcode, body: body), from: c)
                }
            } catch {
                fail(c, error)
                return
            }
        }
    }

    /// Calls `handler` on the loop whenever `descriptor` (owned by the caller, open for the
    /// compositor's lifetime) is readable.
    public func watch(_ descriptor: Int32, handler: @escaping () -> Void) {
        let token = nextWatchToken
        nextWatchToken += 1
        do {
            try epoll.add(descriptor, token: token)
            watchers[token] = handler
        } catch {
            logger.error("system error: cannot watch a descriptor", metadata: ["error": "\(error)"])
        }
    }

    /// Whether an app committed since the last frame.
    public var needsRepaint: Bool { layout.panes.contains { client($0.role)?.frameDonePending ?? false } }

    // MARK: - Requests

    private func handle(_ message: ClientMessage, from c: ClientConnection) throws(ProtocolError) {
        switch message {
        case .hello(let name, let requiresFullScreen):
            guard c.name == nil else { throw ProtocolError(.badState, "hello was already sent") }
            c.name = name
            c.requiresFullScreen = requiresFullScreen
            if c.role == nil {
                guard let free = Role.allCases.first(where: { roles[$0] == nil }) else {
                    throw ProtocolError(.badState, "the compositor already shows two apps")
                }
                c.role = free
                roles[free] = c.id
                c.label = name
            }
            logger.debug("hello", metadata: ["client.id": "\(c.id)", "client.name": "\(name)", "client.role": "\(c.role!.rawValue)"])
            sendInitialState(c)
        case .ack(let serial):
            guard c.name != nil else { throw ProtocolError(.badState, "ack before hello") }
            guard let i = c.unackedSerials.firstIndex(of: serial) else {
                throw ProtocolError(.unknownSerial, "ack of serial \(serial), which is not an unacknowledged configure")
            }
            c.unackedSerials.removeFirst(i + 1)
            c.ackedSerial = serial
        case .commit(let layout, let damage):
            guard c.name != nil, let acked = c.ackedSerial else {
                throw ProtocolError(.badState, "commit before acking a configure")
            }
            let image = try map(layout, from: c)
            c.surface = CommittedSurface(image: image, serial: acked, damage: damage)
            c.frameDonePending = true
            if c.configure?.serial == acked && !c.isActive {
                c.isActive = true
                send(.lifecycle(.didBecomeActive), to: c)
            }
        case .snapshot(let serial, _):
            _ = try c.takeDescriptor()
            throw ProtocolError(.unknownSerial, "snapshot for serial \(serial), which was never requested")
        }
    }

    /// Validates a committed buffer against its memfd and maps it read-only.
    private func map(_ layout: BufferLayout, from c: ClientConnection) throws(ProtocolError) -> PixelImage {
        let fd = try c.takeDescriptor()
        let size: Int
        do { size = try fd.size() } catch { throw ProtocolError(.malformedMessage, "the buffer descriptor cannot be inspected: \(error)") }
        try layout.validate(fileSize: size, sealedAgainstShrinking: fd.seals().contains(.shrink))
        let mapping: MemoryMapping
        do { mapping = try MemoryMapping(fd: fd, length: size, writable: false) } catch {
            throw ProtocolError(.malformedMessage, "the buffer cannot be mapped: \(error)")
        }
        return PixelImage(
            mapping: mapping, offset: Int(layout.offset), width: Int(layout.width), height: Int(layout.height),
            stride: Int(layout.stride), format: layout.format == .argb8888 ? .argb8888 : .xrgb8888)
    }

    /// After hello: a configure if the app's pane is shown, else it is in the background.
    private func sendInitialState(_ c: ClientConnection) {
        guard let role = c.role else { return }
        if let pane = layout.pane(role) {
            sendConfigure(c, pane: pane)
        } else {
            c.isInBackground = true
            send(.lifecycle(.didEnterBackground), to: c)
        }
    }

    private func sendConfigure(_ c: ClientConnection, pane: Pane) {
        let configure = Configure(serial: nextSerial, pane: pane, orientation: layout.orientation, arrangement: layout.arrangement)
        nextSerial &+= 1
        c.configure = configure
        c.unackedSerials.append(configure.serial)
        send(.configure(configure), to: c)
    }

    // MARK: - Sending and disconnecting

    func send(_ event: ServerEvent, to c: ClientConnection) {
        guard clients[c.id] != nil else { return }
        c.outgoing += event.encoded()
        if c.outgoing.count > ClientConnection.outgoingLimit {
            disconnect(c, reason: "the app stopped reading its socket (\(c.outgoing.count) bytes queued)")
            return
        }
        flush(c)
    }

    private func flush(_ c: ClientConnection) {
        while !c.outgoing.isEmpty {
            let n: Int
            do { n = try UnixSocket.send(c.socket.rawValue, c.outgoing[...], nonBlocking: true) } catch {
                disconnect(c, reason: "socket error: \(error)")
                return
            }
            if n == 0 { break }
            c.outgoing.removeFirst(n)
        }
        let wants = !c.outgoing.isEmpty
        if wants != c.wantsWritable {
            c.wantsWritable = wants
            try? epoll.modify(c.socket.rawValue, token: c.id.rawValue, writable: wants)
        }
    }

    /// Tells the client what it did wrong, then disconnects it alone.
    private func fail(_ c: ClientConnection, _ error: ProtocolError) {
        logger.warning("client error: protocol violation, disconnecting", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "error.code": "\(error.code.name)", "error.message": "\(error.message)"])
        protocolErrors.append((c.label, error))
        send(.error(error), to: c)
        disconnect(c, reason: "protocol error \(error)")
    }

    private func disconnect(_ c: ClientConnection, reason: String) {
        guard clients.removeValue(forKey: c.id) != nil else { return }
        epoll.remove(c.socket.rawValue)
        if let role = c.role, roles[role] == c.id {
            roles[role] = nil
            disconnections[role] = reason
        }
        logger.debug("client disconnected", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "reason": "\(reason)"])
    }

    // MARK: - Frames

    /// The scene for the current layout and the committed surfaces.
    public func scene() -> Scene {
        var surfaces: [Role: PixelImage] = [:]
        for pane in layout.panes { surfaces[pane.role] = client(pane.role)?.surface?.image }
        return Scene(layout: layout, surfaces: surfaces)
    }

    /// Draws a frame into the output and tells the apps whose commits it shows.
    @discardableResult
    public func repaint() -> RenderStats {
        let stats = renderer.render(scene(), into: backend.beginFrame())
        let time = backend.present()
        frameCount += 1
        for pane in layout.panes {
            guard let c = client(pane.role), c.frameDonePending else { continue }
            c.frameDonePending = false
            send(.frameDone(time: time), to: c)
        }
        return stats
    }

    /// Closes every client connection and reaps the apps this compositor launched (SIGTERM,
    /// then SIGKILL for one that does not exit within `graceMilliseconds`).
    public func shutdown(graceMilliseconds: Int = 2000) {
        for c in Array(clients.values) { disconnect(c, reason: "the compositor is shutting down") }
        let deadline = MonotonicClock.milliseconds + UInt64(graceMilliseconds)
        for child in children {
            let left = Int(deadline > MonotonicClock.milliseconds ? deadline - MonotonicClock.milliseconds : 0)
            if child.process.wait(milliseconds: left) == nil { child.process.terminate(graceMilliseconds: 200) }
        }
        children.removeAll()
    }

    /// Exit statuses of launched apps that have exited, by role.
    public func exitStatus(_ role: Role) -> Int32? { children.first { $0.role == role }?.process.poll() }
}

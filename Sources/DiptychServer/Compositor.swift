// SPDX-License-Identifier: MIT
// The compositor: the event loop, client connections, and frames on the output. Mechanism only:
// which app is where, and what gestures do, is DiptychCore's Shell.

import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychWire
import Glibc
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
    /// False for "Settings > Multitasking" off: every app full screen.
    public var multitasking: Bool
    /// Palm rejection while a pen is in use, and its hold-off in milliseconds.
    public var palmRejection: PalmRejection.Mode = .penPriority
    public var penHoldoff: UInt64 = 90
    /// Resolution-scaling emulation: the panel size the logical screen is scaled onto.
    public var emulateOn: Size?
    /// The output's rotation on the panel.
    public var outputRotation: OutputRotation = .none
    /// Tint repainted regions (a debugging aid).
    public var debugDamage = false

    public init(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement, listen: Bool = true, socketPath: String? = nil, multitasking: Bool = true) {
        self.profile = profile
        self.orientation = orientation
        self.arrangement = arrangement
        self.listen = listen
        self.socketPath = socketPath
        self.multitasking = multitasking
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
    /// The multitasking state: roles, arrangement, gestures.
    public private(set) var shell: Shell
    /// Which finger touches get through while a pen is in use.
    public private(set) var palm: PalmRejection
    private var lastPenPosition = (x: 0.0, y: 0.0)
    /// How the logical screen lands on the panel.
    public private(set) var geometry: OutputGeometry
    private var emulateOn: Size?
    private var outputRotation: OutputRotation
    /// What each app's pane showed in the last frame, to find what a new frame changes.
    private var lastDrawn: [AppID: DrawnSurface] = [:]
    /// Output pixels to redraw at the next frame (everything when `fullDamage`).
    private var damage = Region()
    private var fullDamage = true
    private var lastTouchPosition: [Int32: (x: Double, y: Double)] = [:]
    /// The configured layout.
    public var layout: Layout { shell.layout }
    /// Where frames go. Without emulation its size is the logical screen in pixels.
    public private(set) var backend: any OutputBackend
    /// The last frame presented.
    public var output: PixelImage { backend.lastFrame }
    public let logger: Logger
    /// The socket path clients can connect to, if listening.
    public var socketPath: String? { socketLock?.path }
    /// When set, the compositor's clock (milliseconds): scenarios play in virtual time.
    public var virtualTime: UInt64?
    /// Admit apps to the shell as soon as they say hello. When false, they wait for
    /// `admitWaitingApps()`, so a start-up does not depend on which app spoke first.
    public var admitsAtHello = true
    /// How long an app may take to draw for a configure before it is activated anyway.
    public static let activationTimeout: UInt64 = 250

    private let epoll: Epoll
    private let socketLock: SocketLock?
    private let listener: SharedDescriptor?
    private var clients: [ClientID: ClientConnection] = [:]
    private var nextClientID: UInt64 = 100
    private var nextSerial: UInt32 = 1
    private var nextSync: UInt32 = 1
    private var children: [(role: Role, label: String, process: ChildProcess)] = []
    private let renderer = PixmanRenderer()
    private var pendingActivation: [ClientID: UInt64] = [:]
    /// Why an app launched for a role went away, for error messages.
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
        _ = try LayoutEngine.layout(profile: configuration.profile, orientation: configuration.orientation, arrangement: configuration.arrangement)
        shell = Shell(
            profile: configuration.profile, orientation: configuration.orientation, arrangement: configuration.arrangement,
            multitasking: configuration.multitasking)
        palm = PalmRejection(mode: configuration.palmRejection, holdoff: configuration.penHoldoff)
        emulateOn = configuration.emulateOn
        outputRotation = configuration.outputRotation
        let px = configuration.profile.pixelSize(configuration.orientation)
        let rotation = configuration.outputRotation
        if let backend {
            // A real output: the logical screen is fitted to whatever the panel is.
            geometry = OutputGeometry(logical: px, panel: backend.size, rotation: rotation)
            emulateOn = backend.size
        } else {
            geometry = configuration.emulateOn.map { OutputGeometry(logical: px, panel: $0, rotation: rotation) } ?? .native(logical: px, rotation: rotation)
        }
        self.backend = backend ?? HeadlessBackend(size: geometry.panel)
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
        if let fd = self.backend.eventDescriptor { try epoll.add(fd, token: Compositor.backendToken) }
    }

    deinit { shutdown() }

    private static let backendToken: UInt64 = 0xFFFF_FFFF

    /// Runs the loop until the output can take a frame (its last page flip completed).
    public func waitUntilOutputReady(timeoutMilliseconds: Int = 1000) throws {
        if backend.readyForFrame { return }
        try run(timeoutMilliseconds: timeoutMilliseconds) { backend.readyForFrame }
    }

    /// The compositor's clock in milliseconds: virtual time in a scenario, else monotonic.
    public var now: UInt64 { virtualTime ?? MonotonicClock.milliseconds }

    // MARK: - Clients

    /// Starts an app as a separate process holding one end of a socket pair as fd 3, asking
    /// for `role`.
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
            // Only the compositor's own user may connect (SO_PEERCRED), whatever the socket's
            // permissions say.
            let uid = connection.credentials?.uid
            if uid != getuid() {
                fail(connection, ProtocolError(.badState, "connections from uid \(uid.map(String.init) ?? "unknown") are refused; this compositor runs as uid \(getuid())"))
            }
        }
    }

    /// The client holding `role`, if any.
    func client(_ role: Role) -> ClientConnection? { shell.app(role).flatMap { clients[ClientID(rawValue: $0.rawValue)] } }

    func client(_ app: AppID) -> ClientConnection? { clients[ClientID(rawValue: app.rawValue)] }

    /// Whether the app in `role` has committed a buffer for its latest configure.
    public func hasCommittedForConfigure(_ role: Role) -> Bool { client(role)?.hasCommittedForConfigure ?? false }

    /// How many buffers the app in `role` has committed.
    public func commits(_ role: Role) -> Int { client(role)?.commits ?? 0 }

    /// Whether an app holds `role`.
    public func isConnected(_ role: Role) -> Bool { client(role) != nil }

    /// The label of the app in `role` (or launched for it).
    public func label(_ role: Role) -> String? { client(role)?.label ?? children.first { $0.role == role }?.label }

    /// Whether every launched app has said hello (or is gone).
    public var launchedAppsHaveSpoken: Bool {
        clients.values.allSatisfy { $0.launchRole == nil || $0.name != nil }
    }

    /// Admits apps waiting since hello, primary role first, so the start-up layout is the
    /// same whichever app spoke first.
    public func admitWaitingApps() {
        let waiting = clients.values.filter { $0.name != nil && !$0.admitted }.sorted { a, b in
            (a.launchRole == .secondary ? 1 : 0, a.id.rawValue) < (b.launchRole == .secondary ? 1 : 0, b.id.rawValue)
        }
        // Every app joins the shell before anything is sent, so each first configure is
        // already the final start-up layout.
        var effects: [ShellEffect] = []
        for c in waiting {
            if let e = join(c) { effects += e }
        }
        apply(effects)
    }

    private func admit(_ c: ClientConnection) {
        if let effects = join(c) { apply(effects) }
    }

    /// Adds an app to the shell; nil (and a protocol error) when both roles are taken.
    private func join(_ c: ClientConnection) -> [ShellEffect]? {
        let effects = shell.add(c.app, preferring: c.launchRole ?? .primary, requiresFullScreen: c.requiresFullScreen)
        guard shell.primary == c.app || shell.secondary == c.app else {
            fail(c, ProtocolError(.badState, "the compositor already shows two apps"))
            return nil
        }
        c.admitted = true
        return effects
    }

    // MARK: - Shell effects

    /// Carries out what the shell decided.
    private func apply(_ effects: [ShellEffect]) {
        for effect in effects {
            switch effect {
            case .touch(let app, let id, let phase, let x, let y):
                if let c = client(app) { send(.touch(id: id, phase: phase, x: x, y: y), to: c) }
            case .pen(let app, let phase, let x, let y, let p, let tx, let ty):
                if let c = client(app) { send(.pen(phase: phase, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty), to: c) }
            case .lifecycle(let app, let event):
                if let c = client(app) {
                    pendingActivation[c.id] = nil
                    send(.lifecycle(event), to: c)
                }
            case .layoutChanged:
                sendConfigures()
            case .activateWhenDrawn(let app):
                guard let c = client(app) else { continue }
                pendingActivation[c.id] = now + Compositor.activationTimeout
                activateIfDrawn(c)
            case .requestSnapshots(let app, let panes):
                guard let c = client(app) else { continue }
                for pane in panes {
                    let serial = nextSerial
                    nextSerial &+= 1
                    c.snapshotRequests[serial] = pane
                    send(.snapshotRequest(serial: serial, frame: pane.frame, pixelWidth: pane.pixelWidth, pixelHeight: pane.pixelHeight, horizontalSizeClass: pane.horizontalSizeClass), to: c)
                }
            case .dropSnapshots:
                for c in clients.values { c.snapshots.removeAll() }
            }
        }
    }

    /// Sends `configure` to every shown app whose pane changed, and `sizeClassChanged` where a
    /// class really changed.
    private func sendConfigures() {
        for c in clients.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) where c.admitted {
            guard let pane = shell.pane(of: c.app) else { continue }
            let previous = c.configure
            if let previous, previous.pane == pane { continue }
            let configure = Configure(serial: nextSerial, pane: pane, orientation: layout.orientation, arrangement: layout.arrangement)
            nextSerial &+= 1
            c.configure = configure
            c.unackedSerials.append(configure.serial)
            send(.configure(configure), to: c)
            if let previous, previous.horizontalSizeClass != pane.horizontalSizeClass || previous.verticalSizeClass != pane.verticalSizeClass {
                send(.sizeClassChanged(
                    horizontal: pane.horizontalSizeClass, vertical: pane.verticalSizeClass,
                    previousHorizontal: previous.horizontalSizeClass, previousVertical: previous.verticalSizeClass), to: c)
            }
        }
    }

    private func activateIfDrawn(_ c: ClientConnection) {
        guard let deadline = pendingActivation[c.id] else { return }
        if c.hasCommittedForConfigure || now >= deadline {
            pendingActivation[c.id] = nil
            send(.lifecycle(.didBecomeActive), to: c)
        }
    }

    /// Sends the activations whose 250 ms ran out, and times out a pen that stopped reporting.
    public func tick() {
        if palm.tick(now: now) {
            apply(shell.handlePen(phase: .proximityOut, x: lastPenPosition.x, y: lastPenPosition.y, pressure: 0, tiltX: 0, tiltY: 0))
        }
        for id in pendingActivation.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            if let c = clients[id] { activateIfDrawn(c) }
        }
    }

    // MARK: - Input and rotation

    /// Input in panel pixels (a touchscreen mapped to the panel, or a scenario step), taken
    /// into the logical screen: the one entry point for scripted and real input.
    public func panelInput(_ input: PanelInput) {
        let scale = Double(shell.profile.scale)
        switch input {
        case .touch(let id, let phase, let x, let y):
            let l = geometry.toLogical(x: x, y: y)
            touch(id: id, phase: phase, x: l.x / scale, y: l.y / scale)
        case .pen(let phase, let x, let y, let p, let tx, let ty):
            let l = geometry.toLogical(x: x, y: y)
            pen(phase: phase, x: l.x / scale, y: l.y / scale, pressure: p, tiltX: tx, tiltY: ty)
        }
    }

    /// A finger touch in points of the logical screen. Palm rejection decides first whether
    /// it reaches the shell (and so an app or a gesture).
    public func touch(id: Int32, phase: TouchPhase, x: Double, y: Double) {
        lastTouchPosition[id] = phase == .up || phase == .cancel ? nil : (x, y)
        guard palm.touch(id: id, phase: phase, now: now) == .deliver else { return }
        apply(shell.handleTouch(id: id, phase: phase, x: x, y: y, now: now))
    }

    /// A pen sample in points of the logical screen. A pen arriving cancels every finger touch
    /// in progress (apps get `cancel`; a gesture ends where it began); the pen goes to the app
    /// under it and never starts a compositor gesture.
    public func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double) {
        for id in palm.pen(phase: phase, now: now) {
            let at = lastTouchPosition[id] ?? (x, y)
            apply(shell.handleTouch(id: id, phase: .cancel, x: at.x, y: at.y, now: now))
        }
        lastPenPosition = (x, y)
        apply(shell.handlePen(phase: phase, x: x, y: y, pressure: pressure, tiltX: tiltX, tiltY: tiltY))
    }

    /// Rotates the logical screen (the apps' orientation). Without emulation a headless
    /// output follows it; with emulation the panel stays and the picture is refitted.
    public func rotate(to orientation: Orientation) {
        let effects = shell.rotate(to: orientation)
        updateGeometry()
        apply(effects)
    }

    /// Redraws the whole output at the next frame (after the output came back).
    public func redrawAll() { fullDamage = true }

    /// Sets the output's rotation on the panel; apps are not told (their screen is unchanged).
    public func rotateOutput(_ rotation: OutputRotation) {
        outputRotation = rotation
        updateGeometry()
    }

    /// Soft relaunch: emulates another device profile on the same panel. Every shown app gets
    /// a new configure (and sizeClassChanged where a class changes); apps keep running.
    public func emulate(_ profile: DeviceProfile) {
        let effects = shell.changeProfile(to: profile)
        updateGeometry()
        apply(effects)
    }

    private func updateGeometry() {
        let px = shell.profile.pixelSize(shell.orientation)
        geometry = emulateOn.map { OutputGeometry(logical: px, panel: $0, rotation: outputRotation) } ?? .native(logical: px, rotation: outputRotation)
        if backend is HeadlessBackend, backend.size != geometry.panel { backend = HeadlessBackend(size: geometry.panel) }
        fullDamage = true
    }

    /// Waits until every shown app has committed a buffer for its configure.
    ///
    /// - Throws: `CompositorError` naming the app that went away first, or every app that had
    ///   not drawn when `timeoutMilliseconds` ran out.
    public func waitUntilShownAppsHaveDrawn(timeoutMilliseconds: Int) throws {
        let deadline = MonotonicClock.milliseconds + UInt64(timeoutMilliseconds)
        var failure: String?
        func lost() -> Bool {
            for child in children where client(launched: child.role) == nil || child.process.poll() != nil {
                guard let why = disconnections[child.role] ?? child.process.poll().map({ "it exited with status \($0)" }) else { continue }
                failure = "app '\(child.label)' (\(child.role.rawValue)) went away before drawing: \(why)"
                return true
            }
            return false
        }
        if !admitsAtHello {
            let spoke = try run(timeoutMilliseconds: timeoutMilliseconds) { lost() || launchedAppsHaveSpoken }
            if let failure { throw CompositorError(failure) }
            if !spoke { throw CompositorError("app \(silentApps) did not say hello within \(Double(timeoutMilliseconds) / 1000) s") }
            admitWaitingApps()
        }
        let left = Int(deadline > MonotonicClock.milliseconds ? deadline - MonotonicClock.milliseconds : 0)
        let ok = try run(timeoutMilliseconds: left) {
            if lost() { return true }
            return !layout.panes.isEmpty && layout.panes.allSatisfy { hasCommittedForConfigure($0.role) }
        }
        if let failure { throw CompositorError(failure) }
        if !ok {
            var late = layout.panes.map(\.role).filter { !hasCommittedForConfigure($0) }
            if layout.panes.isEmpty || shell.primary == nil { late = children.map(\.role) }
            let names = late.map { "'\(label($0) ?? $0.rawValue)' (\($0.rawValue))" }.joined(separator: " and ")
            throw CompositorError("app \(names) did not commit a buffer for its configure within \(Double(timeoutMilliseconds) / 1000) s")
        }
    }

    private var silentApps: String {
        clients.values.filter { $0.launchRole != nil && $0.name == nil }.map { "'\($0.label)' (\($0.launchRole!.rawValue))" }.joined(separator: " and ")
    }

    private func client(launched role: Role) -> ClientConnection? {
        clients.values.first { $0.launchRole == role }
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
            if token == Compositor.backendToken {
                backend.dispatch()
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
        if virtualTime == nil { tick() }
    }

    /// A round trip with every app: sends `sync` (with the clock) and waits until each has
    /// answered, gone away, or `timeoutMilliseconds` of real time passed. Everything an app
    /// sent before answering has been handled when this returns, which makes a scenario's
    /// virtual frames deterministic.
    @discardableResult
    public func roundTrip(timeoutMilliseconds: Int = 5000) throws -> Bool {
        let serial = nextSync
        nextSync &+= 1
        let targets = clients.values.filter { $0.name != nil && !$0.unresponsive }.map(\.id)
        lastRoundTripStart = MonotonicClock.nanoseconds
        for id in targets { if let c = clients[id] { send(.sync(serial: serial, time: now), to: c) } }
        let answered = try run(timeoutMilliseconds: timeoutMilliseconds) {
            targets.allSatisfy { id in clients[id].map { $0.syncAnswered == serial } ?? true }
        }
        for id in targets {
            guard let c = clients[id], c.syncAnswered != serial else { continue }
            c.unresponsive = true
            logger.warning("client error: no answer to a round trip; not waiting for it again", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)"])
        }
        return answered
    }

    private var lastRoundTripStart: UInt64 = 0

    /// Each app's answer time in the last round trip (label, start and end in monotonic ns).
    public var lastRoundTrip: [(label: String, start: UInt64, end: UInt64)] {
        clients.values.filter { $0.name != nil }.sorted { $0.id.rawValue < $1.id.rawValue }.map {
            ($0.label, lastRoundTripStart, max(lastRoundTripStart, $0.syncAnsweredAt))
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

    /// Whether no drag is in progress and no activation is pending: every shown app has drawn
    /// its configure or had its 250 ms.
    public var isSettled: Bool { shell.drag == nil && pendingActivation.isEmpty }

    /// Whether an app committed since the last frame, or a gesture moves panes.
    public var needsRepaint: Bool {
        shell.drag != nil || shell.presentation.contains { client($0.app)?.frameDonePending ?? false }
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

    // MARK: - Requests

    private func handle(_ message: ClientMessage, from c: ClientConnection) throws(ProtocolError) {
        switch message {
        case .hello(let name, let requiresFullScreen):
            guard c.name == nil else { throw ProtocolError(.badState, "hello was already sent") }
            c.name = name
            c.requiresFullScreen = requiresFullScreen
            if c.launchRole == nil { c.label = name }
            logger.debug("hello", metadata: ["client.id": "\(c.id)", "client.name": "\(name)"])
            if admitsAtHello { admit(c) }
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
            c.commits += 1
            c.frameDonePending = true
            addDamage(for: c, bufferDamage: damage)
            activateIfDrawn(c)
        case .snapshot(let serial, let layout):
            let image = try map(layout, from: c)
            guard c.snapshotRequests.removeValue(forKey: serial) != nil else {
                throw ProtocolError(.unknownSerial, "snapshot for serial \(serial), which was never requested")
            }
            // A snapshot that arrives after its drag ended is simply not used.
            if shell.drag != nil { c.snapshots.append(image) }
        case .syncDone(let serial):
            c.syncAnswered = serial
            c.syncAnsweredAt = MonotonicClock.nanoseconds
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
        pendingActivation[c.id] = nil
        if let role = c.launchRole { disconnections[role] = reason }
        logger.debug("client disconnected", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "reason": "\(reason)"])
        if c.admitted {
            c.admitted = false
            apply(shell.remove(c.app))
        }
    }

    // MARK: - Frames

    /// Adds a committed buffer's damage (buffer pixels) as output pixels: placed where the
    /// surface is drawn, clipped to its pane, through the output transform and grown by the
    /// filter's footprint.
    private func addDamage(for c: ClientConnection, bufferDamage: [Rect]) {
        guard !fullDamage, let p = shell.presentation.first(where: { $0.app == c.app }), !p.prefersSnapshots, let image = c.surface?.image else {
            return
        }
        let clip = p.frame.scaled(by: shell.profile.scale)
        let originX = p.anchor == .leading ? clip.x : clip.maxX - image.width
        for r in bufferDamage {
            guard let logical = Rect(x: r.x + originX, y: r.y + clip.y, width: r.width, height: r.height).intersection(clip),
                let out = geometry.damage(logical)
            else { continue }
            damage.formUnion(out)
        }
    }

    /// What a pane shows: which image, where, clipped to what (logical pixels).
    struct DrawnSurface: Equatable {
        var image: ObjectIdentifier
        var live: Bool
        var imageRect: Rect
        var clip: Rect
    }

    /// The scene as presented now: each pane's live surface, or during a divider drag the
    /// snapshot nearest the pane's width, anchored at the pane's outer edge and clipped to it.
    public func scene() -> Scene { presentedScene().scene }

    private func presentedScene() -> (scene: Scene, drawn: [AppID: DrawnSurface]) {
        let scale = shell.profile.scale
        var surfaces: [SceneSurface] = []
        var drawn: [AppID: DrawnSurface] = [:]
        for p in shell.presentation {
            guard let c = client(p.app) else { continue }
            let clip = p.frame.scaled(by: scale)
            var image = c.surface?.image
            var live = true
            if p.prefersSnapshots, let best = c.snapshots.min(by: { abs($0.width - clip.width) < abs($1.width - clip.width) }) {
                image = best
                live = false
            }
            guard let image else { continue }
            let x = p.anchor == .leading ? clip.x : clip.maxX - image.width
            surfaces.append(SceneSurface(image: image, origin: (x, clip.y), clip: clip))
            drawn[p.app] = DrawnSurface(
                image: ObjectIdentifier(image), live: live, imageRect: Rect(x: x, y: clip.y, width: image.width, height: image.height), clip: clip)
        }
        let scene = Scene(
            size: shell.profile.pixelSize(shell.orientation), surfaces: surfaces, transform: geometry.transform,
            outputSize: geometry.panel, damage: fullDamage ? nil : damage)
        return (scene, drawn)
    }

    /// Damage from what moved since the last frame: a pane whose content stayed put but whose
    /// clip moved (a divider drag with anchored snapshots) repaints only the strip that
    /// changed; a pane that shows another image or moved its image repaints old and new
    /// clips. Commits to a surface in place bring their own damage.
    private func addDamage(from drawn: [AppID: DrawnSurface]) {
        for app in Set(lastDrawn.keys).union(drawn.keys) {
            let old = lastDrawn[app], new = drawn[app]
            var changed = Region()
            switch (old, new) {
            case (nil, nil):
                continue
            case (let o?, nil):
                changed.formUnion(o.clip)
            case (nil, let n?):
                changed.formUnion(n.clip)
            case (let o?, let n?):
                let sameContent = o.imageRect == n.imageRect && (o.image == n.image || (o.live && n.live))
                if sameContent && o.clip == n.clip { continue }
                if sameContent {
                    var gained = Region(n.clip)
                    gained.subtract(o.clip)
                    var lost = Region(o.clip)
                    lost.subtract(n.clip)
                    for r in gained.rects + lost.rects { changed.formUnion(r) }
                } else {
                    changed.formUnion(o.clip)
                    changed.formUnion(n.clip)
                }
            }
            for r in changed.rects { if let out = geometry.damage(r) { damage.formUnion(out) } }
        }
    }

    /// Draws a frame into the output and tells the apps whose commits it shows.
    @discardableResult
    public func repaint() -> RenderStats {
        let frame = prepareFrame()
        let stats = composite(frame)
        present()
        return stats
    }

    /// A frame being drawn: its scene (with damage), its pixman operations, and what each pane
    /// shows.
    public struct Frame {
        public var scene: Scene
        public var operations: [RenderOperation]
        var stats: RenderStats
        var drawn: [AppID: DrawnSurface]
    }

    /// Frame stage 1 (layout): the scene as presented now, the damage since the last frame,
    /// and the pixman operations that draw it.
    public func prepareFrame() -> Frame {
        var (scene, drawn) = presentedScene()
        if !fullDamage {
            addDamage(from: drawn)
            scene.damage = damage
        }
        let (ops, stats) = renderer.plan(scene)
        return Frame(scene: scene, operations: ops, stats: stats, drawn: drawn)
    }

    /// Frame stage 2 (composite): draws the frame into the output's buffer.
    @discardableResult
    public func composite(_ frame: Frame) -> RenderStats {
        PixmanRenderer.replay(frame.operations, into: backend.beginFrame())
        let stats = frame.stats
        if configuration.debugDamage, let damage = frame.scene.damage {
            // Tint what was repainted, so a person can see the damage.
            backend.lastFrame.tint(damage.rects)
        }
        lastFrameDamage = frame.scene.damage
        fullDamage = false
        damage = Region()
        lastDrawn = frame.drawn
        return stats
    }

    /// Frame stage 3 (present): shows the frame and sends `frameDone` to the apps it shows.
    public func present() {
        let presented = backend.present(damage: lastFrameDamage)
        let time = virtualTime ?? presented
        frameCount += 1
        for p in shell.presentation {
            guard let c = client(p.app), c.frameDonePending else { continue }
            c.frameDonePending = false
            send(.frameDone(time: time), to: c)
        }
    }

    /// Bytes held in snapshots by all apps now.
    public var snapshotBytes: Int {
        clients.values.reduce(0) { $0 + $1.snapshots.reduce(0) { $0 + $1.stride * $1.height } }
    }

    /// The damage the last frame redrew (nil: everything).
    public private(set) var lastFrameDamage: Region?

    /// Closes every client connection and reaps the apps this compositor launched (SIGTERM,
    /// then SIGKILL for one that does not exit within `graceMilliseconds`).
    public func shutdown(graceMilliseconds: Int = 2000) {
        for c in clients.values.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            c.admitted = false
            disconnect(c, reason: "the compositor is shutting down")
        }
        let deadline = MonotonicClock.milliseconds + UInt64(graceMilliseconds)
        for child in children {
            let left = Int(deadline > MonotonicClock.milliseconds ? deadline - MonotonicClock.milliseconds : 0)
            if child.process.wait(milliseconds: left) == nil { child.process.terminate(graceMilliseconds: 200) }
        }
        children.removeAll()
    }
}

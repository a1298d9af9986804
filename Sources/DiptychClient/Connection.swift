// SPDX-License-Identifier: MIT
// The client side of the Diptych protocol: connect, hello, configure/ack, shm buffers, commit.

import DiptychCore
import DiptychLinux
import DiptychWire
import Glibc

/// A connection to the compositor. Use from one thread. Blocking by default; an app with its
/// own event loop watches `fileDescriptor` and calls `pollEvent()` when it is readable.
///
/// The connection keeps the app's buffers: `buffer(width:height:)` gives one the compositor is
/// not reading (a pool of up to `buffersPerSize` per size, created as needed), `commit` and
/// `snapshot` mark it busy, and the compositor's `release` frees it again.
public final class Connection {
    private let socket: SharedDescriptor
    private var assembler = MessageAssembler()
    /// Events read while waiting for a release, handed out by `nextEvent` first.
    private var pending: [ServerEvent] = []
    private var endOfStream = false
    private var buffers: [UInt32: ShmBuffer] = [:]
    private var nextBufferID: UInt32 = 1
    /// Buffer sizes in order of last use, the most recent last.
    private var sizes: [Size] = []
    /// A `sync` handed to the app and not answered yet: answered at the app's next call for
    /// an event, when it has handled every event before it.
    private var syncToAnswer: UInt32?
    /// The serials of the configures received lately (the newest 16), which `ack` may name.
    private var configureSerials: [UInt32] = []
    private var saidHello = false

    /// Whether the connection answers the compositor's `sync` round trips itself (the
    /// default): the answer goes at the next `nextEvent` or `pollEvent` after the `sync` was
    /// handed out, so everything the app did for the events before it is sent first. A
    /// scenario waits for these answers to keep its frames deterministic.
    public var answersSync = true

    /// Buffers kept per size: one on screen, one being drawn, one spare for a late release.
    public static let buffersPerSize = 3
    /// The name its memfds carry (tests tell their buffers apart by it in /proc/PID/maps).
    package var bufferName = "diptych-buffer"

    /// Sizes kept: the live size and the sizes a divider drag asks snapshots at. Buffers of
    /// older sizes are destroyed.
    public static let sizesKept = 6

    /// Connects the way a launched app should: the socket inherited as `$DIPTYCH_SOCKET_FD`
    /// if set, else `$DIPTYCH_SOCKET`, else `diptych-0` in the runtime directory.
    ///
    /// The inherited descriptor is checked (an open socket), made close-on-exec and its variable
    /// unset, as `wl_display_connect` does with `WAYLAND_SOCKET`: the app's own children never
    /// inherit the compositor's connection. `DIPTYCH_SOCKET`, a path, is left as it is.
    public static func fromEnvironment() throws(ClientError) -> Connection {
        let variable = RuntimeDirectory.inheritedSocketVariable
        if let raw = Files.environment(variable), !raw.isEmpty {
            unsetenv(variable)
            var st = stat()
            guard let fd = Int32(raw), fd >= 0, fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else {
                throw .noSocket("\(variable)=\(raw) is not an open socket descriptor")
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return Connection(socket: FileDescriptor(taking: fd))
        }
        let path: String
        let socket: FileDescriptor
        do {
            path = try RuntimeDirectory.clientSocketPath()
            socket = try UnixSocket.connect(path: path)
        } catch {
            throw .noSocket("cannot connect to the compositor: \(error)")
        }
        // The compositor must run as our own user (SO_PEERCRED), as it checks of us.
        let peer = try? UnixSocket.peerCredentials(socket.rawValue)
        guard let uid = peer?.uid, Self.trusts(peerUID: uid) else {
            throw .noSocket("the compositor at \(path) runs as uid \(peer.map { String($0.uid) } ?? "unknown"), not as this user (uid \(getuid())): not connecting")
        }
        return Connection(socket: socket)
    }

    /// Whether a compositor running as `peerUID` may be trusted: our own user.
    package static func trusts(peerUID: UInt32) -> Bool { peerUID == getuid() }

    /// Connects to the socket at `path`.
    public convenience init(path: String) throws(ClientError) {
        do { self.init(socket: try UnixSocket.connect(path: path)) } catch { throw .system(error) }
    }

    /// Takes ownership of a connected socket.
    package init(socket: consuming FileDescriptor) {
        self.socket = SharedDescriptor(socket)
        // An app's buffers are its own: same-user processes may not read them through /proc.
        ProcessPrivacy.closeToSameUser()
    }

    /// The socket, for an app's own poll or epoll loop: when it is readable, call `pollEvent`
    /// until it returns nil. Owned by the connection; do not close it.
    public var fileDescriptor: Int32 { socket.rawValue }

    /// Sends raw bytes and descriptors (used by `send` and by the tests' misbehaving client).
    package func sendRaw(_ bytes: [UInt8], descriptors: [Int32] = []) throws(ClientError) {
        do { try UnixSocket.sendAll(socket.rawValue, bytes, descriptors: descriptors) } catch {
            // A compositor that refused an earlier request closed the connection after saying
            // why: the reason is waiting to be read, and matters more than the broken pipe.
            if let refusal = queuedError() { throw .refused(refusal) }
            // Otherwise a broken pipe is the compositor gone (it shut down).
            if error.errno == EPIPE || error.errno == ECONNRESET { throw .closed }
            throw .system(error)
        }
    }

    /// The protocol error among the events already received, if any (the others are kept).
    private func queuedError() -> ProtocolError? {
        if let p = pending.lazy.compactMap({ if case .error(let e) = $0 { e } else { nil } }).first { return p }
        while let event = try? readEvent(blocking: false) {
            if case .error(let e) = event { return e }
            pending.append(event)
        }
        return nil
    }

    /// Reads whatever bytes arrive next, undecoded (for the tests' misbehaving client).
    package func receiveRaw() throws(ClientError) -> [UInt8] {
        while true {
            let received: Received?
            do { received = try UnixSocket.receive(socket.rawValue) } catch { throw .system(error) }
            if let r = received { return r.bytes }
        }
    }

    /// Sends a request that carries no descriptor, as it is (apps use the typed requests:
    /// `hello`, `ack`, `setStatusBarStyle`, the buffer calls; tests send what those never would).
    package func send(_ message: ClientMessage) throws(ClientError) {
        try send(message, descriptors: [])
    }

    /// Sends a request with the descriptors it carries.
    package func send(_ message: ClientMessage, descriptors: [Int32]) throws(ClientError) {
        precondition(descriptors.count == message.fdCount)
        try sendRaw(message.encoded(), descriptors: descriptors)
    }

    // MARK: - Requests

    /// Connects as a launched app should (see `fromEnvironment`) and says hello: the app's name
    /// and whether it needs the whole screen. The first configure follows.
    public static func connect(name: String, requiresFullScreen: Bool = false) throws(ClientError) -> Connection {
        let c = try fromEnvironment()
        try c.hello(name: name, requiresFullScreen: requiresFullScreen)
        return c
    }

    /// Says hello on a connection made without it (`fromEnvironment`, `init(path:)`); once.
    public func hello(name: String, requiresFullScreen: Bool = false) throws(ClientError) {
        guard !saidHello else { throw .misuse("hello was said already") }
        try send(.hello(name: name, requiresFullScreen: requiresFullScreen))
        saidHello = true
    }

    /// Acknowledges the configure that carried `serial` (acking it acks the ones before). A
    /// serial no configure carried is not sent (the compositor would end the connection).
    public func ack(_ serial: UInt32) throws(ClientError) {
        guard configureSerials.contains(serial) else {
            throw .misuse("ack of serial \(serial), which no configure this app received carried")
        }
        try send(.ack(serial: serial))
    }

    /// How the status bar's text is drawn over the app's pane (the primary's counts).
    public func setStatusBarStyle(_ style: StatusBarStyle) throws(ClientError) {
        try send(.statusBarStyle(style))
    }

    /// Whether a field of the app takes text now, and how: the on-screen keyboard's typing
    /// arrives as `textCommit` and `textDelete` (its return, delete, ‹ and › as `key` events).
    /// An enable raises the keyboard when it names the input after which the app focused the
    /// field: a tap it was handed (a touch's or the pen's `up`) with no tap since, or a key the
    /// keyboard sent (‹ › return). `after`: that input's serial; 0 for a field the app focused
    /// by itself (it raises no keyboard); nil (the default): the state's own `serial` when it
    /// has one, else the last tap's end or key press this connection handed out. Only the app with the keyboard focus may enable it (else
    /// `refused`, reason `focus`). A state the protocol cannot carry is a misuse.
    public func setTextInput(_ state: TextInputState, after serial: UInt32? = nil) throws(ClientError) {
        let c = state.caret
        guard [c.x, c.y, c.width, c.height].allSatisfy(\.isFinite), c.width >= 0, c.height >= 0 else {
            throw .misuse("textInput caret (\(c.x), \(c.y), \(c.width), \(c.height)): it must be finite, of no negative size")
        }
        guard state.surrounding.utf8.count <= TextInputState.surroundingLimit else {
            throw .misuse("textInput surrounding text of \(state.surrounding.utf8.count) bytes (at most \(TextInputState.surroundingLimit))")
        }
        var t = state
        t.serial = state.enabled ? serial ?? (state.serial != 0 ? state.serial : lastInput) : 0
        try send(.textInput(t))
    }

    /// The serial of the last tap's end (a touch's or the pen's `up`) or key press handed out.
    private var lastInput: UInt32 = 0

    private func noteInput(_ event: ServerEvent?) {
        switch event {
        case .touch(_, .up, _, _, _, let serial)?, .pen(.up, _, _, _, _, _, _, _, _, let serial)?, .key(_, _, _, .pressed, _, _, let serial)?:
            lastInput = serial
        default: break
        }
    }

    // MARK: - Buffers

    /// A buffer of `width` × `height` that the compositor is not reading, to draw a whole frame
    /// into: a released one of that size, else a new one while fewer than `buffersPerSize`
    /// exist, else it reads events until the compositor releases one (those events are kept
    /// for `nextEvent`).
    public func buffer(width: Int, height: Int) throws(ClientError) -> ShmBuffer {
        let size = Size(width: width, height: height)
        sizes.removeAll { $0 == size }
        sizes.append(size)
        while true {
            let same = buffers.values.filter { $0.width == width && $0.height == height }.sorted { $0.id < $1.id }
            if let free = same.first(where: { !$0.isBusy }) { return free }
            if same.count < Self.buffersPerSize {
                let b = try createBuffer(width: width, height: height)
                try trimSizes()
                return b
            }
            guard let event = try readEvent() else { throw .closed }
            pending.append(event)
        }
    }

    /// A buffer that is not busy of that size without waiting, or nil if all `buffersPerSize`
    /// are busy (for an app with its own event loop: draw when a `release` comes).
    public func freeBuffer(width: Int, height: Int) throws(ClientError) -> ShmBuffer? {
        let same = buffers.values.filter { $0.width == width && $0.height == height }
        let anyFree = same.contains { !$0.isBusy }
        return anyFree || same.count < Self.buffersPerSize ? try buffer(width: width, height: height) : nil
    }

    /// Registers a new buffer with the compositor (`createBuffer`) outside the pool (the
    /// demo apps' and tests' own buffers; an app takes its buffers from `buffer` or
    /// `freeBuffer`).
    package func createBuffer(width: Int, height: Int, format: FourCC = .xrgb8888) throws(ClientError) -> ShmBuffer {
        try createBuffer(width: width, height: height, format: format, seal: true, fileSize: nil)
    }

    /// As `createBuffer`, with the memfd left unsealed or sized otherwise: for the tests of the
    /// compositor's checks only.
    package func createBuffer(width: Int, height: Int, format: FourCC = .xrgb8888, seal: Bool, fileSize: Int?, layout: BufferLayout? = nil) throws(ClientError) -> ShmBuffer {
        let b: ShmBuffer
        do { b = try ShmBuffer(id: nextBufferID, width: width, height: height, format: format, seal: seal, fileSize: fileSize, name: bufferName) } catch {
            throw .system(error)
        }
        nextBufferID &+= 1
        try send(.createBuffer(id: b.id, layout ?? b.layout), descriptors: [b.fd.rawValue])
        buffers[b.id] = b
        return b
    }

    /// Destroys a buffer (`destroyBuffer`). One on screen stays shown until the next commit.
    public func destroy(_ buffer: ShmBuffer) throws(ClientError) {
        guard !buffer.isDestroyed else { return }
        buffer.isDestroyed = true
        buffers[buffer.id] = nil
        try send(.destroyBuffer(id: buffer.id))
    }

    /// Destroys the buffers of sizes beyond the `sizesKept` most recently asked for.
    private func trimSizes() throws(ClientError) {
        guard sizes.count > Self.sizesKept else { return }
        let old = sizes.removeFirst()
        for b in buffers.values.filter({ $0.width == old.width && $0.height == old.height }).sorted(by: { $0.id < $1.id }) {
            try destroy(b)
        }
    }

    /// Shows `buffer` with the given damage (buffer pixels; nil means the whole buffer). It is
    /// busy until the compositor releases it.
    public func commit(_ buffer: ShmBuffer, damage: [Rect]? = nil) throws(ClientError) {
        let whole = Rect(x: 0, y: 0, width: buffer.width, height: buffer.height)
        buffer.isBusy = true
        try send(.commit(buffer: buffer.id, damage: damage ?? [whole]))
    }

    /// Shows `buffer` in the app's Picture in Picture window (opening it; only the primary, or
    /// the app that was primary when it went to the background, may), with the given damage
    /// (nil: the whole buffer). `playing` says whether the video plays (the window's controls
    /// offer pause, else play); `sourceRect` is where the video is in the app's pane, in points
    /// (the window grows out of it when it opens and shrinks back into it when the app closes
    /// it on coming back; nil: the pane's centre). The buffer is busy until the compositor
    /// releases it. Taps on the window's controls come as `pipAction`.
    public func pipCommit(_ buffer: ShmBuffer, playing: Bool = true, sourceRect: Rect? = nil, damage: [Rect]? = nil) throws(ClientError) {
        let whole = Rect(x: 0, y: 0, width: buffer.width, height: buffer.height)
        buffer.isBusy = true
        try send(.pipCommit(buffer: buffer.id, playing: playing, sourceRect: sourceRect, damage: damage ?? [whole]))
    }

    /// Shows `buffer` on the second screen (the primary may, after `screenConnected`), with the
    /// given damage (nil: the whole buffer). It is busy until the compositor releases it.
    public func screenCommit(_ buffer: ShmBuffer, screen: UInt32 = 2, damage: [Rect]? = nil) throws(ClientError) {
        let whole = Rect(x: 0, y: 0, width: buffer.width, height: buffer.height)
        buffer.isBusy = true
        try send(.screenCommit(screen: screen, buffer: buffer.id, damage: damage ?? [whole]))
    }

    /// Gives the second screen back (it mirrors the main screen again).
    public func screenRelease(screen: UInt32 = 2) throws(ClientError) {
        try send(.screenRelease(screen: screen))
    }

    /// Gives the app its icon (shown on its placeholder and over its blurred picture while
    /// the divider is dragged): `side` × `side` premultiplied ARGB pixels (120 to 1024), drawn
    /// by `draw` into rows `wordsPerRow` words apart. The compositor copies it at once; the
    /// buffer is destroyed here. An icon is taken at most once a second: more are answered with
    /// `refused` (reason `rate`).
    public func setIcon(side: Int, draw: (_ pixels: UnsafeMutableBufferPointer<UInt32>, _ wordsPerRow: Int) -> Void) throws(ClientError) {
        let b = try createBuffer(width: side, height: side, format: .argb8888)
        b.withUnsafeMutablePixels { pixels, words in draw(pixels, words) }
        try send(.setIcon(buffer: b.id))
        try destroy(b)
    }

    /// Closes the app's Picture in Picture window.
    public func pipClose() throws(ClientError) {
        try send(.pipClose)
    }

    /// Returns an offscreen rendering for a snapshot request; busy until released.
    public func snapshot(_ buffer: ShmBuffer, serial: UInt32) throws(ClientError) {
        buffer.isBusy = true
        try send(.snapshot(serial: serial, buffer: buffer.id))
    }

    // MARK: - Events

    /// The next event, blocking; nil when the compositor closed the connection. A `release`
    /// has already freed its buffer when it is returned.
    ///
    /// A `configure` is skipped when a newer one has already been received: only the newest
    /// state is worth drawing (acking it acks the ones before).
    ///
    /// A `sync` is handed out (its time is the compositor's clock) and answered at the next
    /// call (see `answersSync`).
    public func nextEvent() throws(ClientError) -> ServerEvent? {
        try answerSync()
        while true {
            let event = pending.isEmpty ? try readEvent() : pending.removeFirst()
            if let event, try isSuperseded(event) { continue }
            noteSync(event)
            noteInput(event)
            return event
        }
    }

    /// The next event if one can be had without blocking, else nil (check `isClosed` to tell
    /// a closed connection apart). A superseded `configure` is skipped as by `nextEvent`.
    public func pollEvent() throws(ClientError) -> ServerEvent? {
        try answerSync()
        while true {
            let event = pending.isEmpty ? try readEvent(blocking: false) : pending.removeFirst()
            if let event, try isSuperseded(event) { continue }
            noteSync(event)
            noteInput(event)
            return event
        }
    }

    /// Answers the `sync` handed out last, if any.
    private func answerSync() throws(ClientError) {
        guard let serial = syncToAnswer else { return }
        syncToAnswer = nil
        try send(.syncDone(serial: serial))
    }

    private func noteSync(_ event: ServerEvent?) {
        if answersSync, case .sync(let serial, _)? = event { syncToAnswer = serial }
    }

    /// Whether `event` is a configure with a newer one among the events already received
    /// (the bytes read so far are decoded for it; the socket is not read).
    private func isSuperseded(_ event: ServerEvent) throws(ClientError) -> Bool {
        guard case .configure = event else { return false }
        while let next = try assembled() { pending.append(next) }
        return pending.contains { if case .configure = $0 { true } else { false } }
    }

    /// The next event among the bytes already read, if a whole one is there.
    private func assembled() throws(ClientError) -> ServerEvent? {
        do {
            guard let (opcode, body) = try assembler.next() else { return nil }
            let event = try ServerEvent.decode(opcode: opcode, body: body)
            if case .release(let id) = event { buffers[id]?.isBusy = false }
            if case .configure(let c) = event { configureSerials.push(c.serial, keeping: 16) }
            return event
        } catch {
            throw .protocolViolation(error)
        }
    }

    /// Whether the compositor closed the connection.
    public var isClosed: Bool { endOfStream }

    private func readEvent(blocking: Bool = true) throws(ClientError) -> ServerEvent? {
        while true {
            if let event = try assembled() { return event }
            if endOfStream { return nil }
            let received: Received?
            do { received = try UnixSocket.receive(socket.rawValue, nonBlocking: !blocking) } catch { throw .system(error) }
            guard let r = received else {
                if blocking { continue }
                return nil
            }
            for extra in r.descriptors { FileDescriptor(taking: extra).close() }
            if r.endOfStream {
                endOfStream = true
                return nil
            }
            assembler.append(r.bytes)
        }
    }
}

// SPDX-License-Identifier: MIT
// The control socket (`diptych ctl`): an operator asks a running compositor for its status, a
// screenshot or its statistics, or to change its orientation or arrangement or restart an app.
// One request a connection, a line of JSON (an array of strings: the command and its
// arguments), answered by a line of JSON (`{"ok":true,"output":…}` or `{"ok":false,"error":…}`;
// a screenshot's pixels travel beside it in a sealed memfd). Bounded as the app socket is: at
// most `acceptsPerTurn` connections taken a turn, each peer's connections within a budget (the
// apps' own budget apart from the users', so an app's flood never costs the operator's `ctl`
// nor the unit's reload), at most `connectionLimit` at once, `requestLimit` bytes a request,
// `requestTimeout` ms to send it, no descriptors (closed off the loop); screenshots within a
// rate and a bound on the bytes of those sent and not read yet. A connection from a process
// the compositor launched (or one of its descendants, however it forked: the compositor adopts
// their orphans) is refused, as is one from another user unless the operators' group may
// connect.

import DiptychCore
import DiptychImage
import DiptychLinux
import Glibc
import Logging

public final class ControlServer {
    public static let connectionLimit = 4
    public static let requestLimit = 4096
    public static let requestTimeout: UInt64 = 2000
    /// Connections taken in one turn of the loop (the rest wait for the next turn).
    public static let acceptsPerTurn = 8
    /// Connections a user may open: a burst, then so many a second; past it they are closed
    /// unanswered (a script polling `ctl status` stays well within it).
    public static let connectBurst = 64, connectsPerSecond = 64
    /// The compositor's apps together (each refused): a burst, then so many a second.
    public static let appConnectBurst = 4, appConnectsPerSecond = 2
    /// Screenshots a user may take: a burst, then so many a second (each composites the scene).
    public static let screenshotBurst = 3, screenshotsPerSecond = 2
    /// The bytes of screenshots sent and not read yet past which another is refused (one is
    /// always allowed when none is unread).
    public static let unreadScreenshotLimit = 64 << 20
    /// The budget key of the compositor's apps (no user has it: uid -1 is invalid).
    static let appsKey = UInt32.max

    /// What the server asks of its owner: the answer to a command (its output, or an error
    /// message; given to `answer` at once or later, as `set-app` does once the new app said
    /// hello), and a screenshot's pixels.
    public struct Handlers {
        public typealias Answer = (Result<String, ControlError>) -> Void
        public var command: (_ words: [String], _ answer: @escaping Answer) -> Void
        /// A screen's size in pixels (nil: no such screen).
        public var screenSize: (_ screen: Int) -> Size?
        /// Draws a screen into an image of its size (false: it could not).
        public var screenshot: (_ screen: Int, _ into: PixelImage) -> Bool
        public init(command: @escaping ([String], @escaping Answer) -> Void, screenSize: @escaping (Int) -> Size?, screenshot: @escaping (Int, PixelImage) -> Bool) {
            self.command = command
            self.screenSize = screenSize
            self.screenshot = screenshot
        }
    }

    public let path: String
    /// The socket came from systemd's socket activation (`diptych-ctl.socket`): its mode and
    /// group say who may connect, and it is systemd's to remove.
    public let activated: Bool
    private let socket: SharedDescriptor
    private let handlers: Handlers
    private let compositor: Compositor
    private let group: gid_t?
    private let logger: Logger
    private var connections: [Int32: (fd: SharedDescriptor, bytes: [UInt8], since: UInt64, uid: UInt32)] = [:] { didSet { rearm() } }
    /// Connections whose request is being carried out, to be answered.
    private var waiting: [Int32: SharedDescriptor] = [:]
    /// Wakes the loop when the oldest connection's time is up (the loop has no idle wake-ups).
    private let timer: TimerDescriptor
    private var connectBudget = ConnectBudget(burst: ControlServer.connectBurst, perSecond: ControlServer.connectsPerSecond)
    private var appConnectBudget = ConnectBudget(burst: ControlServer.appConnectBurst, perSecond: ControlServer.appConnectsPerSecond)
    private var screenshotBudget = ConnectBudget(burst: ControlServer.screenshotBurst, perSecond: ControlServer.screenshotsPerSecond)
    /// Screenshot answers sent whose reader has not taken them yet (their connection is kept
    /// open until it has, or hangs up: the bytes are the compositor's meanwhile).
    private var unreadScreenshots: [Int32: (fd: SharedDescriptor, bytes: Int, since: UInt64)] = [:]
    /// How long a screenshot answer is counted unread before its connection is closed (ms).
    public static let unreadScreenshotTimeout: UInt64 = 30_000
    /// Whether each peer process recently connecting was found to be the compositor's app
    /// (pid → answer, when): a flood from one process walks its ancestry once a second.
    private var peerClasses: [Int32: (app: Bool, at: UInt64)] = [:]

    /// The listening socket systemd passed (`LISTEN_FDS`, `LISTEN_PID`: socket activation, as
    /// `sd_listen_fds` reads it), with its path: taken once (the variables are unset, so the
    /// apps do not see them, and the descriptor is not inherited by them).
    public static func takeActivatedSocket() -> (fd: Int32, path: String)? {
        defer { for v in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(v) } }
        guard let pid = Files.environment("LISTEN_PID").flatMap({ Int32($0) }), pid == getpid(),
              let n = Files.environment("LISTEN_FDS").flatMap({ Int($0) }), n >= 1 else { return nil }
        let fd: Int32 = 3
        var listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening == 1 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return (fd, UnixSocket.localPath(fd) ?? "(socket activation)")
    }

    /// Listens at `path` (replacing a stale socket there; mode 0600, or 0660 for `group`), or on
    /// `activated`, the socket systemd passed (`takeActivatedSocket`). A group the socket cannot
    /// be given to leaves it the owner's (0600), said in the log: the compositor never runs
    /// without its control socket.
    public init(path: String, group: gid_t?, compositor: Compositor, handlers: Handlers, logger: Logger, activated: Int32? = nil) throws {
        self.activated = activated != nil
        if let activated {
            socket = SharedDescriptor(FileDescriptor(taking: activated))
        } else {
            socket = SharedDescriptor(try Self.listen(path: path, group: group, logger: logger))
        }
        timer = try TimerDescriptor()
        self.path = path
        self.group = self.activated ? nil : group
        self.compositor = compositor
        self.handlers = handlers
        self.logger = logger
        compositor.watch(socket.rawValue) { [weak self] in self?.accept() }
        compositor.watch(timer.fd.rawValue) { [weak self] in
            guard let self else { return }
            _ = self.timer.acknowledge()
            self.expire()
        }
    }

    /// A new socket at `path`, 0600, or 0660 for `group` when it can be given to it.
    private static func listen(path: String, group: gid_t?, logger: Logger) throws -> FileDescriptor {
        if Files.exists(path) {
            // A live compositor's socket is never taken over.
            if (try? UnixSocket.connect(path: path)) != nil { throw CompositorError("control socket \(path) belongs to a running compositor") }
            Files.remove(path)
        }
        let old = umask(0o177)
        defer { umask(old) }
        // Bound under another name and renamed once it listens: whoever sees the socket can
        // connect to it.
        let pending = "\(path).\(getpid()).new"
        Files.remove(pending)
        let socket = try UnixSocket.listen(path: pending, backlog: 64)
        if let group, chown(pending, getuid(), group) != 0 || chmod(pending, 0o660) != 0 {
            // (Only a member of the group may give it a file: the owner keeps it alone.)
            let name = getgrgid(group).map { String(cString: $0.pointee.gr_name) } ?? "\(group)"
            logger.warning("control socket \(path) kept to its owner (0600): it cannot be given to group \(name) (\(String(cString: strerror(errno)))): the compositor's user is not in that group; use the unit's diptych-ctl.socket (SocketGroup=) instead")
            _ = chmod(pending, 0o600)
        }
        guard rename(pending, path) == 0 else {
            Files.remove(pending)
            throw CompositorError("control socket \(path): \(String(cString: strerror(errno)))")
        }
        return socket
    }

    private func rearm() {
        let oldest = connections.values.map(\.since).min()
        do { try timer.arm(atNanoseconds: oldest.map { ($0 + Self.requestTimeout) * 1_000_000 + 1 } ?? 0) } catch {
            logger.error("control: cannot arm its timer", metadata: ["error": "\(error)"])
        }
    }

    deinit { if !activated { Files.remove(path) } }

    /// Takes the waiting connections, a few a turn (past the limit, the oldest is closed).
    private func accept() {
        let now = MonotonicClock.milliseconds
        for _ in 0..<Self.acceptsPerTurn {
            guard let taken = try? UnixSocket.accept(socket.rawValue) else { return }
            guard (try? taken.setNonBlocking()) != nil else { taken.close(); continue }
            let fd = SharedDescriptor(taken), raw = fd.rawValue
            guard let peer = try? UnixSocket.peerCredentials(raw) else {
                reply(raw, ["ok": .bool(false), "error": .string("cannot tell who connected")])
                continue
            }
            // The apps run as the compositor's user: a peer of another uid (root, an operator
            // of the group) is none of them, and its processes may be hidden from the
            // compositor (the unit's ProtectProc=invisible), so its ancestry is not walked.
            let app = peer.uid == getuid() && isCompositorsApp(peer.pid, at: now)
            // Past its class's budget a connection is closed unanswered (an answer costs more).
            guard app ? appConnectBudget.take(Self.appsKey, at: now) : connectBudget.take(peer.uid, at: now) else {
                warnOverBudget(app: app, uid: peer.uid)
                continue
            }
            if let why = refusal(uid: peer.uid, gid: peer.gid, app: app) {
                reply(raw, ["ok": .bool(false), "error": .string(why)])
                continue
            }
            // At the limit, a user's new connection takes the place of its own oldest, never
            // another user's (a flood evicts only itself).
            if connections.count >= Self.connectionLimit {
                guard let oldest = connections.filter({ $0.value.uid == peer.uid }).min(by: { $0.value.since < $1.value.since })?.key else {
                    reply(raw, ["ok": .bool(false), "error": .string("the compositor is busy with other control connections; try again")])
                    continue
                }
                drop(oldest)
            }
            connections[raw] = (fd, [], now, peer.uid)
            compositor.watch(raw) { [weak self] in self?.read(raw) }
        }
    }

    private var lastBudgetWarning: UInt64 = 0
    private func warnOverBudget(app: Bool, uid: UInt32) {
        let now = MonotonicClock.milliseconds
        guard now >= lastBudgetWarning + 10_000 else { return }
        lastBudgetWarning = now
        logger.warning("control: connections closed unanswered: \(app ? "the compositor's apps connect" : "a user connects") too often", metadata: ["client.uid": "\(uid)"])
    }

    /// Why a peer may not control the compositor (nil: it may).
    private func refusal(uid: UInt32, gid: UInt32, app: Bool) -> String? {
        // (A socket systemd made lets in whom its mode and group let in.)
        if !activated, uid != getuid() && uid != 0 && group.map({ gid != $0 && !Self.isMember(uid: uid, of: $0) }) ?? true {
            return "user \(uid) may not control this compositor"
        }
        if app { return "a process the compositor launched (or one of its children) may not control it" }
        return nil
    }

    /// Whether `pid` is one of the compositor's apps or descends from one (or from the
    /// compositor: its apps' orphans are re-parented to it). Fails closed: a process whose
    /// ancestry cannot be read to its end (it went, or it is over 64 deep) counts as an app.
    private func isCompositorsApp(_ pid: Int32, at now: UInt64) -> Bool {
        if let known = peerClasses[pid], now < known.at + 1000 { return known.app }
        let apps = Set(compositor.launchedProcessIDs), me = getpid()
        var answer = true
        var p = pid
        // A process the user's service manager started (`systemd-run --user`) is outside the
        // apps' tree but may be theirs: it is refused like them.
        // (Unless the compositor runs under that manager itself: a developer's desktop.)
        if !Self.runsUnderUserManager, let cgroup = try? Files.read("/proc/\(pid)/cgroup", limit: 4096),
           String(decoding: cgroup, as: UTF8.self).contains("/user@\(getuid()).service") {
            p = 0
        }
        walk: for _ in 0..<64 {
            if p <= 0 { break walk }  // not in this namespace: unknown, refused
            if apps.contains(p) || p == me { break walk }
            if p == 1 { answer = false; break walk }
            guard let parent = ProcessMemory.parent(of: p) else { break walk }
            p = parent
        }
        if peerClasses.count >= 64 { peerClasses = peerClasses.filter { now < $0.value.at + 1000 } }
        if peerClasses.count < 64 { peerClasses[pid] = (answer, now) }
        return answer
    }

    /// Whether the compositor itself runs under its user's service manager.
    private static let runsUnderUserManager: Bool = {
        guard let cgroup = try? Files.read("/proc/self/cgroup", limit: 4096) else { return false }
        return String(decoding: cgroup, as: UTF8.self).contains("/user@\(getuid()).service")
    }()

    private static func isMember(uid: uid_t, of group: gid_t) -> Bool {
        guard let pw = getpwuid(uid), let gr = getgrgid(group) else { return false }
        var member = gr.pointee.gr_mem
        while let m = member?.pointee {
            if strcmp(m, pw.pointee.pw_name) == 0 { return true }
            member = member?.advanced(by: 1)
        }
        return false
    }

    /// Reads what a connection sent: a whole line is its request.
    private func read(_ fd: Int32) {
        guard var c = connections[fd] else { return }
        guard let r = try? UnixSocket.receive(fd, capacity: Self.requestLimit, nonBlocking: true) else { return }
        // A descriptor sent with a request is refused, and closed off the loop (the close of
        // one on a FUSE file waits for its server).
        for extra in r.descriptors { FileDescriptor.closeForeign(extra) }
        if !r.descriptors.isEmpty || r.descriptorsTruncated { return fail(fd, "a request carries no descriptors") }
        if r.endOfStream { return drop(fd) }
        c.bytes += r.bytes
        connections[fd] = c
        let newline = c.bytes.firstIndex(of: 10)
        if (newline ?? c.bytes.count) > Self.requestLimit { return fail(fd, "a request is one line of at most \(Self.requestLimit) bytes") }
        guard let newline else { return }
        let line = String(decoding: c.bytes[..<newline], as: UTF8.self)
        guard let words = (try? JSONValue.parse(line))?.arrayValue?.compactMap(\.stringValue), !words.isEmpty else {
            return fail(fd, "a request is a JSON array of strings: the command and its arguments")
        }
        logger.info("control", metadata: ["command": "\(words[0].escapedForLog)"])
        if words[0] == "screenshot" {
            let screen = words.count > 1 ? Int(words[1]) ?? 1 : 1
            if let why = screenshotRefusal(uid: c.uid) {
                reply(fd, ["ok": .bool(false), "error": .string(why)])
                return drop(fd)
            }
            guard let size = handlers.screenSize(screen) else {
                reply(fd, ["ok": .bool(false), "error": .string("there is no screen \(screen)")])
                return drop(fd)
            }
            // Composited straight into the memfd the reader maps: no copy of the frame.
            let stride = size.width * 4, length = stride * size.height
            do {
                let memfd = try FileDescriptor.memfd(name: "diptych-screenshot", size: length)
                let map = try MemoryMapping(fd: memfd, length: length, writable: true)
                let image = PixelImage(mapping: map, offset: 0, width: size.width, height: size.height, stride: stride, format: .xrgb8888)
                guard handlers.screenshot(screen, image) else {
                    reply(fd, ["ok": .bool(false), "error": .string("there is no screen \(screen)")])
                    return drop(fd)
                }
                try memfd.addSeals([.shrink, .grow, .seal])
                reply(fd, ["ok": .bool(true), "width": .int(size.width), "height": .int(size.height), "stride": .int(stride)], descriptor: memfd.rawValue)
            } catch {
                return fail(fd, "cannot share the screenshot: \(error)")
            }
            // Kept open until its reader took the answer (or went): its bytes count till then.
            if let c = connections.removeValue(forKey: fd) {
                compositor.unwatch(fd)
                unreadScreenshots[fd] = (c.fd, length, MonotonicClock.milliseconds)
            }
            return
        }
        // Answered now or later: the connection no longer reads nor times out meanwhile (the
        // command bounds its own time), and is closed once answered.
        compositor.unwatch(fd)
        waiting[fd] = connections.removeValue(forKey: fd)?.fd
        handlers.command(words) { [weak self] result in
            guard let self, self.waiting[fd] != nil else { return }
            switch result {
            case .success(let output): self.reply(fd, ["ok": .bool(true), "output": .string(output)])
            case .failure(let e): self.reply(fd, ["ok": .bool(false), "error": .string(e.message), "usage": .bool(e.usage)])
            }
            self.waiting[fd] = nil
        }
    }

    /// Why a screenshot may not be taken now (nil: it may).
    private func screenshotRefusal(uid: UInt32) -> String? {
        forgetReadScreenshots()
        let unread = unreadScreenshots.values.reduce(0) { $0 + $1.bytes }
        if unread > 0, unread >= Self.unreadScreenshotLimit {
            return "\(unreadScreenshots.count) screenshots sent are not read yet (\(unread >> 20) MiB); try again once they are"
        }
        guard screenshotBudget.take(uid, at: MonotonicClock.milliseconds) else {
            return "at most \(Self.screenshotsPerSecond) screenshots a second (after \(Self.screenshotBurst) at once); try again"
        }
        return nil
    }

    /// Closes the screenshot connections whose reader took the answer, or went away.
    private func forgetReadScreenshots() {
        let now = MonotonicClock.milliseconds
        for (fd, s) in unreadScreenshots where UnixSocket.unreadBytes(fd) <= 0 || now >= s.since + Self.unreadScreenshotTimeout {
            unreadScreenshots[fd] = nil
        }
    }

    /// The bytes of screenshots sent and not read yet.
    public var unreadScreenshotBytes: Int {
        forgetReadScreenshots()
        return unreadScreenshots.values.reduce(0) { $0 + $1.bytes }
    }

    private func fail(_ fd: Int32, _ message: String) {
        reply(fd, ["ok": .bool(false), "error": .string(message), "usage": .bool(true)])
        drop(fd)
    }

    private func reply(_ fd: Int32, _ fields: KeyValuePairs<String, JSONValue>, descriptor: Int32? = nil) {
        let line = JSONValue.object(fields.map { ($0.key, $0.value) }).serialized + "\n"
        _ = try? UnixSocket.send(fd, Array(line.utf8)[...], descriptors: descriptor.map { [$0] } ?? [], nonBlocking: true)
    }

    private func drop(_ fd: Int32) {
        guard let c = connections.removeValue(forKey: fd) else { return }
        compositor.unwatch(c.fd.rawValue)
    }

    /// Drops the connections that sent no whole request in time.
    private func expire() {
        let now = MonotonicClock.milliseconds
        for (fd, c) in connections where now - c.since >= Self.requestTimeout { fail(fd, "no request within \(Self.requestTimeout) ms") }
        rearm()
    }
}

/// Why a control command was not carried out: a bad command (`usage`: exit 2) or a failure.
public struct ControlError: Error {
    public var message: String
    public var usage: Bool
    public init(_ message: String, usage: Bool = false) {
        self.message = message
        self.usage = usage
    }
}

// SPDX-License-Identifier: MIT
// The control socket (`diptych ctl`): an operator asks a running compositor for its status, a
// screenshot or its statistics, or to change its orientation or arrangement or restart an app.
// One request a connection, a line of JSON (an array of strings: the command and its
// arguments), answered by a line of JSON (`{"ok":true,"output":…}` or `{"ok":false,"error":…}`;
// a screenshot's pixels travel beside it in a sealed memfd). Bounded as the app socket is: at
// most `connectionLimit` at once, `requestLimit` bytes a request, `requestTimeout` ms to send
// it; a connection from a process the compositor launched (or one of its descendants) is
// refused, as is one from another user unless the operators' group may connect.

import DiptychCore
import DiptychImage
import DiptychLinux
import Glibc
import Logging

public final class ControlServer {
    public static let connectionLimit = 4
    public static let requestLimit = 4096
    public static let requestTimeout: UInt64 = 2000

    /// What the server asks of its owner: the answer to a command (its output, or an error
    /// message; given to `answer` at once or later, as `set-app` does once the new app said
    /// hello), and a screenshot's pixels.
    public struct Handlers {
        public typealias Answer = (Result<String, ControlError>) -> Void
        public var command: (_ words: [String], _ answer: @escaping Answer) -> Void
        public var screenshot: (_ screen: Int) -> PixelImage?
        public init(command: @escaping ([String], @escaping Answer) -> Void, screenshot: @escaping (Int) -> PixelImage?) {
            self.command = command
            self.screenshot = screenshot
        }
    }

    public let path: String
    private let socket: SharedDescriptor
    private let handlers: Handlers
    private let compositor: Compositor
    private let group: gid_t?
    private let logger: Logger
    private var connections: [Int32: (fd: SharedDescriptor, bytes: [UInt8], since: UInt64)] = [:] { didSet { rearm() } }
    /// Connections whose request is being carried out, to be answered.
    private var waiting: [Int32: SharedDescriptor] = [:]
    /// Wakes the loop when the oldest connection's time is up (the loop has no idle wake-ups).
    private let timer: TimerDescriptor

    /// Listens at `path` (replacing a stale socket there; mode 0600, or 0660 for `group`).
    public init(path: String, group: gid_t?, compositor: Compositor, handlers: Handlers, logger: Logger) throws {
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
        socket = SharedDescriptor(try UnixSocket.listen(path: pending, backlog: 8))
        if let group {
            guard chown(pending, getuid(), group) == 0, chmod(pending, 0o660) == 0 else {
                Files.remove(pending)
                throw CompositorError("control socket \(path): cannot give it to group \(group): \(String(cString: strerror(errno)))")
            }
        }
        guard rename(pending, path) == 0 else {
            Files.remove(pending)
            throw CompositorError("control socket \(path): \(String(cString: strerror(errno)))")
        }
        timer = try TimerDescriptor()
        self.path = path
        self.group = group
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

    private func rearm() {
        let oldest = connections.values.map(\.since).min()
        do { try timer.arm(atNanoseconds: oldest.map { ($0 + Self.requestTimeout) * 1_000_000 + 1 } ?? 0) } catch {
            logger.error("control: cannot arm its timer", metadata: ["error": "\(error)"])
        }
    }

    deinit { Files.remove(path) }

    /// Takes the waiting connections (past the limit, the oldest is closed).
    private func accept() {
        while let taken = try? UnixSocket.accept(socket.rawValue) {
            guard (try? taken.setNonBlocking()) != nil else { taken.close(); continue }
            let fd = SharedDescriptor(taken), raw = fd.rawValue
            if let why = refusal(of: raw) {
                reply(raw, ["ok": .bool(false), "error": .string(why)])
                continue
            }
            if connections.count >= Self.connectionLimit, let oldest = connections.min(by: { $0.value.since < $1.value.since })?.key {
                drop(oldest)
            }
            connections[raw] = (fd, [], MonotonicClock.milliseconds)
            compositor.watch(raw) { [weak self] in self?.read(raw) }
        }
    }

    /// Why a peer may not control the compositor (nil: it may).
    private func refusal(of fd: Int32) -> String? {
        guard let peer = try? UnixSocket.peerCredentials(fd) else { return "cannot tell who connected" }
        if peer.uid != getuid() && peer.uid != 0 && group.map({ peer.gid != $0 && !Self.isMember(uid: peer.uid, of: $0) }) ?? true {
            return "user \(peer.uid) may not control this compositor"
        }
        let apps = Set(compositor.launchedProcessIDs)
        var pid = peer.pid
        for _ in 0..<64 where pid > 1 {
            if apps.contains(pid) { return "a process the compositor launched (or one of its children) may not control it" }
            guard let parent = ProcessMemory.parent(of: pid) else { break }
            pid = parent
        }
        return nil
    }

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
        for extra in r.descriptors { Glibc.close(extra) }
        if r.endOfStream { return drop(fd) }
        c.bytes += r.bytes
        connections[fd] = c
        guard let newline = c.bytes.firstIndex(of: 10) else {
            if c.bytes.count > Self.requestLimit { fail(fd, "a request is one line of at most \(Self.requestLimit) bytes") }
            return
        }
        let line = String(decoding: c.bytes[..<newline], as: UTF8.self)
        guard let words = (try? JSONValue.parse(line))?.arrayValue?.compactMap(\.stringValue), !words.isEmpty else {
            return fail(fd, "a request is a JSON array of strings: the command and its arguments")
        }
        logger.info("control", metadata: ["command": "\(words[0].escapedForLog)"])
        if words[0] == "screenshot" {
            let screen = words.count > 1 ? Int(words[1]) ?? 1 : 1
            guard let image = handlers.screenshot(screen) else {
                reply(fd, ["ok": .bool(false), "error": .string("there is no screen \(screen)")])
                return drop(fd)
            }
            do {
                let length = image.stride * image.height
                let memfd = try FileDescriptor.memfd(name: "diptych-screenshot", size: length)
                let map = try MemoryMapping(fd: memfd, length: length, writable: true)
                map.withUnsafeMutableBytes { dst in dst.copyMemory(from: UnsafeRawBufferPointer(start: image.bytes, count: length)) }
                try memfd.addSeals([.shrink, .grow, .seal])
                reply(fd, ["ok": .bool(true), "width": .int(image.width), "height": .int(image.height), "stride": .int(image.stride)], descriptor: memfd.rawValue)
            } catch {
                return fail(fd, "cannot share the screenshot: \(error)")
            }
            return drop(fd)
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

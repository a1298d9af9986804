// SPDX-License-Identifier: MIT
// Connections to the listening socket, held to what an app that has not said hello may cost:
// at most `helloWaitLimit` of them at a time (the oldest is closed for a new one), each closed
// if it has not said hello within `helloTimeout`; a full descriptor table does not make the
// loop spin (a reserve descriptor is given up to take and close the connection, or the listener
// rests a second); and the lines this can log are rate-limited.

import DiptychCore
import DiptychLinux
import DiptychWire
import Glibc
import Logging

extension Compositor {
    /// The most connections waiting to say hello at once (launched apps, whose role is
    /// reserved, are not counted).
    public static let helloWaitLimit = 16
    /// How long a connection may take to say hello (milliseconds).
    public static let helloTimeout: UInt64 = 2000

    static func openReserve() -> Int32 { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// Takes every pending connection. Only the compositor's own user may connect.
    func accept() {
        guard let listener else { return }
        while true {
            let fd: FileDescriptor?
            do {
                fd = try UnixSocket.accept(listener.rawValue)
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE {
                    if !shedConnection(listener.rawValue) { return }
                    continue
                }
                warnLimited("accept", "system error: accept failed", ["error": "\(error)"])
                return
            }
            guard let fd else { return }
            let id = newClientID()
            let session: ClientSession
            do { session = try register(fd, id: id, role: nil, label: "\(id)") } catch {
                warnLimited("watch", "system error: cannot watch a client", ["error": "\(error)"])
                continue
            }
            session.connectedAt = MonotonicClock.milliseconds
            logger.debug("client connected", metadata: ["client.id": "\(id)", "client.pid": "\(session.connection.credentials?.pid ?? -1)"])
            // Only the compositor's own user may connect (SO_PEERCRED), whatever the socket's
            // permissions say.
            let uid = session.connection.credentials?.uid
            if uid != getuid() {
                session.fail(ProtocolError(.badState, "connections from uid \(uid.map(String.init) ?? "unknown") are refused; this compositor runs as uid \(getuid())"))
                continue
            }
            let waiting = helloWaiting
            if waiting.count > Self.helloWaitLimit, let oldest = waiting.first {
                oldest.fail(ProtocolError(.badState, "more than \(Self.helloWaitLimit) connections are waiting to say hello: the oldest is closed"))
            }
        }
    }

    /// The descriptor table is full: the reserve is given up to take one connection and close
    /// it at once (the listener then stops reporting it), and taken again. Without a reserve
    /// the listener rests for a second. Returns whether to go on accepting: only when one was
    /// taken (accept reports a full table even when no connection waits).
    private func shedConnection(_ listener: Int32) -> Bool {
        warnLimited("emfile", "system error: out of file descriptors: connections are refused", ["limit.waiting_for_hello": "\(Self.helloWaitLimit)"])
        guard reserveDescriptor >= 0 else {
            pauseListener()
            return false
        }
        Glibc.close(reserveDescriptor)
        reserveDescriptor = -1
        var took = false
        if let taken = try? UnixSocket.accept(listener) {
            taken.close()
            took = true
        }
        reserveDescriptor = Self.openReserve()
        if reserveDescriptor < 0 {
            pauseListener()
            return false
        }
        return took
    }

    private func pauseListener() {
        guard let listener, listenerPausedUntil == nil else { return }
        loop.remove(listener.rawValue)
        listenerPausedUntil = MonotonicClock.milliseconds + 1000
    }

    /// Reaps launched apps that exited (no zombie is left): each whose connection is gone is
    /// asked, without waiting, until it has.
    func reapLaunchedApps() {
        guard relaunch != .never else {
            for app in launcher.apps where sessions[app.client] == nil { app.process.poll() }
            return
        }
        superviseLaunchedApps()
    }

    /// Connections that have not said hello (launched apps aside), oldest first.
    var helloWaiting: [ClientSession] {
        sessions.values.filter { $0.name == nil && $0.launchRole == nil }.sorted { $0.id.rawValue < $1.id.rawValue }
    }

    /// Closes connections that did not say hello in time, and watches a rested listener again.
    func enforceHelloDeadlines() {
        let now = MonotonicClock.milliseconds
        for c in helloWaiting where now >= c.connectedAt + Self.helloTimeout {
            c.fail(ProtocolError(.badState, "no hello within \(Self.helloTimeout) ms of connecting"))
        }
        if let until = listenerPausedUntil, now >= until, let listener {
            listenerPausedUntil = nil
            if reserveDescriptor < 0 { reserveDescriptor = Self.openReserve() }
            do { try loop.add(listener.rawValue, token: LoopToken.listener.rawValue) } catch {
                listenerPausedUntil = now + 1000
            }
        }
    }

    /// The next time a connection's hello is due or the listener comes back (monotonic ms).
    var nextConnectionDeadline: UInt64? {
        let hello = helloWaiting.map { $0.connectedAt + Self.helloTimeout }.min()
        return [hello, listenerPausedUntil].compactMap { $0 }.min()
    }

    /// Logs a warning of a kind that could repeat without bound: a few per ten seconds, then
    /// how many were held back.
    func warnLimited(_ kind: String, _ message: Logger.Message, _ metadata: Logger.Metadata = [:]) {
        let (allowed, held) = logLimiter.allow(kind, now: MonotonicClock.milliseconds)
        guard allowed else { return }
        var m = metadata
        if held > 0 { m["log.held_back"] = "\(held)" }
        logger.warning(message, metadata: m)
    }
}

extension Compositor {
    /// Descriptors were lost because the table is full: the connections that have not said
    /// hello are closed to make room, and it is said (rate-limited).
    func descriptorTableFull() {
        warnLimited("ctrunc", "system error: out of file descriptors: a client's descriptors were lost; closing connections that have not said hello")
        for c in helloWaiting { c.fail(ProtocolError(.badState, "the compositor is out of file descriptors")) }
    }
}

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

/// The listening socket with its lock (the socket's name is this compositor's while it runs),
/// and what keeps a full descriptor table from making the loop spin: a reserve descriptor given
/// up to take one connection and close it, or else a rest of a second without watching it.
final class Listener {
    let socket: SharedDescriptor
    private let lock: SocketLock
    private var reserve: Int32
    /// While the table is full, the socket is not watched until this time (monotonic ms).
    private(set) var pausedUntil: UInt64?

    /// Listens at `path` (nil: the first free default name).
    init(path: String?) throws {
        if let path {
            guard let l = try SocketLock.claim(path) else { throw CompositorError("socket \(path) belongs to a running compositor") }
            lock = l
        } else {
            lock = try SocketLock.claimDefault()
        }
        socket = SharedDescriptor(try UnixSocket.listen(path: lock.path))
        reserve = Self.openReserve()
    }

    deinit { if reserve >= 0 { Glibc.close(reserve) } }

    var path: String { lock.path }

    private static func openReserve() -> Int32 { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// The table is full: the reserve is given up to take one connection and close it at once
    /// (the socket then stops reporting it), and taken again. Returns whether one was taken, and
    /// whether the socket must rest (no reserve to give up, or none to be had again).
    func shed(at now: UInt64) -> (took: Bool, rest: Bool) {
        guard reserve >= 0 else { return (false, pause(at: now)) }
        Glibc.close(reserve)
        reserve = -1
        var took = false
        if let taken = try? UnixSocket.accept(socket.rawValue) {
            taken.close()
            took = true
        }
        reserve = Self.openReserve()
        if reserve < 0 { return (took, pause(at: now)) }
        return (took, false)
    }

    /// Rests a second from `now` (or until `until`); whether it was not resting already (so the
    /// loop stops watching it).
    func pause(at now: UInt64, until: UInt64? = nil) -> Bool {
        guard pausedUntil == nil else { return false }
        pausedUntil = until ?? now + 1000
        return true
    }

    /// Whether its rest is over at `now` (the loop watches it again; the reserve is taken again).
    func restOver(at now: UInt64) -> Bool {
        guard let until = pausedUntil, now >= until else { return false }
        pausedUntil = nil
        if reserve < 0 { reserve = Self.openReserve() }
        return true
    }

    /// The loop could not watch it again: another second's rest.
    func restAgain(at now: UInt64) { pausedUntil = now + 1000 }
}

extension Compositor {
    /// The most connections waiting to say hello at once (launched apps, whose role is
    /// reserved, are not counted).
    public static let helloWaitLimit = 16
    /// How long a connection may take to say hello (milliseconds).
    public static let helloTimeout: UInt64 = 2000

    /// Connections taken per turn of the loop (libwayland takes one per wake-up): a flood of
    /// connects waits in the socket's backlog, and frames go on between them.
    public static let acceptsPerTurn = 1
    /// Connections one user may make at once, and a second after that (`ConnectBudget`).
    public static let connectBurst = 32
    public static let connectsPerSecond = 32

    /// Takes a pending connection (at most `acceptsPerTurn` a turn). Only the compositor's own
    /// user may connect, at most `connectsPerSecond` times a second after a burst of
    /// `connectBurst`: a connection over that is told so and closed, and the listener rests
    /// until the user may connect again.
    func accept() {
        guard let listener else { return }
        var taken = 0
        while taken < Self.acceptsPerTurn {
            let fd: FileDescriptor?
            do {
                fd = try UnixSocket.accept(listener.socket.rawValue)
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE {
                    if !shedConnection(listener) { return }
                    continue
                }
                warnLimited("accept", "system error: accept failed", ["error": "\(error)"])
                return
            }
            guard let fd else { return }
            taken += 1
            let now = policyClock.milliseconds
            let peer = try? UnixSocket.peerCredentials(fd.rawValue)
            // Only the compositor's own user spends its budget (another user is refused below,
            // and cannot make the listener rest for it).
            if let uid = peer?.uid, uid == getuid(), !admission.connectBudget.take(uid, at: now) {
                refuseOverBudget(fd, uid: uid, listener: listener, at: now)
                continue
            }
            let id = clients.newClientID()
            let session: ClientSession
            do { session = try register(fd, id: id, role: nil, label: "\(id)") } catch {
                warnLimited("watch", "system error: cannot watch a client", ["error": "\(error)"])
                continue
            }
            logger.debug("client connected", metadata: ["client.id": "\(id)", "client.pid": "\(session.connection.credentials?.pid ?? -1)"])
            // Only the compositor's own user may connect (SO_PEERCRED), whatever the socket's
            // permissions say.
            if peer?.uid != getuid() {
                session.fail(ProtocolError(.badState, "connections from uid \(peer.map { String($0.uid) } ?? "unknown") are refused; this compositor runs as uid \(getuid())"))
                continue
            }
            if let oldest = admission.helloGate.connected(id.rawValue, at: now) {
                clients[ClientID(rawValue: oldest)]?.fail(ProtocolError(.badState, "more than \(Self.helloWaitLimit) connections are waiting to say hello: the oldest is closed"))
            }
        }
    }

    /// A connection over its user's budget: told why (if its socket takes it now) and closed,
    /// with no session built; the listener rests until the user may connect again, so a flood
    /// cannot make the loop spin.
    private func refuseOverBudget(_ fd: consuming FileDescriptor, uid: UInt32, listener: Listener, at now: UInt64) {
        let error = ProtocolError(
            .badState, "uid \(uid) connected more than \(Self.connectsPerSecond) times a second (after \(Self.connectBurst) at once): this connection is closed")
        _ = try? UnixSocket.send(fd.rawValue, ArraySlice(ServerEvent.error(error).encoded()), nonBlocking: true)
        fd.close()
        warnLimited("connect-budget", "connections refused: a user connects too often", ["client.uid": "\(uid)"])
        if listener.pause(at: now, until: admission.connectBudget.nextToken(uid, at: now)) { loop.remove(listener.socket.rawValue) }
    }

    /// The descriptor table is full: one connection is taken and closed (see `Listener.shed`),
    /// or the listener rests a second. Returns whether to go on accepting: only when one was
    /// taken (accept reports a full table even when no connection waits).
    private func shedConnection(_ listener: Listener) -> Bool {
        warnLimited("emfile", "system error: out of file descriptors: connections are refused", ["limit.waiting_for_hello": "\(Self.helloWaitLimit)"])
        let (took, rest) = listener.shed(at: policyClock.milliseconds)
        if rest { loop.remove(listener.socket.rawValue) }
        return took && listener.pausedUntil == nil
    }

    /// Reaps launched apps that exited (no zombie is left): each whose connection is gone is
    /// asked, without waiting, until it has.
    /// Reaps the exited children that are no launched app's (orphans of the apps' trees,
    /// adopted because `run` is a child subreaper).
    public func reapOrphans() {
        supervision.orphansReapedAt = policyClock.milliseconds
        if Orphans.adopting { Orphans.reap(except: Set(launchedProcessIDs)) }
    }

    func reapLaunchedApps() {
        superviseReplacements()
        favourTheUsersApps()
        // The apps' orphans that the compositor adopted, at least once a second (and at once
        // on SIGCHLD in `run`).
        if policyClock.milliseconds >= supervision.orphansReapedAt + 1000 { reapOrphans() }
        guard supervision.relaunches else {
            // (Kept in the launcher: a render or a scenario names an app that went away.)
            for app in launcher.apps where app.standing == .current && clients[app.client] == nil && app.process.exitStatus == nil {
                guard let status = app.process.poll() else { continue }
                let how = status >= 128 ? "killed by signal \(status - 128)" : "exited with status \(status)"
                logger.info("launched app ended; not relaunched", metadata: ["client.role": "\(app.role.rawValue)", "exit": "\(how)"])
            }
            return
        }
        superviseLaunchedApps()
    }

    /// Connections that have not said hello (launched apps aside), oldest first.
    var helloWaiting: [ClientSession] { admission.helloGate.ids.compactMap { clients[ClientID(rawValue: $0)] } }

    /// Closes connections that did not say hello in time, and watches a rested listener again.
    func enforceHelloDeadlines() {
        let now = policyClock.milliseconds
        for id in admission.helloGate.overdue(at: now) {
            clients[ClientID(rawValue: id)]?.fail(ProtocolError(.badState, "no hello within \(Self.helloTimeout) ms of connecting"))
        }
        if let listener, listener.restOver(at: now) {
            do { try loop.add(listener.socket.rawValue, token: LoopToken.listener.rawValue) } catch {
                listener.restAgain(at: now)
            }
        }
    }

    /// The next time a connection's hello is due or the listener comes back (monotonic ms).
    var nextConnectionDeadline: UInt64? {
        [admission.nextDeadline, listener?.pausedUntil].compactMap { $0 }.min()
    }

    /// Logs a warning of a kind that could repeat without bound: a few per ten seconds, then
    /// how many were held back.
    func warnLimited(_ kind: String, _ message: Logger.Message, _ metadata: Logger.Metadata = [:]) {
        let (allowed, held) = logLimiter.allow(kind, now: policyClock.milliseconds)
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

// SPDX-License-Identifier: MIT
// The connected apps by id, the numbers the compositor hands out to them (client ids,
// configure and sync serials, image ids, commit stamps), the sessions with events waiting to be
// written, and what became of the apps that left. Confined to the compositor's thread.

import DiptychCore
import DiptychLinux
import DiptychWire

final class ClientRegistry: Timed {
    /// Oldest first. A compositor has a few apps (two on screen, at most `helloWaitLimit`
    /// waiting to say hello): looked up by a walk, in the order they came. Changed only by
    /// assigning a new list (an app comes or goes), so no change holds the list across a call
    /// the optimizer cannot see into: it then proves every look-up exclusive at compile time,
    /// where a list changed in place would be checked at run time on each of a frame's dozen.
    private var sessions: [ClientSession] = []
    private(set) var nextClientID: UInt64 = 100
    private var nextSerial: UInt32 = 1
    private var nextSync: UInt32 = 1
    private var nextImageID: UInt64 = 1
    /// Commits of every app so far, counted together: an app's last commit is stamped with it.
    private(set) var commitCount: UInt64 = 0
    /// Why an app launched for a role went away, for error messages.
    private(set) var disconnections: [Role: String] = [:]
    /// The most recent protocol errors sent (client label and error), oldest first; at most
    /// `protocolErrorLimit` are kept, however long the compositor runs.
    private(set) var protocolErrors: [(client: String, error: ProtocolError)] = []
    static let protocolErrorLimit = 64
    /// When the last round trip with every app began (monotonic ns).
    private(set) var roundTripStart: UInt64 = 0

    subscript(id: ClientID) -> ClientSession? { sessions.first { $0.id == id } }

    /// Every connected app's session, oldest first.
    var all: [ClientSession] { sessions }
    var inOrder: [ClientSession] { sessions }

    /// When the next idle buffer lets its pages go (monotonic ms, the compositor's clock when
    /// live), if any holds them.
    var nextDeadline: UInt64? { sessions.compactMap(\.buffers.nextPageDrop).min() }

    /// Lets the pages of buffers no place has read for a while go (`BufferTable.idleHold`).
    func dropIdlePages() {
        let now = MonotonicClock.milliseconds
        for s in sessions { s.dropIdlePages(now: now) }
    }

    /// Ids only grow: a new session goes last.
    func add(_ session: ClientSession) { sessions = sessions + [session] }

    /// `session` ended (`end`): it is forgotten, and why it went is kept.
    func remove(_ session: ClientSession, _ end: SessionEnd) {
        sessions = sessions.filter { $0 !== session }
        if case .violation(let error) = end { protocolErrors.push((session.label, error), keeping: Self.protocolErrorLimit) }
        if let role = session.launchRole { disconnections[role] = end.description }
    }

    func newClientID() -> ClientID {
        defer { nextClientID += 1 }
        return ClientID(rawValue: nextClientID)
    }

    func newSerial() -> UInt32 {
        defer { nextSerial &+= 1 }
        return nextSerial
    }

    func newSync() -> UInt32 {
        defer { nextSync &+= 1 }
        return nextSync
    }

    /// The blurred pictures made for drags: how many, and the time they took (ns).
    private(set) var blurs = (count: 0, nanoseconds: UInt64(0))

    /// Makes `c`'s blurred copy of `image` (the live surface when nil) unless there is one,
    /// timing it.
    func blur(_ c: ClientSession, _ image: HeldImage?, factor: Int) {
        let t0 = MonotonicClock.nanoseconds
        guard c.blur(image, factor: factor, id: newImageID) else { return }
        blurs.count += 1
        blurs.nanoseconds += MonotonicClock.nanoseconds - t0
    }

    func newImageID() -> UInt64 {
        defer { nextImageID += 1 }
        return nextImageID
    }

    func roundTripStarted(at nanoseconds: UInt64) { roundTripStart = nanoseconds }

    /// Counts a commit; its stamp.
    func stampCommit() -> UInt64 {
        commitCount += 1
        return commitCount
    }

    /// Whether events wait to be written to an app (whose socket is not known to be full).
    var hasUnflushed: Bool { sessions.contains { $0.connection.needsFlush } }

    /// Writes every session's queued events: one write per app for all its events since the
    /// last call. A session that fails to write closes, and what its end sends the others is
    /// written in another pass (each pass that needs another closed a session).
    func flush() {
        var closed = true
        while closed {
            closed = false
            for s in sessions where s.connection.needsFlush {
                s.flush()
                if !s.isOpen { closed = true }
            }
        }
    }
}

// SPDX-License-Identifier: MIT
// The events queued for one app and not yet written: their bytes, where the replaceable ones lie
// (an unwritten configure a newer one takes back), and the event-log lines waiting for their
// events to be written. A value owned by the connection, changed only through these calls.

import DiptychCore
import DiptychLinux
import DiptychWire

struct OutgoingQueue {
    private var bytes: [UInt8] = []
    /// Where the replaceable events lie in `bytes`, while unwritten.
    private var replaceable: Range<Int>?
    /// Lines for the event log of events queued and not yet written, each with where its event
    /// ends in `bytes`: a line goes to the log once its event is written, so the log says what
    /// the app was sent (never an event replaced before it went).
    private var unloggedLines: [(end: Int, line: String)] = []
    /// Where the events written are logged, one JSON line each (`sync` aside); nil: not logged.
    var eventLog: String?
    /// Events queued, and writes that sent the app bytes, since it opened.
    private(set) var eventsQueued = 0
    private(set) var writes = 0

    var isEmpty: Bool { bytes.isEmpty }
    var count: Int { bytes.count }

    /// Queues `event` for the app labelled `label`.
    mutating func append(_ event: ServerEvent, version: UInt16, label: String) {
        bytes += event.encoded(version: version)
        eventsQueued += 1
        if eventLog != nil, event.opcode != ServerEvent.sync(serial: 0, time: 0).opcode {
            let fields = [("app", JSONValue.string(label)), ("event", .string(event.name))] + event.jsonFields
            unloggedLines.append((bytes.count, JSONValue.object(fields).serialized))
        }
    }

    /// Marks what was queued from byte `start` on as the replaceable events.
    mutating func markReplaceable(from start: Int) {
        replaceable = bytes.count > start ? start..<bytes.count : nil
    }

    /// Takes back the replaceable events if none of their bytes was written; whether it did
    /// (they are then never sent, nor logged).
    mutating func withdrawReplaceable() -> Bool {
        guard let r = replaceable else { return false }
        bytes.removeSubrange(r)
        unloggedLines.removeAll { r.lowerBound < $0.end && $0.end <= r.upperBound }
        for i in unloggedLines.indices where unloggedLines[i].end > r.upperBound { unloggedLines[i].end -= r.count }
        replaceable = nil
        return true
    }

    /// Writes to `socket` until it would block or nothing is left. Returns whether the
    /// replaceable events began to be written (they can no longer be replaced).
    mutating func write(to socket: Int32) throws(SystemError) -> Bool {
        var replaceableWritten = false
        while !bytes.isEmpty {
            let n = try UnixSocket.send(socket, bytes[...], nonBlocking: true)
            if n == 0 { break }
            writes += 1
            bytes.removeFirst(n)
            logWritten(n)
            if let r = replaceable {
                // Begun to be written: they stay; else they move down with the rest.
                if n > r.lowerBound {
                    replaceable = nil
                    replaceableWritten = true
                } else {
                    replaceable = (r.lowerBound - n)..<(r.upperBound - n)
                }
            }
        }
        return replaceableWritten
    }

    /// Logs the lines of the events the last `n` bytes written completed.
    private mutating func logWritten(_ n: Int) {
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
}

// SPDX-License-Identifier: MIT
// What an app has been told of its pane and what it acknowledged: the configures queued,
// written and acked, by serial. A value: the session asks it what to send and tells it what
// was written and acked, and it never touches the socket.

import DiptychCore
import DiptychWire

struct ConfigureSerials {
    /// The last configure queued: what the app will have been told once it is written.
    private(set) var newest: Configure?
    /// The serials sent and not yet acked, oldest first (the newest `limit`: an app that never
    /// acks holds no more).
    private(set) var unacked: [UInt32] = []
    /// The newest serial the app acked.
    private(set) var acked: UInt32?
    /// The configure queued and not yet written: a newer one replaces it, so the superseded
    /// configure is never sent.
    private var unwritten: Configure?
    /// The newest configure written to the socket: what the app has been told.
    private var written: Configure?

    /// The most unacked serials remembered; an ack of an older one is late, and ignored like
    /// any late ack.
    static let limit = 16

    /// The events that tell the app `new` (with `sizeClassChanged` when a class changes), or
    /// nil when there is nothing to tell: its unwritten configure was withdrawn (`withdrew`)
    /// and what was written already says the same. Remembered as queued and unwritten.
    mutating func queue(_ new: Configure, withdrew: Bool) -> [ServerEvent]? {
        if withdrew, let old = unwritten {
            unacked.removeAll { $0 == old.serial }
            unwritten = nil
            newest = written
            if let told = written, told.pane == new.pane, told.arrangement == new.arrangement { return nil }
        }
        let told = newest
        newest = new
        unacked.push(new.serial, keeping: Self.limit)
        unwritten = new
        var events = [ServerEvent.configure(new)]
        if let told, told.horizontalSizeClass != new.horizontalSizeClass || told.verticalSizeClass != new.verticalSizeClass {
            events.append(.sizeClassChanged(
                horizontal: new.horizontalSizeClass, vertical: new.verticalSizeClass,
                previousHorizontal: told.horizontalSizeClass, previousVertical: told.verticalSizeClass))
        }
        return events
    }

    /// The queued configure began to be written: it can no longer be withdrawn.
    mutating func wrote() {
        written = unwritten
        unwritten = nil
    }

    /// `ack`: acks `serial` and every configure sent before it. An ack of a serial acked
    /// already, or too old to be remembered, is late and changes nothing; one of a serial
    /// never sent (newer than the newest configure) is an error.
    mutating func acknowledge(_ serial: UInt32) throws(ProtocolError) {
        if let i = unacked.firstIndex(of: serial) {
            unacked.removeFirst(i + 1)
            acked = serial
            return
        }
        // Serials only grow (wrapping): a serial at or before the newest configure's is late.
        if let newest = newest?.serial, Int32(bitPattern: newest &- serial) >= 0 { return }
        throw ProtocolError(.unknownSerial, "ack of serial \(serial), which was never sent in a configure")
    }
}

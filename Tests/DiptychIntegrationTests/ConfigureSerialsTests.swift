// SPDX-License-Identifier: MIT
// The configure bookkeeping as a value, without a socket: what is sent, what a newer configure
// replaces, which acks count.

import DiptychCore
@testable import DiptychServer
import DiptychWire
import Testing

struct ConfigureSerialsTests {
    static func configure(_ serial: UInt32, width: Int, _ sizeClass: SizeClass) -> Configure {
        let pane = Pane(
            role: .secondary, frame: Rect(x: 0, y: 0, width: width, height: 768), pixelWidth: width * 2, pixelHeight: 1536,
            horizontalSizeClass: sizeClass, verticalSizeClass: .regular)
        return Configure(serial: serial, pane: pane, orientation: .landscape, arrangement: .split23)
    }

    @Test func aClassChangeIsToldWithItsConfigure() throws {
        var c = ConfigureSerials()
        let first = c.queue(Self.configure(1, width: 700, .regular), withdrew: false)
        #expect(first?.count == 1)
        c.wrote()
        let told = c.queue(Self.configure(2, width: 320, .compact), withdrew: false)
        let events = try #require(told)
        #expect(events.count == 2)
        guard case .sizeClassChanged(let h, _, let previous, _) = events[1] else {
            Issue.record("expected sizeClassChanged, got \(events)")
            return
        }
        #expect(h == .compact && previous == .regular)
    }

    /// A configure still unwritten when a newer one comes is withdrawn: its serial is forgotten,
    /// and a newer one that says what was written already sends nothing.
    @Test func aWithdrawnConfigureIsReplacedOrDropped() throws {
        var c = ConfigureSerials()
        _ = c.queue(Self.configure(1, width: 700, .regular), withdrew: false)
        c.wrote()
        _ = c.queue(Self.configure(2, width: 320, .compact), withdrew: false)
        let same = c.queue(Self.configure(3, width: 700, .regular), withdrew: true)
        #expect(same == nil)
        #expect(c.newest?.serial == 1 && c.unacked == [1])
        let told = c.queue(Self.configure(4, width: 500, .compact), withdrew: true)
        let replaced = try #require(told)
        #expect(replaced.count == 2 && c.unacked == [1, 4])
    }

    @Test func acksCountOnceAndInOrder() throws {
        var c = ConfigureSerials()
        for s in UInt32(1)...3 { _ = c.queue(Self.configure(s, width: 700, .regular), withdrew: false) }
        try c.acknowledge(2)
        #expect(c.acked == 2 && c.unacked == [3])
        // Late: already acked, or older than the newest. Nothing changes.
        try c.acknowledge(1)
        #expect(c.acked == 2 && c.unacked == [3])
        #expect(throws: ProtocolError.self) { try c.acknowledge(9) }
    }

    @Test func anAppThatNeverAcksHoldsAtMostTheLimit() {
        var c = ConfigureSerials()
        for s in UInt32(1)...100 { _ = c.queue(Self.configure(s, width: 700, .regular), withdrew: false) }
        #expect(c.unacked.count == ConfigureSerials.limit && c.unacked.last == 100)
    }
}

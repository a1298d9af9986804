// SPDX-License-Identifier: MIT
// Hardening, round three: what a hostile (or careless) app can make the compositor do per
// message, per turn and per join is bounded, each bound asserted next to a well-behaved app
// that keeps its frames. No timing is asserted: the bounds themselves are.

import CLinuxShims
import DiptychCore
import DiptychLinux
@testable import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

extension Fixture {
    /// How many of `event` the app logging to `log` has received.
    func count(_ event: String, in log: String) -> Int {
        ((try? events(log)) ?? []).filter { $0["event"]?.stringValue == event }.count
    }

    /// A good animating primary, drawn.
    func goodPrimary() throws {
        try connect(["pattern:#00AA00", "--animate"], log: "good.jsonl")
        #expect(try compositor.run(timeoutMilliseconds: 20_000) { compositor.hasCommittedForConfigure(.primary) })
    }
}

struct HardeningRoundThreeTests {
    @Test func aDamageFloodStaysWithinItsBoundAndTheGoodAppKeepsItsFrames() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        let bad = try f.misbehave("damage-flood", log: "bad.jsonl", environment: ["DIPTYCH_FLOOD_COUNT": "1500"])
        var most = 0
        let framesBefore = f.count("frameDone", in: "good.jsonl")
        // Frames as fast as the loop turns: the pending damage is looked at before each.
        let flooded = try f.compositor.run(timeoutMilliseconds: 120_000) {
            most = max(most, f.compositor.main.pendingDamageRectangles)
            f.compositor.repaint()
            return (f.compositor.session(.secondary)?.commits ?? 0) >= 1501
        }
        #expect(flooded)
        #expect(most <= 64, "\(most) rectangles pending")
        // The good app is still there and still gets its frames.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= framesBefore + 10
        })
        #expect(f.compositor.isConnected(.primary) && f.compositor.isConnected(.secondary))
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(bad.poll() == nil)
    }

    @Test func joinAndLeaveChurnSendsTheGoodAppAHandfulOfConfigures() throws {
        // Split View: each app that joins takes the secondary's pane, narrowing the primary's.
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        let before = f.count("configure", in: "good.jsonl")
        let churn = try f.misbehave("churn", log: "churn.jsonl", environment: ["DIPTYCH_CHURN_COUNT": "400"])
        #expect(try f.compositor.run(timeoutMilliseconds: 120_000) {
            f.compositor.repaint()
            return churn.poll() != nil
        })
        #expect(churn.exitStatus == 0)
        // Every churning connection is gone; the good app has the screen again and draws.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return !f.compositor.isConnected(.secondary) && f.compositor.clients.all.count == 1
        })
        let framesAfter = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= framesAfter + 10
        })
        let configures = f.count("configure", in: "good.jsonl") - before
        #expect(configures <= 4, "the good app was sent \(configures) configures during 400 joins")
        // It acked what it was sent without error, and holds no pile of unacked serials.
        #expect(f.count("protocolError", in: "good.jsonl") == 0)
        let good = try #require(f.compositor.session(.primary))
        #expect(good.unackedSerials.count <= ConfigureSerials.limit)
    }

    @Test func aSmallMessageFloodIsHandledAcrossTurnsWithNothingDropped() throws {
        let f = try Fixture(arrangement: .split23)
        try f.goodPrimary()
        _ = try f.misbehave("message-flood", log: "bad.jsonl", environment: ["DIPTYCH_FLOOD_COUNT": "4096"])
        // hello, ack, createBuffer, commit, then 64 bursts of 64 commit + syncDone pairs.
        let expected = 4 + 4096 / 64 * 128
        var last = 0, mostInOneTurn = 0, turnsWithWork = 0
        let framesBefore = f.count("frameDone", in: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 120_000) {
            let handled = f.compositor.session(.secondary)?.connection.messagesHandled ?? 0
            if handled > last { turnsWithWork += 1 }
            mostInOneTurn = max(mostInOneTurn, handled - last)
            last = handled
            f.compositor.repaint()
            return handled >= expected
        })
        #expect(mostInOneTurn <= 256 && ClientConnection.messagesPerTurn == 256, "\(mostInOneTurn) messages in one turn")
        #expect(turnsWithWork >= expected / ClientConnection.messagesPerTurn)
        // Nothing lost or doubled: every commit was taken.
        #expect(try f.compositor.run(timeoutMilliseconds: 2000) { false } == false)
        #expect(f.compositor.session(.secondary)?.connection.messagesHandled == expected)
        #expect(f.compositor.session(.secondary)?.commits == 1 + 4096 / 64 * 64)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.repaint()
            return f.count("frameDone", in: "good.jsonl") >= framesBefore + 10
        })
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    @Test func aBufferShrunkAndSealedBetweenTheChecksIsRefused() throws {
        let layout = BufferLayout(width: 64, height: 64, stride: 256)
        let fd = try FileDescriptor.memfd(name: "race", size: 64 * 256)
        let raw = fd.rawValue
        var shrank = false
        // The seam runs between the compositor's two reads: the attacker shrinks the file to
        // one page and seals it. The seals were read first, so the buffer is refused.
        #expect(throws: ProtocolError.self) {
            _ = try ClientBuffer.map(id: 1, layout: layout, fd: fd) {
                shrank = ftruncate(raw, 4096) == 0
                _ = dp_add_seals(raw, dp_seal_shrink() | dp_seal_grow())
            }
        }
        #expect(shrank)
        do {
            _ = try ClientBuffer.map(id: 1, layout: layout, fd: fd)
            Issue.record("mapped a buffer over a file smaller than its pixels")
        } catch {
            #expect(error.code == .bufferTooSmall)
        }

        // Sealed first: the shrink between the checks fails, and every mapped pixel can be read.
        let sealed = try FileDescriptor.memfd(name: "sealed", size: 64 * 256)
        try sealed.addSeals([.shrink])
        let sealedRaw = sealed.rawValue
        var refused = false
        let buffer = try ClientBuffer.map(id: 2, layout: layout, fd: sealed) { refused = ftruncate(sealedRaw, 4096) != 0 }
        #expect(refused)
        var sum = 0
        for y in 0..<64 { for x in 0..<64 { sum &+= Int(buffer.pixels.pixel(x: x, y: y)) } }
        #expect(sum == 0)
    }

    @Test func configuresNotYetWrittenAreReplacedAndAcksAreForgiving() throws {
        let (a, b) = try UnixSocket.pair()
        let peer = FileDescriptor(taking: b)
        let loop = try Epoll()
        let s = ClientSession(id: ClientID(rawValue: 1), socket: FileDescriptor(taking: a), role: nil, label: "test", loop: loop) { _, _ in }
        func pane(_ width: Int) -> Pane {
            Pane(role: .primary, frame: Rect(x: 0, y: 0, width: width, height: 768), pixelWidth: width * 2, pixelHeight: 1536,
                 horizontalSizeClass: width > 600 ? .regular : .compact, verticalSizeClass: .regular)
        }
        func configure(_ serial: UInt32, _ width: Int) -> Configure {
            Configure(serial: serial, pane: pane(width), orientation: .landscape, arrangement: .full)
        }
        func received() throws -> [ServerEvent] {
            var assembler = MessageAssembler(), events: [ServerEvent] = []
            while let r = try UnixSocket.receive(peer.rawValue, nonBlocking: true) { assembler.append(r.bytes) }
            while let (op, body) = try assembler.next() { events.append(try ServerEvent.decode(opcode: op, body: body)) }
            return events
        }
        func configures(_ events: [ServerEvent]) -> [UInt32] { events.compactMap { if case .configure(let c) = $0 { c.serial } else { nil } } }

        // Two in one turn: only the newer is written.
        s.sendConfigure(configure(1, 1024))
        s.sendConfigure(configure(2, 320))
        s.flush()
        let first = try received()
        #expect(configures(first) == [2])
        #expect(!first.contains { if case .sizeClassChanged = $0 { true } else { false } })
        // A join and a leave in one turn: back to what the app was told, so nothing is sent.
        s.sendConfigure(configure(3, 700))
        s.sendConfigure(configure(4, 320))
        s.flush()
        #expect(try received().isEmpty)
        #expect(s.configure?.serial == 2)
        // A change of class is told with the configure that makes it.
        s.sendConfigure(configure(5, 1024))
        s.flush()
        let third = try received()
        #expect(configures(third) == [5])
        #expect(third.contains { if case .sizeClassChanged(.regular, _, .compact, _) = $0 { true } else { false } })

        // Acks: a late or repeated one changes nothing; one of a serial never sent is an error.
        try s.acknowledge(5)
        try s.acknowledge(5)
        try s.acknowledge(2)
        try s.acknowledge(1)
        #expect(s.ackedSerial == 5)
        #expect(throws: ProtocolError.self) { try s.acknowledge(99) }
        // An app that never acks holds a bounded list; acking the newest acks them all.
        for i in 0..<40 {
            s.sendConfigure(configure(UInt32(10 + i), i % 2 == 0 ? 700 : 1024))
            s.flush()
        }
        #expect(s.unackedSerials.count == ConfigureSerials.limit)
        try s.acknowledge(10)
        try s.acknowledge(49)
        #expect(s.unackedSerials.isEmpty && s.ackedSerial == 49)
        _ = try received()
    }

    @Test func sighupStopsRunLikeSigterm() throws {
        let v = try Victim()
        #expect(v.framesGo(on: 5, from: 0, seconds: 30))
        #expect(access(v.socket, F_OK) == 0)
        Glibc.kill(v.process.pid, SIGHUP)
        #expect(v.process.wait(milliseconds: 10_000) == 0)
        // The last frame was written and the socket removed.
        #expect(access("\(v.dir)/frame.png", F_OK) == 0)
        #expect(access(v.socket, F_OK) != 0)
    }
}

// SPDX-License-Identifier: MIT
// Misbehaving and hostile apps over the real socket, each next to a well-behaved app that must
// keep rendering and receiving events throughout (issue: hardening).

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Logging
import Testing

struct HostileClientTests {
    /// Misbehaviours answered with a named protocol error and a disconnect.
    static let refused: [(mode: String, code: ProtocolError.Code)] = [
        ("too-long", .messageTooLong), ("no-fd", .missingFD), ("many-fds", .tooManyFDs), ("huge", .badDimensions),
        ("early-commit", .badState), ("bad-ack", .unknownSerial), ("unknown-buffer", .unknownBuffer),
        ("foreign-buffer", .unknownBuffer), ("destroyed-buffer", .destroyedBuffer), ("too-many-buffers", .tooManyBuffers),
        ("too-many-bytes", .tooManyBuffers),
        ("version-1", .unsupportedVersion), ("pip-absurd", .badDimensions), ("sparse-huge", .sizeOverflow),
        ("proc-buffer", .unsealedBuffer), ("pipe-buffer", .unsealedBuffer),
    ]

    @Test(arguments: refused)
    func refusedAloneWhileTheOtherAppKeepsGoing(mode: String, code: ProtocolError.Code) throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave(mode, log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.protocolErrors.isEmpty && bad.poll() != nil }, "\(mode)")
        #expect(f.compositor.protocolErrors.map(\.error.code) == [code], "\(mode)")
        // The good app is reconfigured to the full screen, draws it and is paced.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 1500, y: 100) & 0xFFFFFF == 0x00AA00, "\(mode)")
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { try f.events("good.jsonl").contains { $0["event"]?.stringValue == "frameDone" } })
    }

    /// Requests the policy declines (Picture in Picture from a secondary, a commit to a second
    /// screen that is not there) are answered with `refused`, the buffer is given back, and the
    /// app lives on: no protocol error, no disconnect.
    @Test(arguments: [("pip-secondary", "pictureInPicture", "not-primary"), ("screen-commit", "secondScreen", "not-connected")])
    func declinedRequestsAreRefusedAndTheAppLivesOn(mode: String, request: String, reason: String) throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave(mode, log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try f.events("bad.jsonl").contains { $0["event"]?.stringValue == "refused" } }, "\(mode)")
        let events = try f.events("bad.jsonl")
        let refusal = try #require(events.first { $0["event"]?.stringValue == "refused" })
        #expect(refusal["request"]?.stringValue == request && refusal["reason"]?.stringValue == reason, "\(refusal)")
        #expect(refusal["message"]?.stringValue?.isEmpty == false)
        #expect(events.contains { $0["event"]?.stringValue == "release" }, "the refused buffer was not given back")
        #expect(f.compositor.protocolErrors.isEmpty)
        // Half a second later it is still there, beside the good app.
        _ = try f.compositor.run(timeoutMilliseconds: 500) { false }
        #expect(bad.poll() == nil)
        #expect(f.compositor.isConnected(.secondary))
    }

    @Test func aMessageCutInHalfThenClosedDropsOnlyThatApp() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let bad = try f.misbehave("half", log: "bad.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { bad.poll() != nil && !f.compositor.isConnected(.secondary) })
        #expect(f.compositor.protocolErrors.isEmpty)  // it just went away
        #expect(f.compositor.isConnected(.primary))
    }

    @Test func aBufferOfTheWrongSizeIsShownClipped() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave("wrong-size", log: "odd.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        f.compositor.repaint()
        #expect(f.compositor.protocolErrors.isEmpty)
        // The secondary pane (x 1408...2047 px) shows the small buffer at its top-left and,
        // beyond it, a placeholder in the app's colour: never black.
        #expect(f.compositor.output.pixel(x: 1420, y: 100) & 0xFFFFFF == 0xAA0000)
        #expect(f.compositor.output.pixel(x: 2040, y: 1500) & 0xFFFFFF == 0xAA0000)
        #expect(f.compositor.output.pixel(x: 100, y: 100) & 0xFFFFFF == 0x00AA00)
    }

    /// A client shrinking its committed memfd would make a compositor that reads it fault
    /// (SIGBUS). The seal refuses the shrink, so this process (the compositor) keeps running.
    @Test func aCommittedBufferCannotBeShrunk() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let app = try f.misbehave("truncate-after", log: "t.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) && f.compositor.hasCommittedForConfigure(.primary) })
        #expect(try f.compositor.run(timeoutMilliseconds: 2000) { app.poll() != nil } == false)  // it did not exit 3: the shrink failed
        for _ in 0..<3 { f.compositor.repaint() }
        #expect(f.compositor.output.pixel(x: 1500, y: 1400) & 0xFFFFFF == 0xAA0000)
    }

    /// An app that stops reading its socket is dropped once 1 MiB of events waits for it; the
    /// compositor never blocks on it.
    @Test func anAppThatStopsReadingIsDropped() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave("no-read", log: "deaf.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        // Each pair of touches queues two events; 1 MiB is reached long before the bound.
        var sent = 0
        while f.compositor.isConnected(.secondary) && sent < 200_000 {
            f.compositor.touch(id: 1, phase: .down, x: 900, y: 100)
            f.compositor.touch(id: 1, phase: .up, x: 900, y: 100)
            sent += 1
        }
        #expect(!f.compositor.isConnected(.secondary))
        #expect(sent < 200_000)  // dropped at the queue limit: the compositor never blocked on the full socket
        #expect(f.compositor.isConnected(.primary))
    }

    /// A flood of 3000 commits and 3000 stray messages: the compositor's memory stays bounded
    /// and the other app keeps being served.
    @Test func aFloodIsAbsorbedWithBoundedMemory() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let before = mappedBytes()
        try f.misbehave("flood", log: "flood.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 60_000) { f.compositor.commits(.secondary) >= 3001 })
        f.compositor.repaint()
        // Keeping every flooded buffer mapped would add 3000 × 4 MB of address space.
        #expect(mappedBytes() - before < 1 << 30, "grew by \(mappedBytes() - before) bytes")
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(f.compositor.output.pixel(x: 100, y: 100) & 0xFFFFFF == 0x00AA00)
        #expect(f.compositor.output.pixel(x: 1500, y: 1400) & 0xFFFFFF == 0xAA0000)
    }

    /// An app that crashes in the middle of a divider drag: the layout collapses to the other
    /// app, which gets its configure and becomes active.
    @Test func aCrashMidDragLeavesTheOtherAppFullScreen() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let crashy = try f.misbehave("crash-in-drag", log: "crash.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        f.compositor.touch(id: 1, phase: .down, x: 699, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { crashy.poll() != nil && !f.compositor.isConnected(.secondary) })
        f.compositor.touch(id: 1, phase: .motion, x: 500, y: 300)
        f.compositor.touch(id: 1, phase: .up, x: 500, y: 300)
        #expect(f.compositor.layout.arrangement == .full)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            let e = try f.events("good.jsonl").compactMap { $0["event"]?.stringValue }
            return e.last == "didBecomeActive" && e.contains("willResignActive")
        })
        let configures = try f.events("good.jsonl").filter { $0["event"]?.stringValue == "configure" }
        #expect(configures.last?["pixelWidth"]?.intValue == 2048)
    }
}

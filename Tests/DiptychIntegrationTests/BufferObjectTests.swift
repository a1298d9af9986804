// SPDX-License-Identifier: MIT
// Protocol version 2, buffers as objects: registered and mapped once, committed by id, released
// when replaced, snapshots released when the drag ends, a destroyed buffer on screen kept until
// replaced; and the rules a client can break, each refused for that app alone.

import DiptychClient
import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

/// The compositor's read-only mappings of memfds named `name` in this process (the in-process
/// test clients map theirs writable; tests run in parallel, so each names its buffers).
func compositorMappings(of name: String) throws -> Int {
    let maps = String(decoding: try Files.read("/proc/self/maps"), as: UTF8.self)
    return maps.split(separator: "\n").filter { $0.contains("memfd:\(name) ") && $0.contains(" r--s ") }.count
}


/// Fills a whole buffer with one colour (XRGB8888).
func paint(_ b: ShmBuffer, _ color: RGB) {
    let word = UInt32(color.red) << 16 | UInt32(color.green) << 8 | UInt32(color.blue) | 0xFF00_0000
    b.withUnsafeMutableBytes { raw in
        for i in 0..<(b.width * b.height) { raw.storeBytes(of: word, toByteOffset: i * 4, as: UInt32.self) }
    }
}

/// An app in the test's own process, pumped without blocking from the compositor's loop: it
/// acks configures and draws each into a buffer from its connection's pool.
final class PumpedApp {
    let connection: Connection
    var events: [ServerEvent] = []
    var configure: Configure?
    var shown: ShmBuffer?
    var commits = 0
    var color = RGB(red: 0x22, green: 0x88, blue: 0x44)
    /// Answer snapshot requests with buffers from the pool.
    var answersSnapshots = true
    var snapshotBuffers: [UInt32] = []

    /// The name of this app's memfds.
    let bufferName: String

    init(path: String, name: String) throws {
        connection = try Connection(path: path)
        bufferName = "pumped-\(getpid())-\(name)-\(MonotonicClock.nanoseconds)"
        connection.bufferName = bufferName
        try connection.send(.hello(name: name, requiresFullScreen: false))
    }

    var released: [UInt32] {
        events.compactMap { if case .release(let id) = $0 { id } else { nil } }
    }

    /// Handles every event that has arrived; returns whether there were any.
    @discardableResult
    func pump() throws -> Bool {
        var any = false
        while let e = try connection.pollEvent() {
            any = true
            events.append(e)
            switch e {
            case .configure(let c):
                configure = c
                try connection.send(.ack(serial: c.serial))
                try draw()
            case .snapshotRequest(let serial, _, let w, let h, _) where answersSnapshots:
                let b = try connection.buffer(width: w, height: h)
                paint(b, color)
                try connection.snapshot(b, serial: serial)
                snapshotBuffers.append(b.id)
            default:
                break
            }
        }
        return any
    }

    /// Draws the whole surface into a buffer the compositor is not reading and commits it.
    func draw() throws {
        guard let c = configure else { return }
        let b = try connection.buffer(width: c.pixelWidth, height: c.pixelHeight)
        #expect(!b.isBusy, "the pool handed out a buffer the compositor may be reading")
        paint(b, color)
        try connection.commit(b)
        shown = b
        commits += 1
    }
}

struct BufferObjectTests {
    /// A pumped app as the secondary beside a demo primary that has drawn.
    func fixtureWithPumpedSecondary() throws -> (Fixture, PumpedApp) {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let app = try PumpedApp(path: f.compositor.socketPath!, name: "pumped")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try app.pump()
            return f.compositor.hasCommittedForConfigure(.secondary)
        })
        return (f, app)
    }

    @Test func buffersAreMappedOnceReleasedWhenReplacedAndReused() throws {
        let (f, app) = try fixtureWithPumpedSecondary()
        let mappingsAtStart = try compositorMappings(of: app.bufferName)
        // Twenty frames, each a new commit drawn into a released buffer.
        for _ in 0..<20 {
            try app.draw()
            #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
                try app.pump()
                return f.compositor.commits(.secondary) == app.commits && app.released.count == app.commits - 1
            })
            f.compositor.repaint()
        }
        // Every commit but the one on screen was released, each once, as it was replaced.
        let shown = try #require(app.shown)
        #expect(app.released.count == app.commits - 1)
        #expect(shown.isBusy)
        // The pool cycled through at most three buffers, each registered and mapped once.
        let ids = Set(app.released + [shown.id])
        #expect(ids.count <= Connection.buffersPerSize)
        #expect(f.compositor.buffers(.secondary).count == ids.count)
        #expect(try compositorMappings(of: app.bufferName) == ids.count)
        #expect(mappingsAtStart == 1)
        // The other app was never disturbed.
        #expect(f.compositor.protocolErrors.isEmpty)
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 1800, y: 100) & 0xFFFFFF == 0x228844)
    }

    @Test func snapshotsAreBufferObjectsReleasedWhenTheDragEnds() throws {
        let (f, app) = try fixtureWithPumpedSecondary()
        let divider = try #require(f.compositor.layout.divider)
        let x = Double(divider.x) + Double(divider.width) / 2
        f.compositor.touch(id: 1, phase: .down, x: x, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            try app.pump()
            return !app.snapshotBuffers.isEmpty && f.compositor.snapshotBytes > 0
        })
        // Wait until every request was answered, then end the drag where it began.
        _ = try f.compositor.run(timeoutMilliseconds: 300) { try app.pump() && false }
        let snapshots = app.snapshotBuffers
        #expect(snapshots.count >= 2)
        let releasedBefore = Set(app.released)
        #expect(releasedBefore.isDisjoint(with: snapshots), "a snapshot was released while the drag could show it")
        f.compositor.touch(id: 1, phase: .motion, x: x - 200, y: 300)
        f.compositor.repaint()
        f.compositor.touch(id: 1, phase: .motion, x: x, y: 300)
        f.compositor.touch(id: 1, phase: .up, x: x, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            try app.pump()
            return Set(app.released).isSuperset(of: snapshots)
        })
        #expect(f.compositor.snapshotBytes == 0)
        // The live buffer was never released (no configure: the drag returned), and the pool
        // hands the snapshot buffers out again.
        #expect(app.shown?.isBusy == true)
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// Destroying a buffer that is on screen is allowed: it stays shown (and mapped) until a
    /// commit replaces it, then it is unmapped; no release is sent for it.
    @Test func aDestroyedBufferOnScreenStaysUntilReplaced() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let app = try f.misbehave("destroy-shown", app: "pattern:#AA0000", log: "d.jsonl")
        let name = "misbehave-\(app.pid)"
        // Committed, then destroyed: no buffer registered, one still mapped.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.hasCommittedForConfigure(.secondary) && f.compositor.buffers(.secondary).count == 0
        })
        #expect(f.compositor.buffers(.secondary).mappedBytes > 0)
        #expect(try compositorMappings(of: name) == 1)
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 1800, y: 100) & 0xFFFFFF == 0xAA0000)
        // The frameDone makes it commit a blue buffer; the destroyed one goes.
        let commits = f.compositor.commits(.secondary)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.commits(.secondary) > commits })
        f.compositor.repaint()
        #expect(f.compositor.output.pixel(x: 1800, y: 100) & 0xFFFFFF == 0x0000CC)
        // The destroyed buffer was unmapped when replaced: only the blue one is mapped.
        #expect(try compositorMappings(of: name) == 1)
        #expect(f.compositor.buffers(.secondary).count == 1)
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(app.poll() == nil)
        #expect(try !f.events("d.jsonl").contains { $0["event"]?.stringValue == "release" })
    }

    /// A client of the first protocol version is told, in its own framing, which versions this
    /// compositor speaks (the oldest it serves to the current one).
    @Test func aVersionOneClientIsToldTheCurrentVersion() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let old = try f.misbehave("version-1", log: "v1.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { old.poll() != nil })
        #expect(old.exitStatus == 1)
        let error = try #require(try f.events("v1.jsonl").last)
        #expect(error["code"]?.stringValue == "unsupported-version")
        #expect(error["message"]?.stringValue?.contains("speaks versions \(Wire.oldestServedVersion) to \(Wire.version)") == true, "\(error)")
        #expect(f.compositor.protocolErrors.map(\.error.code) == [.unsupportedVersion])
        #expect(f.compositor.isConnected(.primary))
    }

    /// The buffers of a disconnected app are all unmapped.
    @Test func aDisconnectUnmapsEveryBuffer() throws {
        let (f, app) = try fixtureWithPumpedSecondary()
        for _ in 0..<3 { _ = try app.connection.createBuffer(width: 64, height: 64) }
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { f.compositor.buffers(.secondary).count >= 4 })
        #expect(try compositorMappings(of: app.bufferName) == f.compositor.buffers(.secondary).count)
        // The app's connection goes: every mapping of its buffers goes with the session.
        shutdown(app.connection.fileDescriptor, Int32(SHUT_RDWR))
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { !f.compositor.isConnected(.secondary) })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        #expect(try compositorMappings(of: app.bufferName) == 0)
        #expect(f.compositor.isConnected(.primary))
    }
}

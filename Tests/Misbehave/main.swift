// SPDX-License-Identifier: MIT
// `diptych-misbehave MODE pattern:#RRGGBB [--event-log FILE]`: a client that breaks the
// protocol on purpose, for the tests of the compositor's defences. Test-only: it is no part of
// the demo apps or the client library's API. It logs events as the demo apps do and exits 1
// when the compositor reports a protocol error.

import DiptychClient
import DiptychCore
import DiptychDemoKit
import DiptychImage
import DiptychLinux
import DiptychWire
import Glibc

/// The ways to misbehave.
enum Mode: String, CaseIterable {
    /// Commits a memfd without `F_SEAL_SHRINK`.
    case unsealed
    /// Commits a memfd smaller than stride × height.
    case short
    /// Commits with a stride whose product with the height overflows.
    case strideOverflow = "stride-overflow"
    /// Sends a message whose body does not parse.
    case garbage
    /// Sends a header announcing a message over the size limit.
    case tooLong = "too-long"
    /// Sends half of a commit, then closes the connection.
    case half
    /// Commits without passing a file descriptor.
    case noFD = "no-fd"
    /// Sends a message with 30 file descriptors attached.
    case manyFDs = "many-fds"
    /// Commits a buffer wider than 16384 pixels.
    case huge
    /// Commits before acking the configure.
    case earlyCommit = "early-commit"
    /// Acks a serial that was never sent.
    case badAck = "bad-ack"
    /// Commits a buffer of another size than configured (tolerated: shown clipped).
    case wrongSize = "wrong-size"
    /// Commits, then tries to shrink the committed memfd (the seal refuses).
    case truncateAfter = "truncate-after"
    /// Stops reading its socket after the first frame.
    case noRead = "no-read"
    /// Crashes when asked for snapshots (in the middle of a divider drag).
    case crashInDrag = "crash-in-drag"
    /// Floods the compositor: thousands of commits and stray messages, then behaves.
    case flood
}

func fail(_ message: String) -> Never {
    Files.writeStandardError("diptych-misbehave: \(message)\n")
    exit(2)
}

func buffer(_ w: Int, _ h: Int, seal: Bool = true, fileSize: Int? = nil) throws -> ShmBuffer {
    try ShmBuffer(width: w, height: h, seal: seal, fileSize: fileSize)
}

/// A buffer of `w` × `h` painted with the app's pattern.
func painted(_ w: Int, _ h: Int, _ color: RGB) throws -> ShmBuffer {
    let b = try buffer(w, h)
    PatternPainter.paint(b.image, color: color)
    return b
}

/// Acks `c` and commits a painted buffer of `w` × `h`, as a well-behaved app would.
func show(_ c: Configure, _ w: Int, _ h: Int, _ connection: Connection, _ color: RGB) throws -> ShmBuffer {
    try connection.send(.ack(serial: c.serial))
    let b = try painted(w, h, color)
    try connection.commit(b)
    return b
}

/// Answers one configure the way `mode` breaks it; returns the buffer to keep on screen.
func misbehave(_ mode: Mode, _ c: Configure, _ connection: Connection, _ color: RGB) throws -> ShmBuffer? {
    let w = c.pixelWidth, h = c.pixelHeight
    switch mode {
    case .tooLong:
        try connection.sendRaw([0, 0, 0x10, 0, 1, 0, 2, 0])  // 1 MiB announced
    case .half:
        let b = try buffer(w, h)
        try connection.send(.ack(serial: c.serial))
        let bytes = ClientMessage.commit(b.layout, damage: []).encoded()
        try connection.sendRaw(Array(bytes.prefix(bytes.count / 2)))
        exit(0)
    case .noFD:
        try connection.send(.ack(serial: c.serial))
        try connection.sendRaw(ClientMessage.commit(try buffer(w, h).layout, damage: []).encoded())
    case .manyFDs:
        let b = try buffer(8, 8)
        try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: Array(repeating: b.fd.rawValue, count: 28))
        try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: [b.fd.rawValue, b.fd.rawValue])
    case .huge:
        try connection.send(.ack(serial: c.serial))
        let b = try buffer(16, 16)
        var layout = b.layout
        layout.width = 16385
        try connection.send(.commit(layout, damage: []), descriptors: [b.fd.rawValue])
    case .earlyCommit:
        try connection.commit(try buffer(w, h))
    case .badAck:
        try connection.send(.ack(serial: c.serial &+ 999))
    case .wrongSize:
        return try show(c, max(1, w / 2), max(1, h / 3), connection, color)
    case .truncateAfter:
        let b = try show(c, w, h, connection, color)
        // The seal makes this fail: the compositor can never be made to read past the end.
        let refused = ftruncate(b.fd.rawValue, 0) != 0
        Files.writeStandardError(refused ? "diptych-misbehave: shrinking the committed buffer was refused by its seal\n" : "diptych-misbehave: the buffer shrank\n")
        if !refused { exit(3) }
        return b
    case .flood:
        try connection.send(.ack(serial: c.serial))
        let b = try buffer(w, h)
        for i in 0..<3000 {
            try connection.commit(b, damage: [Rect(x: i % 50, y: 0, width: 1, height: 1)])
            try connection.send(.syncDone(serial: UInt32(i)))
        }
        let shown = try painted(w, h, color)
        try connection.commit(shown)
        return shown
    case .noRead:
        let b = try show(c, w, h, connection, color)
        withExtendedLifetime(b) { while true { sleep(1000) } }
    case .unsealed:
        try connection.send(.ack(serial: c.serial))
        try connection.commit(try buffer(w, h, seal: false))
    case .short:
        try connection.send(.ack(serial: c.serial))
        try connection.commit(try buffer(w, h, fileSize: w * 4 * h / 2))
    case .strideOverflow:
        try connection.send(.ack(serial: c.serial))
        let b = try buffer(64, 64)
        var layout = b.layout
        layout.stride = 0x8000_0000
        layout.height = 16
        try connection.send(.commit(layout, damage: []), descriptors: [b.fd.rawValue])
    case .garbage:
        try connection.send(.ack(serial: c.serial))
        // A commit header whose body is four bytes of noise.
        try connection.sendRaw([12, 0, 0, 0, 1, 0, 3, 0, 0xDE, 0xAD, 0xBE, 0xEF])
    case .crashInDrag:
        // Behaves at configure; crashes when asked for snapshots.
        return try show(c, w, h, connection, color)
    }
    return nil
}

var arguments = Array(CommandLine.arguments.dropFirst())
var eventLog: String?
if let i = arguments.firstIndex(of: "--event-log") {
    guard i + 1 < arguments.count else { fail("--event-log needs a file") }
    eventLog = arguments[i + 1]
    arguments.removeSubrange(i...(i + 1))
}
guard arguments.count == 2, let mode = Mode(rawValue: arguments[0]) else {
    fail("usage: diptych-misbehave MODE pattern:#RRGGBB [--event-log FILE]; modes: \(Mode.allCases.map(\.rawValue).joined(separator: ", "))")
}
guard case .pattern(let color) = try? DemoApp.named(arguments[1]) else { fail("the app must be pattern:#RRGGBB") }
ignoreBrokenPipes()
do {
    let connection = try Connection.fromEnvironment()
    let log = EventLog(path: eventLog, app: arguments[1])
    var shown: ShmBuffer?
    try connection.send(.hello(name: arguments[1], requiresFullScreen: false))
    while let event = try connection.nextEvent() {
        if case .sync = event {} else { log.write(event, stateDigest: nil) }
        switch event {
        case .error(let e):
            Files.writeStandardError("diptych-misbehave: the compositor reported a protocol error: \(e)\n")
            exit(1)
        case .configure(let c):
            if let b = try misbehave(mode, c, connection, color) { shown = b }
        case .snapshotRequest:
            if mode == .crashInDrag { abort() }
        case .sync(let serial, _):
            try connection.send(.syncDone(serial: serial))
        default:
            break
        }
    }
    _ = shown
} catch {
    Files.writeStandardError("diptych-misbehave: \(error)\n")
    exit(1)
}

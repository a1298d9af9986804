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
    /// Registers a memfd without `F_SEAL_SHRINK`.
    case unsealed
    /// Registers a memfd smaller than stride × height.
    case short
    /// Registers a buffer with a stride whose product with the height overflows.
    case strideOverflow = "stride-overflow"
    /// Sends a message whose body does not parse.
    case garbage
    /// Sends a header announcing a message over the size limit.
    case tooLong = "too-long"
    /// Sends half of a commit, then closes the connection.
    case half
    /// Sends createBuffer without passing a file descriptor.
    case noFD = "no-fd"
    /// Sends a message with 30 file descriptors attached.
    case manyFDs = "many-fds"
    /// Registers a buffer wider than 16384 pixels.
    case huge
    /// Commits a buffer id it never created.
    case unknownBuffer = "unknown-buffer"
    /// Commits buffer 1, which the other app created (ids are each app's own).
    case foreignBuffer = "foreign-buffer"
    /// Destroys a buffer, then commits it.
    case destroyedBuffer = "destroyed-buffer"
    /// Registers more buffers than one app may hold.
    case tooManyBuffers = "too-many-buffers"
    /// Registers two sparse 16384x16384 buffers: 2 GiB mapped, over the 1 GiB an app may hold.
    case tooManyBytes = "too-many-bytes"
    /// Speaks protocol version 1 (memfd per commit): refused, naming the current version.
    case versionOne = "version-1"
    /// Shows a buffer, destroys it while it is on screen (allowed: it stays shown), and after
    /// the next frameDone commits a second buffer that replaces it.
    case destroyShown = "destroy-shown"
    /// Opens Picture in Picture while it is the secondary (only the primary may).
    case pipSecondary = "pip-secondary"
    /// Commits a 4096×16 buffer to Picture in Picture (more elongated than 1:4).
    case pipAbsurd = "pip-absurd"
    /// Opens Picture in Picture with a 2048×512 buffer growing out of a 1×1 source rectangle
    /// at (500, 400) (legal; its first frames scale the buffer down 2048 times).
    case pipPinpoint = "pip-pinpoint"
    /// Registers a buffer whose descriptor is a file in /proc (a regular file, not shared memory).
    case procBuffer = "proc-buffer"
    /// Registers a buffer whose descriptor is a pipe.
    case pipeBuffer = "pipe-buffer"
    /// Commits a buffer to the second screen whether or not it holds one.
    case screenCommit = "screen-commit"
    /// Shows its pane, then says an email field takes text (the keyboard's caret 10 pt in)
    /// whether or not it has the keyboard focus (only the focused app may).
    case textInput = "text-input"
    /// Shows its pane, then asks for a menu of 10,000 items ("Item 0" …, the third selected, a
    /// heading first) anchored 20 pt in, 100 pt down; again after each answer.
    case menu
    /// Shows its pane, then asks for an alert with a text field (Cancel, OK); again after each
    /// answer.
    case alert
    /// Shows its pane, then sends a menu's second piece with no first: malformed.
    case menuBadPiece = "menu-bad-piece"
    /// Right after its hello, streams `syncDone` as fast as the socket takes it, until closed.
    case syncFlood = "sync-flood"
    /// Registers a 64×64 buffer from a sealed sparse memfd of 2^40 bytes.
    case sparseHuge = "sparse-huge"
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
    /// Commits one buffer `floodCount` times without waiting for frameDone, each commit with
    /// 256 disjoint 1×1 damage rectangles (a legal message), then behaves.
    case damageFlood = "damage-flood"
    /// Sends `floodCount` commits of 8×8 damage and as many `syncDone`s without waiting, then
    /// behaves.
    case messageFlood = "message-flood"
    /// Connects, says hello (taking the free role), waits for its configure and leaves,
    /// `churnCount` times, then exits 0.
    case churn
    /// Connects and closes at once, `floodCount` times as fast as it can (with a hello first
    /// when `DIPTYCH_FLOOD_HELLO` is set), then exits 0.
    case connectFlood = "connect-flood"
    /// Opens Picture in Picture when it goes to the background, and again each time the user
    /// closes it (at once, and after each refusal).
    case pipReopen = "pip-reopen"
    /// Opens Picture in Picture as the primary on screen, and closes it after the next frameDone
    /// (the window shrinks back into the app).
    case pipOpenClose = "pip-open-close"
    /// Connects, sets a 1024×1024 icon and leaves, `churnCount` times, then exits 0.
    case iconChurn = "icon-churn"
    /// Draws itself wholly transparent (an ARGB buffer of zeros), as an invisible overlay would.
    case transparent
    /// An icon of 100 x 100 pixels (too small: a protocol error).
    case iconWrongSize = "icon-wrong-size"
    /// An icon in XRGB (not ARGB: a protocol error).
    case iconXRGB = "icon-xrgb"
    /// Five icons in a row: one is taken, four are refused (`rate`), and the app lives on.
    case iconFlood = "icon-flood"
    /// Shows its pane, then sends a "Sign In" alert with a password field and its dismissal in
    /// one write (no frame ever shows it), and does it again each time it hears the keyboard
    /// move: an app trying to take the other app's typing.
    case alertFlash = "alert-flash"
    /// Shows its pane; once it has the keyboard focus, presents and dismisses an alert with a
    /// field `floodCount` times as fast as it can (each one moves the keyboard), then behaves.
    case presentationFlood = "presentation-flood"
    /// Shows its pane, then an alert whose message is 4,096 characters with no space.
    case longAlert = "long-alert"
}

/// How many messages the floods send (`DIPTYCH_FLOOD_COUNT` overrides).
let floodCount = Int(String(cString: getenv("DIPTYCH_FLOOD_COUNT") ?? strdup("2000"))) ?? 2000
/// How many times `churn` joins and leaves (`DIPTYCH_CHURN_COUNT` overrides).
let churnCount = Int(String(cString: getenv("DIPTYCH_CHURN_COUNT") ?? strdup("300"))) ?? 300

func fail(_ message: String) -> Never {
    Files.writeStandardError("diptych-misbehave: \(message)\n")
    exit(2)
}

/// A buffer of `w` × `h` painted with the app's pattern, from the connection's pool.
func painted(_ w: Int, _ h: Int, _ color: RGB, _ connection: Connection) throws -> ShmBuffer {
    let b = try connection.buffer(width: w, height: h)
    PatternPainter.paint(b.image, color: color)
    return b
}

/// Acks `c` and commits a painted buffer of `w` × `h`, as a well-behaved app would.
func show(_ c: Configure, _ w: Int, _ h: Int, _ connection: Connection, _ color: RGB) throws -> ShmBuffer {
    try connection.send(.ack(serial: c.serial))
    let b = try painted(w, h, color, connection)
    try connection.commit(b)
    return b
}

/// A memfd of `w` × `h` that is not registered, for messages that must not reach the checks.
func loose(_ w: Int, _ h: Int) throws -> ShmBuffer { try ShmBuffer(id: 0, width: w, height: h) }

nonisolated(unsafe) var presentedOnce = false
nonisolated(unsafe) var presentations: UInt32 = 0

/// Asks for `mode`'s menu or alert (a new id each time).
func present(_ mode: Mode, _ connection: Connection) throws {
    presentations += 1
    if mode == .menu {
        var items = (0..<MenuLimits.items).map { MenuItem("Item \($0)", flags: $0 == 2 ? .selected : []) }
        items[0] = MenuItem("Fruit", flags: .header)
        items[5].flags = .disabled
        try connection.presentMenu(id: presentations, anchor: Rect(x: 20, y: 100, width: 200, height: 40), title: "Choose one", items: items)
    } else {
        try connection.presentAlert(AlertRequest(
            id: presentations, title: "Your name", message: "Type it for the guest book.", field: .text, placeholder: "Name",
            buttons: [AlertButton("Cancel", style: .cancel), AlertButton("OK")]))
    }
}

/// A system-looking "Sign In" alert with a password field and its dismissal, in one write.
func flashSignIn(_ connection: Connection) throws {
    presentations += 1
    let alert = ClientMessage.presentAlert(AlertRequest(
        id: presentations, title: "Sign In", message: "Your session expired.", field: .secure, placeholder: "Password",
        buttons: [AlertButton("Cancel", style: .cancel), AlertButton("Sign In")]))
    try connection.sendRaw(alert.encoded() + ClientMessage.dismissPresented(id: presentations).encoded())
}

/// Presents and dismisses an alert with a field `floodCount` times, as fast as it can.
func floodPresentations(_ connection: Connection) throws {
    var burst: [UInt8] = []
    for i in 0..<floodCount {
        let id = UInt32(i + 1)
        burst += ClientMessage.presentAlert(AlertRequest(id: id, title: "Flood", message: "", field: .text, placeholder: "",
                                                         buttons: [AlertButton("OK")])).encoded()
        burst += ClientMessage.dismissPresented(id: id).encoded()
        if burst.count > 32_768 { try connection.sendRaw(burst); burst = [] }
    }
    try connection.sendRaw(burst)
}

/// Answers one configure the way `mode` breaks it; returns the buffer to keep on screen.
func misbehave(_ mode: Mode, _ c: Configure, _ connection: Connection, _ color: RGB) throws -> ShmBuffer? {
    let w = c.pixelWidth, h = c.pixelHeight
    switch mode {
    case .tooLong:
        try connection.sendRaw([0, 0, 0x10, 0, 1, 0, 2, 0])  // 1 MiB announced
    case .half:
        try connection.send(.ack(serial: c.serial))
        let bytes = ClientMessage.commit(buffer: 1, damage: [Rect(x: 0, y: 0, width: w, height: h)]).encoded()
        try connection.sendRaw(Array(bytes.prefix(bytes.count / 2)))
        exit(0)
    case .transparent:
        try connection.send(.ack(serial: c.serial))
        let b = try connection.createBuffer(width: w, height: h, format: .argb8888)
        for y in 0..<h { for x in 0..<w { b.image.bytes.storeBytes(of: UInt32(0), toByteOffset: y * b.image.stride + x * 4, as: UInt32.self) } }
        try connection.commit(b)
        return b
    case .procBuffer, .pipeBuffer:
        try connection.send(.ack(serial: c.serial))
        var ends: [Int32] = [-1, -1]
        let fd = mode == .procBuffer ? open("/proc/self/stat", O_RDONLY | O_CLOEXEC) : (pipe(&ends) == 0 ? ends[0] : -1)
        guard fd >= 0 else { fail("cannot open the descriptor to send") }
        try connection.sendRaw(ClientMessage.createBuffer(id: 1, BufferLayout(width: 16, height: 16, stride: 64)).encoded(), descriptors: [fd])
    case .noFD:
        try connection.send(.ack(serial: c.serial))
        try connection.sendRaw(ClientMessage.createBuffer(id: 1, try loose(w, h).layout).encoded())
    case .manyFDs:
        let b = try loose(8, 8)
        try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: Array(repeating: b.fd.rawValue, count: 28))
        try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: [b.fd.rawValue, b.fd.rawValue])
    case .huge:
        try connection.send(.ack(serial: c.serial))
        var layout = try loose(16, 16).layout
        layout.width = 16385
        _ = try connection.createBuffer(width: 16, height: 16, seal: true, fileSize: nil, layout: layout)
    case .pipSecondary:
        _ = try show(c, w, h, connection, color)
        try connection.pipCommit(try painted(512, 288, color, connection))
    case .pipAbsurd:
        _ = try show(c, w, h, connection, color)
        try connection.pipCommit(try painted(4096, 16, color, connection))
    case .pipPinpoint:
        _ = try show(c, w, h, connection, color)
        try connection.pipCommit(try painted(2048, 512, color, connection), sourceRect: Rect(x: 500, y: 400, width: 1, height: 1))
    case .screenCommit:
        _ = try show(c, w, h, connection, color)
        try connection.screenCommit(try painted(640, 360, color, connection))
    case .textInput:
        let b = try show(c, w, h, connection, color)
        try connection.setTextInput(TextInputState(enabled: true, purpose: .email, returnKey: .go, caret: (10, 10, 2, 20)))
        return b
    case .menu, .alert:
        let b = try show(c, w, h, connection, color)
        if !presentedOnce { try present(mode, connection) }
        presentedOnce = true
        return b
    case .alertFlash:
        let b = try show(c, w, h, connection, color)
        try flashSignIn(connection)
        return b
    case .presentationFlood:
        let b = try show(c, w, h, connection, color)
        // (DIPTYCH_FLOOD_AT_ONCE: without waiting for the focus, as a benchmark has no user.)
        if getenv("DIPTYCH_FLOOD_AT_ONCE") != nil, !presentedOnce {
            presentedOnce = true
            try floodPresentations(connection)
        }
        return b
    case .longAlert:
        let b = try show(c, w, h, connection, color)
        if !presentedOnce {
            try connection.presentAlert(AlertRequest(id: 1, title: "Long", message: String(repeating: "W", count: 4096), field: .none, placeholder: "",
                                                     buttons: [AlertButton("OK")]))
        }
        presentedOnce = true
        return b
    case .menuBadPiece:
        let b = try show(c, w, h, connection, color)
        try connection.send(.presentMenu(MenuPiece(id: 1, anchor: Rect(x: 0, y: 0, width: 10, height: 10), title: "", total: 10, first: 5, items: [MenuItem("x")])))
        return b
    case .syncFlood:
        break  // floods from its hello on (below)
    case .sparseHuge:
        try connection.send(.ack(serial: c.serial))
        _ = try connection.createBuffer(width: 64, height: 64, seal: true, fileSize: 1 << 40)
    case .earlyCommit:
        try connection.commit(try connection.buffer(width: w, height: h))
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
        let b = try connection.buffer(width: w, height: h)
        for i in 0..<3000 {
            try connection.commit(b, damage: [Rect(x: i % 50, y: 0, width: 1, height: 1)])
            try connection.send(.syncDone(serial: UInt32(i)))
        }
        let shown = try painted(w, h, color, connection)
        try connection.commit(shown)
        return shown
    case .noRead:
        let b = try show(c, w, h, connection, color)
        withExtendedLifetime(b) { while true { sleep(1000) } }
    case .unsealed:
        try connection.send(.ack(serial: c.serial))
        _ = try connection.createBuffer(width: w, height: h, seal: false, fileSize: nil)
    case .short:
        try connection.send(.ack(serial: c.serial))
        _ = try connection.createBuffer(width: w, height: h, seal: true, fileSize: w * 4 * h / 2)
    case .strideOverflow:
        try connection.send(.ack(serial: c.serial))
        var layout = try loose(64, 64).layout
        layout.stride = 0x8000_0000
        layout.height = 16
        _ = try connection.createBuffer(width: 64, height: 64, seal: true, fileSize: nil, layout: layout)
    case .garbage:
        try connection.send(.ack(serial: c.serial))
        // A commit header whose body is four bytes of noise.
        try connection.sendRaw([12, 0, 0, 0, UInt8(Wire.version), 0, 3, 0, 0xDE, 0xAD, 0xBE, 0xEF])
    case .unknownBuffer:
        try connection.send(.ack(serial: c.serial))
        try connection.send(.commit(buffer: 4242, damage: []))
    case .foreignBuffer:
        // The other app's first buffer has id 1; this app created none.
        try connection.send(.ack(serial: c.serial))
        try connection.send(.commit(buffer: 1, damage: []))
    case .destroyedBuffer:
        try connection.send(.ack(serial: c.serial))
        let b = try painted(w, h, color, connection)
        try connection.destroy(b)
        try connection.send(.commit(buffer: b.id, damage: []))
    case .tooManyBuffers:
        try connection.send(.ack(serial: c.serial))
        for _ in 0..<65 { _ = try connection.createBuffer(width: 4, height: 4) }
    case .tooManyBytes:
        try connection.send(.ack(serial: c.serial))
        for _ in 0..<2 { _ = try connection.createBuffer(width: 16384, height: 16384) }
    case .destroyShown:
        let b = try show(c, w, h, connection, color)
        try connection.destroy(b)
        return b
    case .versionOne:
        break
    case .damageFlood:
        let b = try show(c, w, h, connection, color)
        var dots: [Rect] = []
        for i in 0..<256 { dots.append(Rect(x: (i % 16) * 2, y: (i / 16) * 2, width: 1, height: 1)) }
        let commit = ClientMessage.commit(buffer: b.id, damage: dots).encoded()
        for _ in 0..<floodCount { try connection.sendRaw(commit) }
        return b
    case .messageFlood:
        let b = try show(c, w, h, connection, color)
        let pair = ClientMessage.commit(buffer: b.id, damage: [Rect(x: 8, y: 8, width: 8, height: 8)]).encoded() + ClientMessage.syncDone(serial: 7).encoded()
        // In bursts of 64 pairs, so the compositor sees writes of many messages each.
        let burst = Array([[UInt8]](repeating: pair, count: 64).joined())
        for _ in 0..<(floodCount / 64) { try connection.sendRaw(burst) }
        Files.writeStandardError("diptych-misbehave: flooded \(floodCount / 64 * 128) messages\n")
        return b
    case .churn, .connectFlood, .iconChurn:
        break
    case .pipReopen:
        return try show(c, w, h, connection, color)
    case .pipOpenClose:
        let shown = try show(c, w, h, connection, color)
        try connection.pipCommit(try painted(640, 360, color, connection))
        return shown
    case .iconWrongSize, .iconXRGB:
        let shown = try show(c, w, h, connection, color)
        let side = mode == .iconWrongSize ? 100 : 120
        let b = try connection.createBuffer(width: side, height: side, format: mode == .iconWrongSize ? .argb8888 : .xrgb8888)
        try connection.send(.setIcon(buffer: b.id))
        return shown
    case .iconFlood:
        let shown = try show(c, w, h, connection, color)
        for i in 0..<5 {
            try connection.setIcon(side: 128) { pixels, words in
                for y in 0..<128 { for x in 0..<128 { pixels[y * words + x] = i == 0 ? 0xFFFF_00FF : 0xFF00_FFFF } }
            }
        }
        return shown
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
if mode == .connectFlood {
    let path = String(cString: getenv("DIPTYCH_SOCKET") ?? strdup(""))
    let hello = getenv("DIPTYCH_FLOOD_HELLO") != nil ? ClientMessage.hello(name: "flood", requiresFullScreen: false).encoded() : []
    for _ in 0..<floodCount {
        guard let fd = try? UnixSocket.connect(path: path) else { fail("connect-flood: cannot connect to \(path)") }
        if !hello.isEmpty { _ = try? UnixSocket.send(fd.rawValue, ArraySlice(hello), nonBlocking: true) }
        fd.close()
    }
    exit(0)
}
if mode == .churn || mode == .iconChurn {
    // Each connection joins (hello) and leaves once it is in (its socket closes with it);
    // icon-churn sets a 1024×1024 icon first.
    for _ in 0..<churnCount {
        do {
            let c = try Connection.fromEnvironment()
            try c.send(.hello(name: mode.rawValue, requiresFullScreen: false))
            // Joined (its configure came) or refused: either way it leaves now.
            let first = try c.nextEvent()
            if mode == .iconChurn, case .configure(let configure)? = first {
                try c.send(.ack(serial: configure.serial))
                try c.setIcon(side: 1024) { pixels, words in
                    for y in 0..<1024 { for x in 0..<1024 { pixels[y * words + x] = 0xFF00_FF00 } }
                }
            }
        } catch {
            // Closed before it could join (over its user's connection budget): it tries again.
            usleep(10_000)
        }
    }
    exit(0)
}
do {
    let connection = try Connection.fromEnvironment()
    // Named by process, so a test can find this app's buffers in the compositor's mappings.
    connection.bufferName = "misbehave-\(getpid())"
    let log = EventLog(path: eventLog, app: arguments[1])
    var shown: ShmBuffer?
    if mode == .versionOne {
        // A hello framed as version 1; the refusal comes back framed as version 1 too.
        var hello = ClientMessage.hello(name: arguments[1], requiresFullScreen: false).encoded()
        hello[4] = 1
        try connection.sendRaw(hello)
        let reply = try connection.receiveRaw()
        guard reply.count >= 8, reply[4] == 1, reply[6] == 107, case .error(let e)? = try? ServerEvent.decode(opcode: 107, body: reply[8...]) else {
            fail("the refusal of version 1 was not an error event framed as version 1: \(reply.prefix(16))")
        }
        log.write(.error(e), stateDigest: nil)
        Files.writeStandardError("diptych-misbehave: the compositor refused version 1: \(e)\n")
        exit(1)
    }
    var replaced = false
    var reopenTries = 0
    var closedPiP = false
    try connection.send(.hello(name: arguments[1], requiresFullScreen: false))
    if mode == .syncFlood {
        let one = ClientMessage.syncDone(serial: 1).encoded()
        let burst = Array([[UInt8]](repeating: one, count: 4096).joined())
        // (Only with an event log: renaming a file over /dev/null would replace the device.)
        if let eventLog { try Files.writeAtomically(eventLog + ".flooding", bytes: []) }
        while (try? connection.sendRaw(burst)) != nil {}
        exit(0)
    }
    while let event = try connection.nextEvent() {
        if case .sync = event {} else { log.write(event, stateDigest: nil) }
        switch event {
        case .error(let e):
            Files.writeStandardError("diptych-misbehave: the compositor reported a protocol error: \(e)\n")
            exit(1)
        case .configure(let c):
            if let b = try misbehave(mode, c, connection, color) { shown = b }
        case .keyboardFocus(focused: true) where mode == .presentationFlood && !presentedOnce:
            presentedOnce = true
            try floodPresentations(connection)
        case .keyboardFrame where mode == .alertFlash:
            try flashSignIn(connection)
        case .touch(_, .up, _, _, _, _) where mode == .textInput, .pen(.up, _, _, _, _, _, _, _, _, _) where mode == .textInput:
            // Its one field takes the focus again at each tap (protocol 9: the enable names the
            // tap, which raises the keyboard).
            try connection.setTextInput(TextInputState(enabled: true, purpose: .email, returnKey: .go, caret: (10, 10, 2, 20)))
        case .menuChosen, .alertAnswered, .dismissed:
            if mode == .menu || mode == .alert { try present(mode, connection) }
        case .snapshotRequest:
            if mode == .crashInDrag { abort() }
        case .lifecycle(.didEnterBackground) where mode == .pipReopen,
             .pipAction(.close) where mode == .pipReopen:
            try connection.pipCommit(try painted(640, 360, color, connection))
        case .refused where mode == .pipReopen:
            if reopenTries < 3 {
                reopenTries += 1
                try connection.pipCommit(try painted(640, 360, color, connection))
            }
        case .frameDone where mode == .pipOpenClose && !closedPiP:
            closedPiP = true
            try connection.pipClose()
        case .frameDone:
            // The destroyed buffer stayed on screen; now replace it with another colour.
            if mode == .destroyShown, !replaced, let old = shown {
                replaced = true
                let b = try connection.buffer(width: old.width, height: old.height)
                PatternPainter.paint(b.image, color: RGB(red: 0x00, green: 0x00, blue: 0xCC))
                try connection.commit(b)
                shown = b
            }
        default:
            break
        }
    }
    _ = shown
} catch {
    Files.writeStandardError("diptych-misbehave: \(error)\n")
    exit(1)
}

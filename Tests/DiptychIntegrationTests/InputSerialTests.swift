// SPDX-License-Identifier: MIT
// Protocol 9's input serials against a real compositor, from apps that speak the wire by hand in
// a chosen version: a version 9 app raises the keyboard only by naming the last tap it was sent
// (or a key the keyboard sent it), never by a stale one; apps of versions 6 to 8 keep the 300 ms
// rule and get their input events in their own layout; the dismiss key tells a version 9 app.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

/// An app that speaks the protocol by hand in `version`: it says hello, then reads what comes.
final class HandWrittenApp {
    let socket: SharedDescriptor
    let version: UInt16
    private var assembler: MessageAssembler
    private(set) var events: [ServerEvent] = []

    init(_ f: Fixture, version: UInt16, name: String = "by hand") throws {
        socket = SharedDescriptor(try UnixSocket.connect(path: f.compositor.socketPath!))
        self.version = version
        assembler = MessageAssembler(versions: version...version)
        try send(.hello(name: name, requiresFullScreen: false))
    }

    func send(_ m: ClientMessage) throws { try UnixSocket.sendAll(socket.rawValue, m.encoded(version: version)) }

    /// Reads what the compositor sent so far.
    func pump() throws {
        while let r = try UnixSocket.receive(socket.rawValue, nonBlocking: true), !r.bytes.isEmpty {
            assembler.append(r.bytes)
            while let (op, body) = try assembler.next() { events.append(try ServerEvent.decode(opcode: op, body: body, version: version)) }
        }
    }

    /// The serial of the last touch `up` it was sent.
    var lastUp: UInt32? {
        events.last { if case .touch(_, .up, _, _, _, _) = $0 { true } else { false } }?.serial
    }

    func enable(serial: UInt32, hints: TextHints = []) throws {
        try send(.textInput(TextInputState(enabled: true, purpose: .text, hints: hints, caret: (10, 10, 2, 20), serial: serial)))
    }
}

struct InputSerialTests {
    /// A full-screen compositor with one hand-written app of `version`, configured.
    func fixture(version: UInt16) throws -> (Fixture, HandWrittenApp) {
        let f = try Fixture(arrangement: .full)
        let app = try HandWrittenApp(f, version: version)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try app.pump()
            return app.events.contains { if case .configure = $0 { true } else { false } }
        })
        return (f, app)
    }

    func tap(_ f: Fixture, _ app: HandWrittenApp, id: Int32 = 1, x: Double = 500, y: Double = 300) throws {
        let ups = app.events.count { if case .touch(_, .up, _, _, _, _) = $0 { true } else { false } }
        f.compositor.touch(id: id, phase: .down, x: x, y: y)
        f.compositor.touch(id: id, phase: .up, x: x, y: y)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            try app.pump()
            return app.events.count { if case .touch(_, .up, _, _, _, _) = $0 { true } else { false } } > ups
        })
    }

    /// Lets the compositor take what the app sent (a turn or two), then says whether the
    /// keyboard shows.
    func keyboardShows(_ f: Fixture, _ app: HandWrittenApp, within ms: Int = 300) throws -> Bool {
        try f.compositor.run(timeoutMilliseconds: ms) {
            try app.pump()
            f.compositor.takeTextInput()
            return f.compositor.keyboardShown != nil
        }
    }

    @Test func aVersion9AppRaisesTheKeyboardOnlyByTheTapItWasSent() throws {
        let (f, app) = try fixture(version: 9)
        try tap(f, app)
        let first = try #require(app.lastUp)
        #expect(first > 0)
        try tap(f, app, id: 2)
        let second = try #require(app.lastUp)
        #expect(second > first, "serials increase")
        // Serials count every input event the app was sent, one counter a connection.
        let serials = app.events.compactMap(\.serial)
        #expect(serials == Array(1...UInt32(serials.count)))
        try app.enable(serial: first)
        #expect(try !keyboardShows(f, app), "a stale tap (another came after it) raises nothing")
        try app.enable(serial: second + 1000)
        #expect(try !keyboardShows(f, app), "nor a serial never sent")
        // Long after the tap (no time window): the tap named raises it.
        usleep(400_000)
        try app.enable(serial: second)
        #expect(try keyboardShows(f, app, within: 2000))
        #expect(f.compositor.protocolErrors.isEmpty)
    }

    /// ‹ › show for a field with neighbours and send Shift+Tab and Tab; the field the key moved
    /// to raises the keyboard naming the key; the dismiss key tells the app
    /// (`textInputDismissed`), and nothing sent before it raises the keyboard again.
    @Test func theBarsArrowsMoveBetweenFieldsAndDismissTellsTheApp() throws {
        let (f, app) = try fixture(version: 9)
        try tap(f, app)
        try app.enable(serial: try #require(app.lastUp), hints: [.hasNext])
        #expect(try keyboardShows(f, app, within: 2000))
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { !f.compositor.keyboardMoving })
        let labels = f.compositor.keyboardKeys.map(\.label)
        #expect(labels.contains("›") && !labels.contains("‹"), "\(labels)")
        let next = try #require(f.compositor.keyboardKeyCenter(.nextField))
        f.compositor.touch(id: 5, phase: .down, x: next.x, y: next.y)
        f.compositor.touch(id: 5, phase: .up, x: next.x, y: next.y)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) {
            try app.pump()
            return app.events.contains { if case .key(15, 0xFF09, _, .pressed, _, _, _) = $0 { true } else { false } }
        })
        let tab = try #require(app.events.last { if case .key(15, 0xFF09, _, .pressed, _, _, _) = $0 { true } else { false } }?.serial)
        // The next field: focus out and in, the enable naming the Tab; the keyboard stays up.
        try app.send(.textInput(.disabled))
        try app.enable(serial: tab, hints: [.hasPrevious])
        #expect(try keyboardShows(f, app))
        #expect(try f.compositor.run(timeoutMilliseconds: 1000) { f.compositor.keyboardKeys.contains { $0.label == "‹" } })
        let back = try #require(f.compositor.keyboardKeyCenter(.previousField))
        f.compositor.touch(id: 6, phase: .down, x: back.x, y: back.y)
        f.compositor.touch(id: 6, phase: .up, x: back.x, y: back.y)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) {
            try app.pump()
            return app.events.contains { if case .key(15, 0xFE20, _, .pressed, .shift, _, _) = $0 { true } else { false } }
        })
        // The dismiss key: the keyboard goes and the app hears it.
        let dismiss = try #require(f.compositor.keyboardKeyCenter(.dismiss))
        f.compositor.touch(id: 7, phase: .down, x: dismiss.x, y: dismiss.y)
        f.compositor.touch(id: 7, phase: .up, x: dismiss.x, y: dismiss.y)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) {
            try app.pump()
            return app.events.contains(.textInputDismissed) && f.compositor.keyboardShown == nil
        })
        // An app that keeps its field enabled, or enables it again naming what it was sent
        // before, raises nothing; a new tap does.
        try app.enable(serial: tab)
        #expect(try !keyboardShows(f, app))
        try tap(f, app)
        try app.enable(serial: try #require(app.lastUp))
        #expect(try keyboardShows(f, app, within: 2000))
    }

    /// Apps of versions 6 to 8 (5 has no text input) keep the 300 ms rule: an enable right
    /// after a tap raises the keyboard, one later does not; their touch events come in their
    /// own layout (no serial), and they are never sent textInputDismissed.
    @Test(arguments: [UInt16(6), 8])
    func olderAppsKeepTheTimeWindow(version: UInt16) throws {
        let (f, app) = try fixture(version: version)
        try tap(f, app)
        #expect(app.lastUp == 0, "no serial in version \(version)")
        usleep(450_000)
        try app.enable(serial: 0)
        #expect(try !keyboardShows(f, app), "enabled 450 ms after the tap")
        try app.send(.textInput(.disabled))
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { f.compositor.textInputState(.primary)?.enabled == false })
        try tap(f, app)
        try app.enable(serial: 0)
        #expect(try keyboardShows(f, app, within: 2000), "enabled at once after the tap: \(app.events.map(\.name))")
        let dismiss = try #require(f.compositor.keyboardKeyCenter(.dismiss))
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { !f.compositor.keyboardMoving })
        f.compositor.touch(id: 7, phase: .down, x: dismiss.x, y: dismiss.y)
        f.compositor.touch(id: 7, phase: .up, x: dismiss.x, y: dismiss.y)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { f.compositor.keyboardShown == nil })
        try app.pump()
        #expect(!app.events.contains(.textInputDismissed))
        #expect(f.compositor.protocolErrors.isEmpty)
    }
}

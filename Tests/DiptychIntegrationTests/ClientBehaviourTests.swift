// SPDX-License-Identifier: MIT
// The Swift library's typed requests (no raw `send` in an app): hello once, an ack only of a
// serial a configure carried, the status bar style; checked over a socket pair against the
// golden configure.

import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

/// (With the inherited-socket tests: both set the process's DIPTYCH_SOCKET_FD, one at a time.)
extension InheritedSocketTests {
    /// A connection over one end of a socket pair (as a launched app gets it), and the other end.
    func pair() throws -> (Connection, SharedDescriptor) {
        let (ours, theirs) = try UnixSocket.pair()
        setenv("DIPTYCH_SOCKET_FD", "\(ours)", 1)
        return (try Connection.fromEnvironment(), SharedDescriptor(FileDescriptor(taking: theirs)))
    }

    /// What the compositor's end received so far, as messages.
    func received(_ end: SharedDescriptor) throws -> [ClientMessage] {
        var assembler = MessageAssembler()
        while let r = try UnixSocket.receive(end.rawValue, nonBlocking: true), !r.bytes.isEmpty { assembler.append(r.bytes) }
        var out: [ClientMessage] = []
        while let (opcode, body) = try assembler.next() { out.append(try ClientMessage.decode(opcode: opcode, body: body)) }
        return out
    }

    @Test func typedRequestsRefuseMisuseBeforeSending() throws {
        let (c, end) = try pair()
        try c.hello(name: "typed")
        #expect(throws: ClientError.self) { try c.hello(name: "again") }
        // No configure yet: an ack is not sent.
        #expect(throws: ClientError.self) { try c.ack(17) }
        let configure = try Files.read("\(repositoryRoot)/Assets/protocol/golden/configure.bin")
        _ = try UnixSocket.send(end.rawValue, configure[...])
        guard case .configure(let conf)? = try c.nextEvent() else {
            Issue.record("no configure")
            return
        }
        try c.ack(conf.serial)
        #expect(throws: ClientError.self) { try c.ack(conf.serial + 1) }
        try c.setStatusBarStyle(.light)
        #expect(try received(end) == [.hello(name: "typed", requiresFullScreen: false), .ack(serial: 17), .statusBarStyle(.light)])
    }
}

private let ccIsThereForConformance = ((try? Harness.run(["/bin/sh", "-c", "command -v cc"]))?.status ?? 1) == 0

/// One client behaviour in Swift, C and Python: one scripted fake compositor (golden events
/// written into a socket pair: a configure superseded by a second one before it was read, a
/// sync, a release, a refused request, an error) drives each library as a minimal app; each
/// hands out the same events, and sends the same bytes back (hello, the newest configure's ack,
/// the sync's answer).
extension InheritedSocketTests {
    /// The script, in the golden messages' bytes (the second configure's serial is 18).
    static func script() throws -> [UInt8] {
        func golden(_ name: String) throws -> [UInt8] { try Files.read("\(repositoryRoot)/Assets/protocol/golden/\(name).bin") }
        var newer = try golden("configure")
        newer[8] = 18
        return try golden("configure") + newer + golden("sync") + golden("release") + golden("refused") + golden("error")
    }

    /// Plays the script to `run` (which runs the app on the other end) and returns what the app
    /// sent back, read to the end.
    func play(_ run: (Int32) throws -> Void) throws -> [UInt8] {
        let (fake, app) = try UnixSocket.pair()
        defer { Glibc.close(fake) }
        try UnixSocket.sendAll(fake, try Self.script())
        shutdown(fake, Int32(SHUT_WR))
        try run(app)
        var sent: [UInt8] = []
        while let r = try UnixSocket.receive(fake), !r.bytes.isEmpty { sent += r.bytes }
        return sent
    }

    @Test(.enabled(if: ccIsThereForConformance, "needs cc"))
    func swiftCAndPythonBehaveAlike() throws {
        // Swift, in this process.
        var swiftLines: [String] = []
        let swiftSent = try play { app in
            setenv("DIPTYCH_SOCKET_FD", "\(app)", 1)
            let c = try Connection.connect(name: "conformance")
            while let e = try c.nextEvent() {
                switch e {
                case .configure(let conf):
                    swiftLines.append("configure")
                    try c.ack(conf.serial)
                case .error(let err): swiftLines.append("error \(err.code.name)")
                case .refused(let request, let reason, _): swiftLines += ["refused", "refused \(request) \(reason)"]
                case .sync: swiftLines.append("sync")
                case .release: swiftLines.append("release")
                default: swiftLines.append("other")
                }
            }
            swiftLines.append("end")
        }
        // C and Python, each a process holding the other end as descriptor 3.
        let dir = Harness.temporaryDirectory("conformance")
        let app = try CLibraryBuild.program("c-conformance", in: dir), library = try CLibraryBuild.sharedLibrary(in: dir)
        func child(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ([String], [UInt8]) {
            var lines: [String] = []
            let sent = try play { app in
                let out = "\(dir)/out-\(arguments.count)"
                let p = try ChildProcess(
                    arguments: ["/bin/sh", "-c", arguments.map { "'\($0)'" }.joined(separator: " ") + " > '\(out)'"],
                    environment: environment.merging(["DIPTYCH_SOCKET_FD": "3"]) { $1 }, inheritedSocket: app)
                Glibc.close(app)
                #expect(p.wait(milliseconds: 20_000) == 0, "\(arguments)")
                lines = String(decoding: try Files.read(out), as: UTF8.self).split(separator: "\n").map(String.init)
            }
            return (lines, sent)
        }
        let (cLines, cSent) = try child([app])
        let (pyLines, pySent) = try child(
            ["python3", "\(repositoryRoot)/Tests/Tools/py-conformance.py"],
            ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library])
        let expected = ["configure", "sync", "release", "refused", "refused pictureInPicture closed", "error bad-state", "end"]
        #expect(swiftLines == expected)
        #expect(cLines == expected)
        #expect(pyLines == expected)
        // The same bytes back from all three: hello, the ack of the newest configure (18, the
        // superseded 17 skipped), the sync's answer.
        let hello = ClientMessage.hello(name: "conformance", requiresFullScreen: false).encoded()
        let answers = hello + ClientMessage.ack(serial: 18).encoded() + ClientMessage.syncDone(serial: 31).encoded()
        #expect(swiftSent == answers)
        #expect(cSent == answers)
        #expect(pySent == answers)
    }
}

/// Menus and alerts asked for alike in Swift, C and Python: a menu of 500 items of 200 bytes
/// goes in two pieces of at most 64 KiB, then an alert and its dismissal; the same bytes from
/// all three, and misuse refused before anything is sent.
extension InheritedSocketTests {
    @Test(.enabled(if: ccIsThereForConformance, "needs cc"))
    func swiftCAndPythonAskForMenusAndAlertsAlike() throws {
        let items = (0..<500).map { i in
            var flags: MenuItemFlags = []
            if i == 7 { flags.insert(.selected) }
            if i % 50 == 0 { flags.insert(.header) }
            return MenuItem("Item \(String(i + 1000).dropFirst()) " + String(repeating: "x", count: 191), flags: flags)
        }
        let alert = AlertRequest(id: 4, title: "Name?", message: "Type it", field: .text, placeholder: "Name", text: "Bo",
                                 buttons: [AlertButton("Cancel", style: .cancel), AlertButton("OK")])
        func sent(by run: (Int32) throws -> Void) throws -> [UInt8] {
            let (fake, app) = try UnixSocket.pair()
            defer { Glibc.close(fake) }
            try run(app)
            var bytes: [UInt8] = []
            while let r = try UnixSocket.receive(fake, nonBlocking: true), !r.bytes.isEmpty { bytes += r.bytes }
            return bytes
        }
        let swift = try sent { app in
            setenv("DIPTYCH_SOCKET_FD", "\(app)", 1)
            let c = try Connection.connect(name: "present")
            try c.presentMenu(id: 3, anchor: Rect(x: 10, y: 20, width: 300, height: 44), title: "Pick", items: items)
            try c.presentAlert(alert)
            try c.dismissPresented(id: 4)
            try c.idleInhibit(true)
            try c.idleInhibit(false)
            #expect(throws: ClientError.self) { try c.presentAlert(AlertRequest(id: 5, title: "", message: "", buttons: [])) }
            #expect(throws: ClientError.self) { try c.presentMenu(id: 6, anchor: Rect(x: 0, y: 0, width: 1, height: 1), items: Array(repeating: MenuItem("a"), count: 10_001)) }
        }
        let dir = Harness.temporaryDirectory("present")
        let program = try CLibraryBuild.program("c-present", in: dir), library = try CLibraryBuild.sharedLibrary(in: dir)
        func child(_ arguments: [String], _ environment: [String: String] = [:]) throws -> [UInt8] {
            try sent { app in
                let p = try ChildProcess(arguments: arguments, environment: environment.merging(["DIPTYCH_SOCKET_FD": "3"]) { $1 }, inheritedSocket: app)
                Glibc.close(app)
                #expect(p.wait(milliseconds: 20_000) == 0, "\(arguments)")
            }
        }
        let c = try child([program])
        let python = try child(["python3", "\(repositoryRoot)/Tests/Tools/py-present.py"],
                               ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library])
        let (cCount, pyCount, swiftCount) = (c.count, python.count, swift.count)
        #expect(c == swift, "C sent \(cCount) bytes, Swift \(swiftCount)")
        #expect(python == swift, "Python sent \(pyCount) bytes, Swift \(swiftCount)")
        var assembler = MessageAssembler()
        assembler.append(swift)
        var messages: [ClientMessage] = []
        while let (opcode, body) = try assembler.next() { messages.append(try ClientMessage.decode(opcode: opcode, body: body)) }
        let pieces = messages.compactMap { if case .presentMenu(let m) = $0 { m } else { nil } }
        #expect(pieces.count == 2 && pieces[0].first == 0 && pieces[1].first == UInt32(pieces[0].items.count))
        #expect(pieces.flatMap(\.items) == items)
        #expect(messages.suffix(4) == [.presentAlert(alert), .dismissPresented(id: 4), .idleInhibit(on: true), .idleInhibit(on: false)])
    }
}

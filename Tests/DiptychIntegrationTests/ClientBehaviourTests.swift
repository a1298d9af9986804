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

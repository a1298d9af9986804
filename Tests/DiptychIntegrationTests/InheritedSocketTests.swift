// SPDX-License-Identifier: MIT
// An app's own children never inherit its connection to the compositor: the Swift and C
// libraries take DIPTYCH_SOCKET_FD, check that it is an open socket, make it close-on-exec and
// unset the variable (as wl_display_connect does with WAYLAND_SOCKET).

import CLinuxShims
import DiptychClient
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let ccIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v cc"]))?.status ?? 1) == 0

/// The environment is the process's: these tests run one at a time.
@Suite(.serialized)
struct InheritedSocketTests {
    @Test func swiftTakesTheDescriptorAndLeavesNothingToInherit() throws {
        let (ours, theirs) = try UnixSocket.pair()
        defer { Glibc.close(theirs) }
        setenv("DIPTYCH_SOCKET_FD", "\(ours)", 1)
        let c = try Connection.fromEnvironment()
        #expect(getenv("DIPTYCH_SOCKET_FD") == nil)
        #expect(fcntl(c.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)
        // A number that is no socket is refused by name (and unset all the same).
        let file = open("/dev/null", O_RDONLY)
        defer { Glibc.close(file) }
        setenv("DIPTYCH_SOCKET_FD", "\(file)", 1)
        #expect(throws: ClientError.self) { _ = try Connection.fromEnvironment() }
        #expect(getenv("DIPTYCH_SOCKET_FD") == nil)
    }

    @Test(.enabled(if: ccIsThere, "needs cc"))
    func cTakesTheDescriptorAndLeavesNothingToInherit() throws {
        let dir = Harness.temporaryDirectory("c-inherit")
        let inherit = try CLibraryBuild.program("c-inherit", in: dir)
        #expect(try Harness.run([inherit]).stdout == "unset cloexec\n")
        let refused = try Harness.run([inherit, "not-a-socket"]).stdout
        #expect(refused.hasPrefix("refused: DIPTYCH_SOCKET_FD=") && refused.contains("not an open socket"), "\(refused)")
    }
}

// SPDX-License-Identifier: MIT
// Who may use `diptych ctl`: the socket systemd makes (diptych-ctl.socket) passed to the
// compositor as socket activation (`LISTEN_FDS`, `LISTEN_PID`, fd 3) wins over --ctl-socket and
// lets in whom its mode and group let in; a user outside the group is told which group to join;
// a --ctl-group the compositor cannot give its socket to leaves the owner's 0600 socket.

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let setprivIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v setpriv"]))?.status ?? 1) == 0
/// Whether users nobody and bin may run this build (every folder on the way searchable).
private let othersRunTheBuild = setprivIsThere
    && ((try? Harness.run(AnotherUser.command(2, [Harness.diptych, "--help"])))?.status ?? 1) == 0

struct ControlSocketTests {
    /// A compositor started as systemd starts it with its socket unit: fd 3 listening at
    /// `socket`, `LISTEN_FDS=1`, `LISTEN_PID` its own.
    func activated(_ dir: String, socket: String) throws -> ChildProcess {
        let listening = try UnixSocket.listen(path: socket)
        let child = try ChildProcess(arguments: [
            "/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" run --backend headless --device ipad --status-bar off --primary pattern:#123456 --ctl-socket \"$1\"",
            Harness.diptych, "\(dir)/unused.ctl",
        ], environment: ["DIPTYCH_SOCKET": "\(dir)/sock"], inheritedSocket: listening.rawValue)
        return child
    }

    @Test func theSocketSystemdPassedWinsOverCtlSocket() throws {
        let dir = Harness.temporaryDirectory("activation")
        let socket = "\(dir)/ctl"
        let k = try activated(dir, socket: socket)
        defer { k.terminate(graceMilliseconds: 5000) }
        var r: Harness.Result?
        #expect(try eventually(seconds: 30) {
            r = try Harness.run([Harness.diptych, "ctl", "--socket", socket, "status", "--json"], timeoutMilliseconds: 10_000)
            return r?.status == 0
        }, "\(r?.stderr ?? "")")
        #expect(r?.stdout.contains("\"device\":\"ipad\"") == true)
        #expect(!Files.exists("\(dir)/unused.ctl"), "--ctl-socket was not used")
        // The apps were not given the socket, nor told of it.
        #expect(k.poll() == nil)
    }

    /// The socket's group lets its members in (as diptych-ops does); another user is told which
    /// group grants it.
    @Test(.enabled(if: othersRunTheBuild, "needs setpriv and a build users bin and nobody may run"))
    func theGroupMayUseItAndOthersAreToldWhichGroup() throws {
        let dir = Harness.temporaryDirectory("activation-group")
        #expect(chmod(dir, 0o711) == 0)
        let socket = "\(dir)/ctl"
        let k = try activated(dir, socket: socket)
        defer { k.terminate(graceMilliseconds: 5000) }
        // As systemd makes it: SocketGroup=nogroup (nobody's), SocketMode=0660.
        #expect(chown(socket, 0, 65534) == 0 && chmod(socket, 0o660) == 0)
        var member: Harness.Result?
        #expect(try eventually(seconds: 30) {
            member = try Harness.run(AnotherUser.command(65534, [Harness.diptych, "ctl", "--socket", socket, "status"]), timeoutMilliseconds: 10_000)
            return member?.status == 0
        }, "\(member?.stderr ?? "")")
        #expect(member?.stdout.contains("device ipad") == true)
        let other = try Harness.run(AnotherUser.command(2, [Harness.diptych, "ctl", "--socket", socket, "status"]), timeoutMilliseconds: 10_000)
        #expect(other.status == 1 && other.stderr.contains("permission denied") && other.stderr.contains("nogroup"), "\(other.stderr)")
    }

    /// A --ctl-group the compositor's user is not in: the socket stays the owner's (0600), one
    /// log line says why, and ctl still works for the owner.
    @Test(.enabled(if: setprivIsThere, "needs setpriv"))
    func aGroupThatCannotBeGivenLeavesTheOwnersSocket() throws {
        let (k, run) = try AnotherUser.kiosk(65534, in: Harness.temporaryDirectory("ctl-group"), flags: ["--primary", "pattern:#123456", "--ctl-group", "daemon"])
        defer { k.terminate(graceMilliseconds: 5000) }
        #expect(try eventually(seconds: 30) { Files.exists("\(run)/ctl") })
        var st = stat()
        #expect(stat("\(run)/ctl", &st) == 0 && st.st_mode & 0o777 == 0o600 && st.st_uid == 65534)
        let r = try Harness.run(AnotherUser.command(65534, [Harness.diptych, "ctl", "--socket", "\(run)/ctl", "status"]), timeoutMilliseconds: 10_000)
        #expect(r.status == 0, "\(r.stderr)")
    }
}

// SPDX-License-Identifier: MIT
// Socket security, leaks and soak: what an unattended kiosk needs (issue: hardening).

import DiptychClient
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

/// The address space mapped by this process (statm's size).
func mappedBytes() -> Int {
    let text = String(decoding: (try? Files.read("/proc/self/statm")) ?? [], as: UTF8.self)
    return (Int(text.split(separator: " ").first ?? "") ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

@Suite(.serialized)
struct RobustnessTests {
    @Test(.enabled(if: getuid() == 0 && Files.exists("/usr/bin/setpriv"), "needs root and setpriv to act as another user"))
    func anotherUserIsRefused() throws {
        let dir = Harness.temporaryDirectory("uid")
        chmod(dir, 0o755)
        let f = try Fixture(arrangement: .full, directory: dir)
        chmod(f.compositor.socketPath!, 0o777)  // even a world-writable socket does not let others in
        let other = try ChildProcess(
            arguments: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Harness.demo, "pattern:#AA0000"],
            environment: ["DIPTYCH_SOCKET": f.compositor.socketPath!, "DIPTYCH_SOCKET_FD": ""])
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { other.poll() != nil })
        #expect(other.exitStatus == 1)
        #expect(f.compositor.protocolErrors.first?.error.message.contains("uid 65534") == true)
        #expect(!f.compositor.isConnected(.primary))
    }

    @Test func aStaleSocketIsReplaced() throws {
        let dir = Harness.temporaryDirectory("stale")
        // What a crashed compositor leaves: the socket file, no lock holder.
        let path = "\(dir)/diptych-stale"
        _ = try UnixSocket.listen(path: path)
        #expect(Files.exists(path))
        let config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .full, listen: true, socketPath: path)
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        let client = try Connection(path: path)
        try client.send(.hello(name: "probe", requiresFullScreen: false))
        #expect(try c.run(timeoutMilliseconds: 5000) { c.isConnected(.primary) })
        c.shutdown()
    }

    /// 1000 connect/hello/configure/commit/disconnect cycles leave the descriptor count
    /// unchanged and the resident size within a few MB; 10,000 frames of an app drawing every
    /// frame hold steady too. Measured in a process of its own (`diptych-test-tools soak`), so no other
    /// test disturbs the figures.
    @Test func connectCyclesAndLongRunsLeakNothing() throws {
        let dir = Harness.temporaryDirectory("soak")
        let r = try Harness.run([Harness.testTools, "soak", "--dir", dir, "--cycles", "1000", "--frames", "10000"], timeoutMilliseconds: 300_000)
        #expect(r.status == 0, "\(r.stderr)")
        let j = try JSONValue.parse(r.stdout.trimmingNewline)
        let cycleFDs = j["cycle_fds"]?.arrayValue?.compactMap(\.intValue) ?? []
        let cycleRSS = j["cycle_rss"]?.arrayValue?.compactMap(\.intValue) ?? []
        let frameFDs = j["frame_fds"]?.arrayValue?.compactMap(\.intValue) ?? []
        let frameRSS = j["frame_rss"]?.arrayValue?.compactMap(\.intValue) ?? []
        #expect(cycleFDs.count == 2 && cycleFDs[0] == cycleFDs[1], "\(cycleFDs)")
        #expect(cycleRSS.count == 2 && cycleRSS[1] - cycleRSS[0] < 8 << 20, "\(cycleRSS)")
        #expect(frameFDs.count == 2 && frameFDs[0] == frameFDs[1], "\(frameFDs)")
        #expect(frameRSS.count == 2 && frameRSS[1] - frameRSS[0] < 8 << 20, "\(frameRSS)")
        #expect((j["commits"]?.intValue ?? 0) > 9000)  // the app really drew every frame
    }
}

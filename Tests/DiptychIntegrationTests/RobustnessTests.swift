// SPDX-License-Identifier: MIT
// Socket security, leaks and soak: what an unattended kiosk needs (issue: hardening).

import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Logging
import Testing

func openDescriptors() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var n = 0
    while readdir(dir) != nil { n += 1 }
    return n
}

func residentBytes() -> Int {
    let text = String(decoding: (try? Files.read("/proc/self/statm")) ?? [], as: UTF8.self)
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

@Suite(.serialized)
struct RobustnessTests {
    @Test func anotherUserIsRefused() throws {
        guard getuid() == 0, Files.exists("/usr/bin/setpriv") else { return }  // needs root to act as another user
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

    /// 1000 connect/hello/configure/disconnect cycles leave the descriptor count unchanged and
    /// the resident size within a few MB.
    @Test func connectDisconnectCyclesLeakNothing() throws {
        let dir = Harness.temporaryDirectory("soak")
        let config = CompositorConfiguration(profile: try DeviceProfile.named("640x480@1"), orientation: .landscape, arrangement: .full, listen: true, socketPath: "\(dir)/s")
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { c.shutdown() }
        func cycle() throws {
            let client = try Connection(path: "\(dir)/s")
            try client.send(.hello(name: "cycle", requiresFullScreen: false))
            #expect(try c.run(timeoutMilliseconds: 5000) { c.isConnected(.primary) })
            let buffer = try ShmBuffer(width: 640, height: 480)
            guard case .configure(let conf)? = try client.nextEvent() else {
                Issue.record("no configure")
                return
            }
            try client.send(.ack(serial: conf.serial))
            try client.commit(buffer)
            #expect(try c.run(timeoutMilliseconds: 5000) { c.hasCommittedForConfigure(.primary) })
            c.repaint()
        }
        for _ in 0..<50 { try cycle(); try c.run(timeoutMilliseconds: 5000) { !c.isConnected(.primary) } }
        let fds = openDescriptors(), rss = residentBytes()
        for _ in 0..<1000 {
            try cycle()
            #expect(try c.run(timeoutMilliseconds: 5000) { !c.isConnected(.primary) })
        }
        #expect(openDescriptors() == fds)
        #expect(residentBytes() - rss < 8 << 20, "grew by \(residentBytes() - rss) bytes")
    }

    /// A long headless run with an app drawing every frame holds steady memory.
    @Test func tenThousandFramesHoldSteadyMemory() throws {
        let config = CompositorConfiguration(profile: try DeviceProfile.named("320x240@1"), orientation: .landscape, arrangement: .full, listen: false)
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { c.shutdown() }
        c.admitsAtHello = false
        try c.launch([Harness.demo, "pattern:#123456", "--animate"], role: .primary, label: "busy")
        c.virtualTime = 0
        try c.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        let driver = FrameDriver(compositor: c)
        var rss = 0, fds = 0
        for i in 0..<10_000 {
            if i == 1000 { rss = residentBytes(); fds = openDescriptors() }
            try driver.frame(at: UInt64(i) * 16, record: false) { false }
        }
        #expect(c.commits(.primary) > 9000)  // it really drew every frame
        #expect(openDescriptors() == fds)
        #expect(residentBytes() - rss < 8 << 20, "grew by \(residentBytes() - rss) bytes")
    }
}

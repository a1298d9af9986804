// SPDX-License-Identifier: MIT
// `diptych-test-tools soak`: leak and soak checks in a process of their own, so nothing else
// disturbs the descriptor count or the resident size they measure.

import ArgumentParser
import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychHarness
import DiptychServer
import Glibc
import Logging

struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak", abstract: "Measure descriptors and resident size across connect cycles and frames.")

    @Option(help: "Connect/hello/configure/commit/disconnect cycles.")
    var cycles: Int = 1000

    @Option(help: "Frames with an app drawing every frame.")
    var frames: Int = 10_000

    @Option(help: "A folder for the socket.")
    var dir: String

    @Option(help: "The demo client (default: diptych-demo beside this program).")
    var demo: String?

    static func descriptors() -> Int {
        guard let d = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(d) }
        var n = 0
        while readdir(d) != nil { n += 1 }
        return n
    }

    static func resident() -> Int {
        let text = String(decoding: (try? Files.read("/proc/self/statm")) ?? [], as: UTF8.self)
        let f = text.split(separator: " ")
        return f.count > 1 ? (Int(f[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    func run() throws {
        try reportingErrors {
            let quiet = Logger(label: "soak", factory: { _ in SwiftLogNoOpLogHandler() })
            // 1. Connect cycles.
            var config = CompositorConfiguration(profile: try DeviceProfile.named("640x480@1"), orientation: .landscape, arrangement: .full, listen: true, socketPath: "\(dir)/s")
            // A thousand connections as fast as one process can make them: past a user's
            // connection budget, which is not what is measured here.
            (config.connectBurst, config.connectsPerSecond) = (100_000, 100_000)
            let c = try Compositor(configuration: config, logger: quiet)
            func cycle() throws {
                let client = try Connection(path: "\(dir)/s")
                try client.send(.hello(name: "cycle", requiresFullScreen: false))
                guard try c.run(timeoutMilliseconds: 5000, until: { c.isConnected(.primary) }) else { throw RuntimeFailure("no connection") }
                let buffer = try client.buffer(width: 640, height: 480)
                guard case .configure(let conf)? = try client.nextEvent() else { throw RuntimeFailure("no configure") }
                try client.send(.ack(serial: conf.serial))
                try client.commit(buffer)
                guard try c.run(timeoutMilliseconds: 5000, until: { c.hasCommittedForConfigure(.primary) }) else { throw RuntimeFailure("no commit") }
                c.repaint()
            }
            func disconnected() throws { try c.run(timeoutMilliseconds: 5000) { !c.isConnected(.primary) } }
            for _ in 0..<50 { try cycle(); try disconnected() }
            let fd0 = Self.descriptors(), rss0 = Self.resident()
            for _ in 0..<cycles { try cycle(); try disconnected() }
            let fd1 = Self.descriptors(), rss1 = Self.resident()
            c.shutdown()

            // 2. Frames with an app drawing every frame.
            let small = CompositorConfiguration(profile: try DeviceProfile.named("320x240@1"), orientation: .landscape, arrangement: .full, listen: false)
            let f = try Compositor(configuration: small, logger: quiet)
            f.admitsAtHello = false
            let beside = CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            try f.launch([demo ?? (beside.isEmpty ? "diptych-demo" : beside + "/diptych-demo"), "pattern:#123456", "--animate"], role: .primary, label: "busy")
            f.virtualTime = 0
            try f.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
            let driver = FrameDriver(compositor: f)
            var fd2 = 0, rss2 = 0
            for i in 0..<frames {
                if i == min(1000, frames / 10) { fd2 = Self.descriptors(); rss2 = Self.resident() }
                try driver.frame(at: UInt64(i) * 16, record: false) { false }
            }
            let fd3 = Self.descriptors(), rss3 = Self.resident()
            let commits = f.commits(.primary)
            f.shutdown()
            print(JSONValue.object([
                ("cycles", .int(cycles)), ("cycle_fds", .array([.int(fd0), .int(fd1)])), ("cycle_rss", .array([.int(rss0), .int(rss1)])),
                ("frames", .int(frames)), ("frame_fds", .array([.int(fd2), .int(fd3)])), ("frame_rss", .array([.int(rss2), .int(rss3)])),
                ("commits", .int(commits)),
            ]).serialized)
        }
    }
}

// SPDX-License-Identifier: MIT
// `diptych ctl` against a running `diptych run` (headless, real app processes): status names the
// apps and their processes, a screenshot is the frame the compositor draws, the statistics parse
// as Prometheus's text format, the orientation turns, an app restarts; bad usage is exit 2, an
// unreachable compositor exit 1; a client that sends garbage or nothing is answered or dropped
// while the compositor goes on; a launched app and another user are refused.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychRender
import DiptychTestSupport
import Glibc
import Testing

struct ControlTests {
    @Test func statusScreenshotStatsOrientationAndRestart() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "shown" } == true })
        let status = try k.status()
        #expect(status["device"]?.stringValue == "ipad" && status["arrangement"]?.stringValue == "split-2/3")
        #expect(status["kernel"]?.stringValue == BoxKernel.best.rawValue)
        let panes = status["panes"]?.arrayValue ?? []
        #expect(panes.map { $0["app"]?.stringValue } == ["pattern:#123456", "notes"])
        let pids = panes.compactMap { $0["pid"]?.intValue }
        #expect(pids.count == 2 && pids.allSatisfy { kill(pid_t($0), 0) == 0 })
        #expect(try k.ctl(["status"]).stdout.contains("secondary: notes (pid \(pids[1]), shown)"))

        // The screenshot is the frame the compositor draws (its last, written at SIGTERM).
        let shot = try k.ctl(["screenshot", "\(k.dir)/shot.png"])
        #expect(shot.status == 0, "\(shot.stderr)")

        // Prometheus's text format: comments, then `name{labels} value` lines.
        let prometheus = try k.ctl(["stats", "--prometheus"]).stdout
        var samples: [String: Double] = [:]
        for line in prometheus.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2 && Double(parts[1]) != nil, "not a sample: \(line)")
            samples[String(parts[0])] = Double(parts[1])
        }
        #expect((samples["diptych_frames_total"] ?? 0) >= 1 && samples["diptych_blanked"] == 0 && samples["diptych_resident_memory_bytes"] ?? 0 > 1_000_000)
        #expect(samples.keys.contains("diptych_frame_seconds{quantile=\"0.5\"}"))
        #expect(try JSONValue.parse(try k.ctl(["stats", "--json"]).stdout)["frames"]?.intValue ?? 0 >= 1)

        kill(k.process.pid, SIGTERM)
        #expect(k.process.wait(milliseconds: 20_000) == 0)
        #expect(try Files.read("\(k.dir)/shot.png") == Files.read("\(k.dir)/frame.png"))
        #expect(!Files.exists(k.control))  // the socket goes with the compositor
    }

    @Test func theOrientationTurnsAndAnAppRestarts() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "shown" } == true })
        #expect(try k.ctl(["orientation", "portrait"]).status == 0)
        #expect(try k.status()["orientation"]?.stringValue == "portrait")
        let before = try #require(try k.status()["panes"]?.arrayValue?.last?["pid"]?.intValue)
        #expect(try k.ctl(["restart", "secondary"]).status == 0)
        #expect(try k.waitUntil {
            let p = try k.status()["panes"]?.arrayValue?.last
            return p?["pid"]?.intValue.map { $0 != before } == true && p?["state"]?.stringValue == "shown"
        })
    }

    @Test func badUsageAndAnUnreachableCompositorAreNamed() throws {
        let k = try Kiosk()
        for words in [["frobnicate"], ["orientation", "sideways"], ["screenshot"], ["restart", "tertiary"], []] {
            let r = try k.ctl(words)
            #expect(r.status == 2, "\(words): \(r.status) \(r.stderr)")
        }
        let missing = try Harness.run([Harness.diptych, "ctl", "--socket", "\(k.dir)/none.ctl", "status"])
        #expect(missing.status == 1 && missing.stderr.contains("cannot reach a compositor at \(k.dir)/none.ctl"), "\(missing.stderr)")
        // A screenshot to a folder that does not exist: exit 1, nothing written.
        let unwritable = try k.ctl(["screenshot", "\(k.dir)/no/such/shot.png"])
        #expect(unwritable.status == 1 && !Files.exists("\(k.dir)/no"))
    }

    /// Garbage gets an error and the connection closes; a client that sends nothing is dropped
    /// after 2 s; the compositor answers others meanwhile.
    @Test func garbageAndSilenceAreBoundedAndTheLoopNeverWaits() throws {
        let k = try Kiosk()
        let garbage = try UnixSocket.connect(path: k.control)
        try UnixSocket.sendAll(garbage.rawValue, Array("not json at all\n".utf8))
        var reply: [UInt8] = []
        while let r = try UnixSocket.receive(garbage.rawValue), !r.endOfStream { reply += r.bytes }
        #expect(String(decoding: reply, as: UTF8.self).contains("\"ok\":false"))
        let silent = try UnixSocket.connect(path: k.control)
        let start = MonotonicClock.milliseconds
        #expect(try k.ctl(["status"]).status == 0)  // answered while the silent one waits
        var dropped: [UInt8] = []
        while let r = try UnixSocket.receive(silent.rawValue), !r.endOfStream { dropped += r.bytes }
        let waited = MonotonicClock.milliseconds - start
        #expect(waited >= 1500 && waited < 10_000, "\(waited) ms")
        #expect(String(decoding: dropped, as: UTF8.self).contains("no request within"))
        garbage.close()
        silent.close()
    }

    /// `--cursor always`: the cursor shows from the start at the screen's centre (in the
    /// frames the compositor draws), and never in a screenshot.
    @Test func anAlwaysShownCursorIsInTheFramesButNotInAScreenshot() throws {
        let k = try Kiosk(primary: "pattern:#F0F0F0", flags: ["--cursor", "always", "--arrangement", "full"])
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.first?["state"]?.stringValue == "shown" })
        #expect(try k.ctl(["screenshot", "\(k.dir)/shot.png"]).status == 0)
        kill(k.process.pid, SIGTERM)
        #expect(k.process.wait(milliseconds: 20_000) == 0)
        let frame = try PixelImage.readPNG(from: "\(k.dir)/frame.png"), shot = try PixelImage.readPNG(from: "\(k.dir)/shot.png")
        // The screen's centre: 1024, 768 pixels; the cursor darkens the light pattern there.
        #expect(frame.pixel(x: 1024, y: 768) & 0xFF < 0xC0, "\(String(frame.pixel(x: 1024, y: 768), radix: 16))")
        #expect(shot.pixel(x: 1024, y: 768) & 0xFFFFFF == 0xF0F0F0)
        #expect(frame.pixel(x: 100, y: 100) & 0xFFFFFF == 0xF0F0F0)
    }

    /// A process the compositor launched may not control it; nor may another user.
    @Test func aLaunchedAppAndAnotherUserAreRefused() throws {
        let out = Harness.temporaryDirectory("ctl-app") + "/said"
        let k = try Kiosk(primary: "/bin/sh -c 'while [ ! -S \"$DIPTYCH_SOCKET.ctl\" ]; do sleep 0.05; done; \(Harness.diptych) ctl --socket \"$DIPTYCH_SOCKET.ctl\" status > \(out) 2>&1; sleep 30'")
        #expect(k.waitUntil { ((try? Files.read(out)) ?? []).count > 0 })
        let said = String(decoding: try Files.read(out), as: UTF8.self)
        #expect(said.contains("may not control"), "\(said)")
        if getuid() == 0 {
            let other = try Harness.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Harness.diptych, "ctl", "--socket", k.control, "status"])
            #expect(other.status == 1, "\(other.stdout) \(other.stderr)")
        }
    }
}

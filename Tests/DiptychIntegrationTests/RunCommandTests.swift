// SPDX-License-Identifier: MIT
// `diptych run` on the headless backend: serves apps until SIGTERM, then exits cleanly.

import DiptychLinux
import DiptychRender
import DiptychTestSupport
import Glibc
import Testing

struct RunCommandTests {
    @Test func runsUntilSIGTERMAndWritesTheLastFrame() throws {
        let dir = Harness.temporaryDirectory("run")
        let socket = "\(dir)/diptych-run"
        let env = ["DIPTYCH_SOCKET": socket]
        let compositor = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", "pattern:#123456", "--out", dir],
            environment: env)
        defer { compositor.terminate() }
        // The app draws and is paced.
        var paced = false
        for _ in 0..<2000 where !paced {
            paced = Harness.events("\(dir)/events-primary.jsonl").contains { $0["event"]?.stringValue == "frameDone" }
            usleep(5000)
        }
        #expect(paced)
        #expect(Files.exists(socket))

        // A second compositor never takes a live socket.
        let second = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--device", "ipad"], environment: env, timeoutMilliseconds: 20_000)
        #expect(second.status == 1)
        #expect(second.stderr.contains("running compositor"), "\(second.stderr)")

        kill(compositor.pid, SIGTERM)
        #expect(compositor.wait(milliseconds: 20_000) == 0)
        let frame = try PixelImage.readPNG(from: "\(dir)/frame.png")
        #expect(frame.width == 2048 && frame.height == 1536)
        #expect(frame.pixel(x: 50, y: 50) & 0xFFFFFF == 0x123456)
        #expect(!Files.exists(socket))  // the socket goes with the compositor
    }

    @Test func drmBackendIsRefusedClearlyWhereThereIsNoCard() throws {
        let r = try Harness.run([Harness.diptych, "run", "--backend", "warp"])
        #expect(r.status == 2 && r.stderr.contains("valid backends: headless, drm"))
    }
}

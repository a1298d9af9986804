// SPDX-License-Identifier: MIT
// `diptych run` on the headless backend: serves apps until SIGTERM, then exits cleanly.

import DiptychCore
import DiptychDRM
import DiptychLinux
import DiptychImage
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
            paced = try Harness.events("\(dir)/events-primary.jsonl").contains { $0["event"]?.stringValue == "frameDone" }
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
        // frames.json with the same per-frame records as scenarios and profile.
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))
        let records = frames["frames"]?.arrayValue ?? []
        #expect(records.count >= 2)
        #expect(records.first?["composite_ms"]?.doubleValue != nil && records.first?["repainted_px"]?.intValue != nil)
    }

    /// SIGINT ends the run as cleanly as SIGTERM, and an app vanishing mid-write (SIGPIPE
    /// territory) does not kill the compositor.
    @Test func sigintAndVanishingAppsEndNothingButTheRun() throws {
        let dir = Harness.temporaryDirectory("sigint")
        let compositor = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", "pattern:#654321", "--out", dir],
            environment: ["DIPTYCH_SOCKET": "\(dir)/s"])
        defer { compositor.terminate() }
        var up = false
        for _ in 0..<2000 where !up {
            up = try Harness.events("\(dir)/events-primary.jsonl").contains { $0["event"]?.stringValue == "frameDone" }
            usleep(5000)
        }
        #expect(up)
        // Apps that connect and vanish at once, while the compositor answers them.
        for _ in 0..<20 {
            let app = try ChildProcess(arguments: [Harness.demo, "pattern:#111111"], environment: ["DIPTYCH_SOCKET": "\(dir)/s", "DIPTYCH_SOCKET_FD": ""])
            usleep(2000)
            kill(app.pid, SIGKILL)
            _ = app.wait(milliseconds: 5000)
        }
        #expect(compositor.poll() == nil)  // still running
        kill(compositor.pid, SIGINT)
        #expect(compositor.wait(milliseconds: 20_000) == 0)
        #expect(try PixelImage.readPNG(from: "\(dir)/frame.png").pixel(x: 50, y: 50) & 0xFFFFFF == 0x654321)
    }

    @Test func anUnknownBackendIsRefusedNamingTheChoices() throws {
        let r = try Harness.run([Harness.diptych, "run", "--backend", "warp"])
        #expect(r.status == 2 && r.stderr.contains("'warp'") && r.stderr.contains("headless") && r.stderr.contains("drm"), "\(r.stderr)")
    }

    @Test(.enabled(if: DRMProbe.usableCards().isEmpty, "for machines without a DRM card"))
    func drmBackendIsRefusedClearlyWhereThereIsNoCard() throws {
        let drm = try Harness.run([Harness.diptych, "run", "--backend", "drm"])
        #expect(drm.status == 1 && drm.stderr.contains("no usable DRM card: looked for /dev/dri/card*"))
        let mode = try Harness.run([Harness.diptych, "run", "--backend", "drm", "--mode", "huge"])
        #expect(mode.status == 2 && mode.stderr.contains("--mode 'huge'"))
        // Without --backend it falls back to headless and says so.
        let dir = Harness.temporaryDirectory("fallback")
        let scenario = try Harness.run([Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/full-screen-pin.json", "--out", dir])
        #expect(scenario.status == 0 && scenario.stderr.contains("using the headless backend"))
    }
}

struct InputOptionTests {
    @Test func badInputIsNamedWithExitTwo() throws {
        let missing = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--input", "/dev/input/event99"])
        #expect(missing.status == 2 && missing.stderr.contains("/dev/input/event99"))
        let dir = Harness.temporaryDirectory("input")
        let notInput = try Harness.run([Harness.diptych, "record", "--input", "/dev/null", "--out", "\(dir)/x.json"])
        #expect(notInput.status == 2 && notInput.stderr.contains("/dev/null"))
        let calibration = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--touch-calibration", "1,0,0,0,1", "--input", "udev"])
        #expect(calibration.status == 2 && calibration.stderr.contains("'1,0,0,0,1'"))
        let palm = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--palm-rejection", "maybe"])
        #expect(palm.status == 2 && palm.stderr.contains("'maybe'") && palm.stderr.contains("pen-priority") && palm.stderr.contains("off"))
        let noInput = try Harness.run([Harness.diptych, "record", "--out", "\(dir)/x.json"])
        #expect(noInput.status == 2 && noInput.stderr.contains("--input"))
        #expect(!Files.exists("\(dir)/x.json"))
    }

    /// With no input devices on this machine, a recording of the udev seat is an empty but
    /// valid scenario.
    @Test(.enabled(if: Files.isDirectory("/sys/class/input"), "needs sysfs for libinput's udev seat"))
    func anEmptyRecordingIsAValidScenario() throws {
        let dir = Harness.temporaryDirectory("record")
        let r = try Harness.run([Harness.diptych, "record", "--input", "udev", "--duration-ms", "200", "--out", "\(dir)/rec.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let played = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/rec.json", "--out", "\(dir)/out"])
        #expect(played.status == 0, "\(played.stderr)")
        #expect(Files.exists("\(dir)/out/recorded.png"))
    }

    /// `native` is a panel's own size: a headless run, layout and render have none.
    @Test func nativeNeedsAPanel() throws {
        for command in [["run", "--backend", "headless"], ["layout", "--arrangement", "full"], ["render", "--arrangement", "full", "--primary", "notes", "--out", "/tmp/never.png"]] {
            let r = try Harness.run([Harness.diptych] + command + ["--device", "native"], timeoutMilliseconds: 20_000)
            #expect(r.status == 2 && r.stderr.contains("--device native"), "\(command): \(r.status) \(r.stderr)")
        }
    }
}

// SPDX-License-Identifier: MIT
// A healthy kiosk is quiet: a web app's start prints nothing, stopping the kiosk relaunches
// nothing (and says no relaunch), and what is wrong is said once (no input device).

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

struct QuietTests {
    /// A web page rendered: its PNG's path on stdout, nothing at all on stderr (no
    /// accessibility-bus warning, no icon complaint).
    @Test(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
    func aHealthyWebStartPrintsNothing() throws {
        let dir = Harness.temporaryDirectory("quiet-web")
        let r = try Harness.run(
            [Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(repositoryRoot)/Assets/web/visitor-sign-in.html",
             "--out", "\(dir)/page.png"], timeoutMilliseconds: 120_000)
        #expect(r.status == 0 && r.stderr.isEmpty, "stderr: \(r.stderr)")
    }

    /// SIGTERM to the compositor (as systemd's KillMode=mixed sends it): its apps stop, none is
    /// relaunched, and the log says no relaunch.
    @Test func stoppingTheKioskRelaunchesNothing() throws {
        let dir = Harness.temporaryDirectory("quiet-stop")
        let notify = try NotifySocket(path: "\(dir)/notify")
        let k = try ChildProcess(arguments: [
            "/bin/sh", "-c", "exec \"$0\" run --backend headless --device ipad --status-bar off --relaunch always --primary pattern:#123456 --secondary notes 2> \"$1\"",
            Harness.diptych, "\(dir)/stderr",
        ], environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "NOTIFY_SOCKET": notify.path, "DIPTYCH_LOG_LEVEL": "info"])
        #expect(notify.wait(for: "READY=1", milliseconds: 30_000) { k.poll() == nil })
        kill(k.pid, SIGTERM)
        #expect(k.wait(milliseconds: 20_000) == 0)
        let log = String(decoding: try Files.read("\(dir)/stderr"), as: UTF8.self)
        #expect(!log.contains("relaunch"), "\(log)")
    }

    /// `--input udev` with no input device: one warning says so (touch does nothing otherwise).
    @Test(.enabled(if: !Files.exists("/dev/input"), "this machine has input devices"))
    func noInputDeviceIsSaidOnce() throws {
        let dir = Harness.temporaryDirectory("quiet-input")
        let notify = try NotifySocket(path: "\(dir)/notify")
        let k = try ChildProcess(arguments: [
            "/bin/sh", "-c", "exec \"$0\" run --backend headless --device ipad --input udev --primary pattern:#123456 2> \"$1\"", Harness.diptych, "\(dir)/stderr",
        ], environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "NOTIFY_SOCKET": notify.path])
        #expect(notify.wait(for: "READY=1", milliseconds: 30_000) { k.poll() == nil })
        k.terminate(graceMilliseconds: 5000)
        let log = String(decoding: try Files.read("\(dir)/stderr"), as: UTF8.self)
        #expect(log.components("no input device") == 1, "\(log)")
    }
}

extension String {
    fileprivate func components(_ needle: String) -> Int {
        var n = 0, rest = Substring(self)
        while let r = rest.firstRange(of: needle) {
            n += 1
            rest = rest[r.upperBound...]
        }
        return n
    }
}

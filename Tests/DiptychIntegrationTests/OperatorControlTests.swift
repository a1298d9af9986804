// SPDX-License-Identifier: MIT
// What an operator changes in a running kiosk (`diptych ctl` against `diptych run`, headless,
// real app processes): an app set in a role replaces the old one once it said hello, and one
// that cannot start leaves the old app; the arrangement and the panel's rotation change, and a
// touch lands where the turned picture shows; `reload` (and SIGUSR1) applies what changed in
// the configuration file and a bad file changes nothing; a restart is never a failure.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import Glibc
import Testing

private func panes(_ k: Kiosk) throws -> [JSONValue] { try k.status()["panes"]?.arrayValue ?? [] }

private func allShown(_ k: Kiosk) throws -> Bool {
    let p = try panes(k)
    return p.count == 2 && p.allSatisfy { $0["state"]?.stringValue == "shown" }
}

/// Whether `pid` has gone (exited and reaped).
private func gone(_ pid: Int) -> Bool { kill(pid_t(pid), 0) != 0 }

struct OperatorControlTests {
    @Test func setAppReplacesTheAppOnceTheNewOneSaidHello() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try allShown(k) })
        let old = try #require(try panes(k).last?["pid"]?.intValue)
        let r = try k.ctl(["set-app", "secondary", "pattern:#AA3355"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try k.waitUntil {
            let s = try panes(k).last
            return s?["app"]?.stringValue == "pattern:#AA3355" && s?["state"]?.stringValue == "shown"
        })
        #expect(k.waitUntil { gone(old) }, "the replaced app's process is still there")
        #expect(try k.ctl(["screenshot", "\(k.dir)/shot.png"]).status == 0)
        // The secondary's pane (Split View's right third) shows the new app.
        #expect(try PixelImage.readPNG(from: "\(k.dir)/shot.png").pixel(x: 1900, y: 700) & 0xFFFFFF == 0xAA3355)
        // Its command is the role's now: a restart brings it back, not notes.
        let replaced = try #require(try panes(k).last?["pid"]?.intValue)
        #expect(try k.ctl(["restart", "secondary"]).status == 0)
        #expect(try k.waitUntil {
            let s = try panes(k).last
            return s?["pid"]?.intValue.map { $0 != replaced } == true && s?["state"]?.stringValue == "shown"
        })
        #expect(try panes(k).last?["app"]?.stringValue == "pattern:#AA3355")
    }

    /// A command that does not exist, one that exits before hello and one that never says it:
    /// exit 1 naming why, the old app still in its pane with the same process.
    @Test func aSetAppThatCannotStartLeavesTheOldApp() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try allShown(k) })
        let old = try #require(try panes(k).last?["pid"]?.intValue)
        let cases: [(app: String, says: String)] = [
            ("no-such-program-here", "no program of that name"), ("/bin/false", "exited with status 1 before it said hello"),
            ("/bin/sleep 60", "did not say hello within 10 s"),
        ]
        for c in cases {
            let r = try k.ctl(["set-app", "secondary", c.app])
            #expect(r.status == 1 && r.stderr.contains(c.says) && r.stderr.contains("the secondary app stays"), "\(c.app): \(r.status) \(r.stderr)")
            let s = try panes(k).last
            #expect(s?["pid"]?.intValue == old && s?["app"]?.stringValue == "notes" && s?["state"]?.stringValue == "shown")
        }
        #expect(try k.ctl(["set-app", "tertiary", "notes"]).status == 2)
    }

    @Test func theArrangementAndTheRotationChange() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try allShown(k) })
        for a in ["slide-over", "full", "split-1/2", "split-2/3"] {
            let r = try k.ctl(["arrangement", a])
            #expect(r.status == 0, "\(a): \(r.stderr)")
            #expect(try k.status()["arrangement"]?.stringValue == a)
        }
        #expect(try k.ctl(["rotate", "left"]).status == 0)
        #expect(try k.status()["rotate"]?.intValue == 270)
        #expect(try k.ctl(["screenshot", "\(k.dir)/turned.png"]).status == 0)
        let turned = try PixelImage.readPNG(from: "\(k.dir)/turned.png")
        #expect(turned.width == 1536 && turned.height == 2048)
        #expect(try k.ctl(["rotate", "0"]).status == 0)
        for bad in [["arrangement", "diagonal"], ["rotate", "45"], ["rotate"]] { #expect(try k.ctl(bad).status == 2, "\(bad)") }
    }

    /// The panel turned a quarter anticlockwise (`rotate left`, 270° clockwise): a touch on the
    /// panel reaches the app at the point the turned picture shows there.
    @Test func aTouchLandsWhereTheTurnedPictureShowsIt() throws {
        let f = try Fixture(arrangement: .full)
        try f.connect(["pattern:#00AA00"], log: "app.jsonl")
        try f.compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        f.compositor.rotateOutput(.threeQuarters)
        #expect(f.compositor.geometry.panel == Size(width: 1536, height: 2048))
        // The logical pixel (200, 300), that is the point (100, 150), shows at panel (300, 2048 − 200).
        f.compositor.panelInput(.touch(id: 1, phase: .down, x: 300, y: 1848))
        f.compositor.panelInput(.touch(id: 1, phase: .up, x: 300, y: 1848))
        var touch: JSONValue?
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) {
            touch = try f.events("app.jsonl").first { $0["event"]?.stringValue == "touch" && $0["phase"]?.stringValue == "down" }
            return touch != nil
        })
        #expect(abs((touch?["x"]?.doubleValue ?? 0) - 100) < 1 && abs((touch?["y"]?.doubleValue ?? 0) - 150) < 1, "\(String(describing: touch))")
    }

    @Test func reloadAppliesWhatChangedAndABadFileChangesNothing() throws {
        let dir = Harness.temporaryDirectory("reload")
        let conf = "\(dir)/kiosk.conf"
        func write(_ lines: [String]) throws { try Files.writeAtomically(conf, bytes: Array((["[kiosk]"] + lines).joined(separator: "\n").utf8)) }
        try write(["primary = pattern:#123456", "secondary = notes"])
        let k = try Kiosk(apps: false, flags: ["--config", conf], directory: dir)
        #expect(try k.waitUntil { try allShown(k) })
        #expect(try k.ctl(["reload"]).stdout.contains("nothing changed"))

        #expect(try k.status()["keyboard"]?["layout"]?.stringValue == "us")
        try write(["primary = pattern:#123456", "secondary = pattern:#55AA33", "rotate = 90", "card = /dev/dri/card7", "keyboard-layouts = de,fr"])
        let r = try k.ctl(["reload"])
        #expect(r.status == 0 && r.stdout.contains("applied: keyboard-layouts, rotate, secondary") && r.stdout.contains("needs a restart of diptych: card"), "\(r.stdout) \(r.stderr)")
        #expect(try k.waitUntil { try panes(k).last?["app"]?.stringValue == "pattern:#55AA33" && allShown(k) })
        #expect(try k.status()["rotate"]?.intValue == 90)
        // The keyboard's languages, on screen and on the hardware keymap: German first.
        let keyboard = try k.status()["keyboard"]
        #expect(keyboard?["layout"]?.stringValue == "de" && keyboard?["layouts"]?.arrayValue?.count == 2 && keyboard?["keymap"]?.stringValue?.contains(":de:") == true, "\(String(describing: keyboard))")
        #expect(try k.ctl(["status"]).stdout.contains("keyboard: de (of de, fr)"))

        // A bad file: exit 1 naming file, line and key; nothing changes, the kiosk runs on.
        try write(["primary = pattern:#123456", "secondary = notes", "rotate = 180", "brightness = 11"])
        let bad = try k.ctl(["reload"])
        #expect(bad.status == 1 && bad.stderr.contains("\(conf):5") && bad.stderr.contains("brightness") && bad.stderr.contains("nothing changed"), "\(bad.stderr)")
        #expect(try k.status()["rotate"]?.intValue == 90 && panes(k).last?["app"]?.stringValue == "pattern:#55AA33")

        // SIGUSR1 (systemctl reload's signal) reads it again and never ends the kiosk.
        try write(["primary = pattern:#123456", "secondary = pattern:#55AA33", "rotate = 180"])
        kill(k.process.pid, SIGUSR1)
        #expect(try k.waitUntil { try k.status()["rotate"]?.intValue == 180 })
        #expect(k.process.poll() == nil)
        #expect(try k.status()["config"]?["differs"]?.arrayValue?.isEmpty == true)

        // A new app that fails: the reload waits for it and says so (exit 1), the old app stays,
        // and status says what runs differs from the file until it is right.
        try write(["primary = pattern:#123456", "secondary = /bin/false", "rotate = 180"])
        let failing = try k.ctl(["reload"])
        #expect(failing.status == 1 && failing.stderr.contains("secondary") && failing.stderr.contains("the old app stays"), "\(failing.stdout) \(failing.stderr)")
        #expect(!failing.stdout.contains("applied: secondary"))
        #expect(try panes(k).last?["app"]?.stringValue == "pattern:#55AA33")
        let status = try k.status()
        #expect(status["config"]?["file"]?.stringValue == conf && status["config"]?["differs"]?.arrayValue == [.string("secondary")], "\(status)")
        #expect(try k.ctl(["status"]).stdout.contains("differs from \(conf): secondary"))
        // A ctl change the file does not say: it differs too, until a reload applies the file.
        try write(["primary = pattern:#123456", "secondary = pattern:#55AA33", "rotate = 180"])
        #expect(try k.ctl(["reload"]).status == 0)
        #expect(try k.ctl(["rotate", "normal"]).status == 0)
        #expect(try k.status()["config"]?["differs"]?.arrayValue == [.string("rotate")])
        #expect(try k.ctl(["reload"]).status == 0)
        #expect(try k.status()["config"]?["differs"]?.arrayValue?.isEmpty == true && k.status()["rotate"]?.intValue == 180)
    }

    /// `screenshot --screen 2`: the second screen (here mirroring the main one, fitted to it);
    /// without a second screen it is exit 1.
    @Test func theSecondScreensScreenshot() throws {
        let k = try Kiosk(flags: ["--second-screen", "1280x720"])
        #expect(try k.waitUntil { try allShown(k) })
        #expect(try k.ctl(["screenshot", "\(k.dir)/two.png", "--screen", "2"]).status == 0)
        let two = try PixelImage.readPNG(from: "\(k.dir)/two.png")
        #expect(two.width == 1280 && two.height == 720)
        // The main screen's 2048 × 1536 in 1280 × 720: 960 wide, centred; the primary's pattern at its left.
        #expect(two.pixel(x: 400, y: 360) & 0xFFFFFF == 0x123456 && two.pixel(x: 100, y: 360) & 0xFFFFFF == 0)
        let none = try Kiosk()
        #expect(try none.ctl(["screenshot", "\(none.dir)/two.png", "--screen", "2"]).status == 1)
        #expect(try none.ctl(["screenshot", "\(none.dir)/two.png", "--screen", "3"]).status == 2)
    }

    /// `ctl blank` turns the screen black (the headless output cannot be turned off) and says
    /// so in status and stats; `ctl wake` brings the picture back.
    @Test func blankAndWake() throws {
        let k = try Kiosk(flags: ["--blank", "black"])
        #expect(try k.waitUntil { try allShown(k) })
        #expect(try k.ctl(["blank"]).status == 0)
        #expect(try k.status()["blanked"]?.boolValue == true)
        #expect(try k.ctl(["status"]).stdout.contains("screen blank"))
        #expect(try JSONValue.parse(try k.ctl(["stats", "--json"]).stdout)["blanked"]?.boolValue == true)
        #expect(try k.ctl(["screenshot", "\(k.dir)/blank.png"]).status == 0)
        #expect(try PixelImage.readPNG(from: "\(k.dir)/blank.png").pixel(x: 100, y: 100) & 0xFFFFFF == 0)
        #expect(try k.ctl(["wake"]).status == 0)
        #expect(try k.status()["blanked"]?.boolValue == false)
        #expect(try k.waitUntil {
            _ = try k.ctl(["screenshot", "\(k.dir)/on.png"])
            return try PixelImage.readPNG(from: "\(k.dir)/on.png").pixel(x: 100, y: 100) & 0xFFFFFF == 0x123456
        })
        let bad = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--blank-schedule", "nights"])
        #expect(bad.status == 2 && bad.stderr.contains("--blank-schedule"), "\(bad.stderr)")
    }

    /// `--memory-limit-secondary 48`: a secondary whose process tree holds 96 MB (a child
    /// process of the app's, as WebKit's are) is restarted once it is off screen; status shows
    /// each pane's memory and relaunches.
    @Test func anAppPastItsMemoryLimitIsRestarted() throws {
        let hog = "/bin/sh -c 'python3 -c \"import time; x = b\\\"x\\\" * (96 << 20); time.sleep(60)\" & exec \(Harness.demo) notes'"
        let k = try Kiosk(
            apps: false, flags: ["--primary", "pattern:#123456", "--secondary", hog, "--arrangement", "full", "--memory-limit-secondary", "48"],
            environment: ["DIPTYCH_MEMORY_SAMPLE_MS": "500"])
        #expect(try k.waitUntil { try panes(k).last?["pid"]?.intValue != nil })
        let first = try #require(try panes(k).last?["pid"]?.intValue)
        #expect(try k.waitUntil { try panes(k).last?["relaunches"]?.intValue ?? 0 >= 1 })
        #expect(try panes(k).last?["pid"]?.intValue != first)
        let primary = try panes(k).first
        #expect(primary?["memory_bytes"]?.intValue ?? 0 > 1 << 20 && primary?["relaunches"]?.intValue == 0)
        let prometheus = try k.ctl(["stats", "--prometheus"]).stdout
        #expect(prometheus.contains("diptych_app_relaunches_total{role=\"secondary\"} ") && prometheus.contains("diptych_app_relaunches_total{role=\"primary\"} 0"))
        #expect(prometheus.contains("diptych_app_oom_kills_total{role=\"secondary\"} 0") && prometheus.contains("diptych_frame_seconds_sum "))
        // No delegated cgroup here (a test, not the unit): the limit is sampled, and status says so.
        let status = try k.status()
        #expect(status["memory_note"]?.stringValue?.contains("not by the kernel") == true, "\(status)")
        #expect(primary?["memory_source"]?.stringValue == "pss", "root reads every app's PSS")
    }

    /// The same as another user (as the unit runs it, not root): the apps are not dumpable, so
    /// their PSS cannot be read; their resident set from `statm` is, and status says which, with
    /// why the kernel does not hold the limit.
    @Test(.enabled(if: nobodyRunsTheBuild, "needs setpriv and a build that user nobody may run"))
    func asAnotherUserTheMemoryIsReadFromStatm() throws {
        let (k, run) = try AnotherUser.kiosk(
            65534, in: Harness.temporaryDirectory("memory-nobody"), flags: ["--primary", "pattern:#123456", "--memory-limit", "400"],
            environment: ["DIPTYCH_MEMORY_SAMPLE_MS": "500"])
        defer { k.terminate(graceMilliseconds: 5000) }
        var status = JSONValue.null
        #expect(try eventually(seconds: 30) {
            let r = try Harness.run([Harness.diptych, "ctl", "--socket", "\(run)/ctl", "status", "--json"], timeoutMilliseconds: 10_000)
            status = (try? JSONValue.parse(r.stdout.trimmingNewline)) ?? .null
            // (Sampled once the app runs: a process just spawned is still dumpable.)
            let p = status["panes"]?.arrayValue?.first
            return p?["state"]?.stringValue == "shown" && p?["memory_source"]?.stringValue == "rss"
        }, "\(status)")
        let primary = status["panes"]?.arrayValue?.first
        #expect(primary?["memory_source"]?.stringValue == "rss", "\(status)")
        #expect(primary?["memory_bytes"]?.intValue ?? 0 > 1 << 20, "\(status)")
        #expect(status["memory_note"]?.stringValue?.contains("RSS where an app's PSS cannot be read") == true, "\(status)")
    }

    /// The same with the 96 MB child forked twice (re-parented to the compositor, out of the
    /// app's descendants): it is still the app's (its process group), counted and ended with it.
    @Test func aDoubleForkedChildCountsAgainstItsAppsLimit() throws {
        let dir = Harness.temporaryDirectory("memory-orphan")
        try Files.writeAtomically("\(dir)/hog.sh", bytes: Array("""
            ( python3 -c 'import time; x = b"x" * (96 << 20); time.sleep(60)' & )
            exec \(Harness.demo) notes
            """.utf8))
        let k = try Kiosk(
            apps: false, flags: ["--primary", "pattern:#123456", "--secondary", "/bin/sh \(dir)/hog.sh", "--arrangement", "full", "--memory-limit-secondary", "48"],
            directory: dir, environment: ["DIPTYCH_MEMORY_SAMPLE_MS": "500"])
        #expect(try k.waitUntil { try panes(k).last?["pid"]?.intValue != nil })
        #expect(try k.waitUntil { try panes(k).last?["relaunches"]?.intValue ?? 0 >= 1 })
    }

    /// `--relaunch never`: an app that exits stays gone, but one the operator restarts comes
    /// back at once (and the restart is not counted as a failure).
    @Test func aRestartIsNeverAFailure() throws {
        let k = try Kiosk(flags: ["--relaunch", "never"])
        #expect(try k.waitUntil { try allShown(k) })
        for _ in 0..<3 {
            let before = try #require(try panes(k).last?["pid"]?.intValue)
            #expect(try k.ctl(["restart", "secondary"]).status == 0)
            #expect(try k.waitUntil {
                let s = try panes(k).last
                return s?["pid"]?.intValue.map { $0 != before } == true && s?["state"]?.stringValue == "shown"
            })
        }
    }
}

/// Whether user nobody may run this build (setpriv there, every folder on the way searchable).
private let nobodyRunsTheBuild = ((try? Harness.run(AnotherUser.command(65534, [Harness.diptych, "--help"])))?.status ?? 1) == 0

/// The operator's changes with web apps (real WPE WebKit).
struct WebKioskTests {
    static let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

    /// `set-app secondary web:…`: the new page in the secondary's pane (pixels), the old app's
    /// process gone.
    @Test(.enabled(if: webIsThere, "needs diptych-web (WPE WebKit)"))
    func setAppPutsAPageInThePane() throws {
        let k = try Kiosk()
        #expect(try k.waitUntil { try allShown(k) })
        let old = try #require(try panes(k).last?["pid"]?.intValue)
        let page = "\(k.dir)/page.html"
        try Files.writeAtomically(page, bytes: Array("<!doctype html><html><body style='margin:0;background:#AA3355'></body></html>".utf8))
        let r = try k.ctl(["set-app", "secondary", "web:\(page)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(k.waitUntil { gone(old) })
        #expect(try k.waitUntil {
            guard try panes(k).last?["state"]?.stringValue == "shown" else { return false }
            _ = try k.ctl(["screenshot", "\(k.dir)/web.png"])
            return try PixelImage.readPNG(from: "\(k.dir)/web.png").pixel(x: 1900, y: 700) & 0xFFFFFF == 0xAA3355
        })
    }

    /// `set-app` of a web app over a web app on the same data directory: the new client waits
    /// for the old one to go (break before make for the directory), the old page's frame shown
    /// meanwhile, and the new page draws; it works the first time.
    @Test(.enabled(if: webIsThere, "needs diptych-web (WPE WebKit)"))
    func aWebAppReplacesAWebAppOnTheSameDataDirectory() throws {
        let dir = Harness.temporaryDirectory("ctl-web-web")
        // (The pages in a folder of their own: one holding the state directory is not served.)
        try Files.makeDirectories("\(dir)/pages")
        try Files.writeAtomically("\(dir)/pages/one.html", bytes: Array("<!doctype html><html><body style='margin:0;background:#3355AA'></body></html>".utf8))
        try Files.writeAtomically("\(dir)/pages/two.html", bytes: Array("<!doctype html><html><body style='margin:0;background:#AA3355'></body></html>".utf8))
        let k = try Kiosk(apps: false, flags: ["--primary", "web:\(dir)/pages/one.html", "--arrangement", "full"], directory: dir,
                          environment: ["XDG_STATE_HOME": "\(dir)/state"])
        #expect(try k.waitUntil { try panes(k).first?["state"]?.stringValue == "shown" })
        #expect(try k.waitUntil {
            _ = try k.ctl(["screenshot", "\(dir)/one.png"])
            return (try? PixelImage.readPNG(from: "\(dir)/one.png").pixel(x: 1000, y: 700) & 0xFFFFFF) == 0x3355AA
        })
        let old = try #require(try panes(k).first?["pid"]?.intValue)
        let r = try k.ctl(["set-app", "primary", "web:\(dir)/pages/two.html"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(k.waitUntil { gone(old) })
        #expect(try k.waitUntil {
            _ = try k.ctl(["screenshot", "\(dir)/two.png"])
            return (try? PixelImage.readPNG(from: "\(dir)/two.png").pixel(x: 1000, y: 700) & 0xFFFFFF) == 0xAA3355
        })
    }

    /// A web app ended with SIGTERM (a clean exit) comes back with `relaunch = always`, as the
    /// shipped configuration says.
    @Test(.enabled(if: webIsThere, "needs diptych-web (WPE WebKit)"))
    func aWebAppEndedWithSIGTERMComesBack() throws {
        let k = try Kiosk(apps: false, flags: ["--primary", "web:\(repositoryRoot)/Assets/web/form.html", "--relaunch", "always"])
        #expect(try k.waitUntil { try panes(k).first?["state"]?.stringValue == "shown" })
        let first = try #require(try panes(k).first?["pid"]?.intValue)
        kill(pid_t(first), SIGTERM)
        #expect(try k.waitUntil {
            let p = try panes(k).first
            return p?["pid"]?.intValue.map { $0 != first } == true && p?["state"]?.stringValue == "shown"
        })
        #expect(try panes(k).first?["relaunches"]?.intValue == 1)
    }
}

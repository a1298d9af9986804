// SPDX-License-Identifier: MIT
// Remote support through real viewers: vncdotool on a plain view-only server sees exactly what
// `ctl screenshot` gives, before and after the split changes, black while the screen is blank,
// and cannot operate the kiosk;
// gvnccapture logs in over VeNCrypt's TLS with the right password and is refused with a wrong
// one (logged with the user's name); with `vnc-input` a viewer's click and key reach the app as
// the pointer and a hardware key, and a fifth viewer is refused; settings that would open the
// kiosk are usage errors; viewers that never read leave the good app its frames, and a fifth
// plain viewer disconnects them all (what they held given back).

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let vncdotool = repositoryRoot + "/.build/vnc-venv/bin/vncdotool"
private let client = repositoryRoot + "/Tests/Tools/vnc-client.py"

/// A certificate for localhost and a users file (`op`, password `s3cret`) in `dir`.
private func credentials(_ dir: String) throws -> (cert: String, key: String, users: String) {
    let made = try Harness.run([
        "sh", "-c",
        "cd '\(dir)' && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null"
            + " && printf 'op:%s\\n' \"$(openssl passwd -6 s3cret)\" > users && chmod 600 users",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    return ("\(dir)/cert.pem", "\(dir)/key.pem", "\(dir)/users")
}

private func link(_ path: String) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let n = readlink(path, &buffer, buffer.count - 1)
    return n > 0 ? String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
}

private func same(_ a: String, _ b: String) throws -> Bool {
    try PixelImage.readPNG(from: a).compare(to: PixelImage.readPNG(from: b), tolerance: 0).matches
}

struct VNCTests {
    @Test(.enabled(if: access(vncdotool, X_OK) == 0, "vncdotool is not installed (make test puts it in .build/vnc-venv)"))
    func aPlainViewerSeesWhatCtlScreenshotShowsAndCannotOperate() throws {
        let dir = Harness.temporaryDirectory("vnc-plain")
        let k = try Kiosk(flags: ["--vnc", "unix:\(dir)/vnc", "--vnc-insecure"], directory: dir)
        #expect(k.ready)
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "shown" } == true })
        func capture(_ name: String) throws -> Bool {
            let r = try Harness.run([vncdotool, "-s", "\(dir)/vnc", "capture", "\(dir)/\(name)-vnc.png"], timeoutMilliseconds: 30_000)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try k.ctl(["screenshot", "\(dir)/\(name)-ctl.png"]).status == 0)
            return try same("\(dir)/\(name)-vnc.png", "\(dir)/\(name)-ctl.png")
        }
        // The apps never hold the server's socket (neatvnc's are not close-on-exec).
        let table = String(decoding: try Files.read("/proc/net/unix", limit: 1 << 22), as: UTF8.self)
        let inode = try #require(table.split(separator: "\n").first { $0.hasSuffix(" \(dir)/vnc") }?.split(separator: " ")[6])
        for pid in try k.status()["panes"]?.arrayValue?.compactMap({ $0["pid"]?.intValue }) ?? [] {
            let fds = (try? Files.list("/proc/\(pid)/fd")) ?? []
            #expect(!fds.contains { link("/proc/\(pid)/fd/\($0)") == "socket:[\(inode)]" }, "app \(pid) holds the VNC socket")
        }
        #expect(try capture("split"))
        // The split changes: the next capture shows the new one.
        #expect(try k.ctl(["arrangement", "split-1/2"]).status == 0)
        #expect(try k.waitUntil { try k.status()["arrangement"]?.stringValue == "split-1/2" })
        Glibc.usleep(500_000)
        #expect(try capture("half"))
        #expect(try !same("\(dir)/split-vnc.png", "\(dir)/half-vnc.png"))
        // Blank: the viewers see black; awake, the screen again.
        #expect(try k.ctl(["blank"]).status == 0)
        #expect(try k.waitUntil { try k.status()["blanked"]?.boolValue == true })
        Glibc.usleep(300_000)
        let black = try Harness.run([vncdotool, "-s", "\(dir)/vnc", "capture", "\(dir)/black.png"], timeoutMilliseconds: 30_000)
        #expect(black.status == 0, "\(black.stderr)")
        let dark = try PixelImage.readPNG(from: "\(dir)/black.png")
        #expect([(10, 10), (1000, 700), (1800, 1400)].allSatisfy { dark.pixel(x: $0.0, y: $0.1) & 0xFFFFFF == 0 })
        #expect(try k.ctl(["wake"]).status == 0)
        #expect(try k.waitUntil { try k.status()["blanked"]?.boolValue == false })
        Glibc.usleep(500_000)
        #expect(try capture("awake"))
        // View-only: a click on notes reaches nothing.
        let click = try Harness.run([vncdotool, "-s", "\(dir)/vnc", "move", "1800", "400", "click", "1"], timeoutMilliseconds: 30_000)
        #expect(click.status == 0, "\(click.stderr)")
        Glibc.usleep(500_000)
        #expect(try Harness.events("\(dir)/events-secondary.jsonl").allSatisfy { $0["event"]?.stringValue != "pointer" })
        // A viewer connected is counted while it stays.
        let viewer = try ChildProcess(arguments: ["python3", client, "\(dir)/vnc", "--hold", "5", "--reads"])
        #expect(try k.waitUntil { try k.status()["vnc"]?["clients"]?.intValue == 1 })
        #expect(try k.ctl(["stats", "--prometheus"]).stdout.contains("diptych_vnc_clients 1"))
        viewer.terminate()
        #expect(try k.waitUntil { try k.status()["vnc"]?["clients"]?.intValue == 0 })
    }

    @Test(.enabled(if: access("/usr/bin/gvnccapture", X_OK) == 0, "gvnccapture is not installed (package gvncviewer)"))
    func withTLSTheRightPasswordSeesTheScreenAndAWrongOneIsRefused() throws {
        let dir = Harness.temporaryDirectory("vnc-tls")
        let c = try credentials(dir)
        // gvnccapture takes a display number (port 5900 + N) and trusts ~/.pki/CA/cacert.pem
        // of the user's home (getpwuid's), where the test CA goes.
        let display = 20_000 + Int(getpid() % 5000)
        let home = String(cString: getpwuid(getuid()).pointee.pw_dir)
        try Files.makeDirectories("\(home)/.pki/CA")
        let ca = "\(home)/.pki/CA/cacert.pem", saved = "\(dir)/cacert.saved"
        let had = Files.exists(ca)
        if had { _ = try Harness.run(["cp", ca, saved]) }
        defer { if had { _ = try? Harness.run(["cp", saved, ca]) } else { Files.remove(ca) } }
        _ = try Harness.run(["cp", c.cert, ca])
        let k = try Kiosk(flags: ["--vnc", "127.0.0.1:\(5900 + display)", "--vnc-tls-cert", c.cert, "--vnc-tls-key", c.key, "--vnc-users", c.users], directory: dir)
        #expect(k.ready)
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "shown" } == true })
        func gvnccapture(_ password: String, _ out: String) throws -> Harness.Result {
            try Harness.run(["python3", repositoryRoot + "/Tests/Tools/pty-login.py", "op", password, "gvnccapture", "localhost:\(display)", out], timeoutMilliseconds: 20_000)
        }
        let good = try gvnccapture("s3cret", "\(dir)/tls.png")
        #expect(good.status == 0, "\(good.stdout) \(good.stderr)")
        #expect(try k.ctl(["screenshot", "\(dir)/ctl.png"]).status == 0)
        #expect(try same("\(dir)/tls.png", "\(dir)/ctl.png"))
        let bad = try gvnccapture("wrong", "\(dir)/refused.png")
        #expect(bad.status != 0 && !Files.exists("\(dir)/refused.png"))
    }

    @Test func withInputAViewersClickAndKeyReachTheAppAndAFifthViewerIsRefused() throws {
        let dir = Harness.temporaryDirectory("vnc-input")
        let c = try credentials(dir)
        let k = try Kiosk(flags: ["--vnc", "unix:\(dir)/vnc", "--vnc-tls-cert", c.cert, "--vnc-tls-key", c.key, "--vnc-users", c.users, "--vnc-input"], directory: dir)
        #expect(k.ready)
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.allSatisfy { $0["state"]?.stringValue == "shown" } == true })
        let login = ["python3", client, "\(dir)/vnc", "--ca", c.cert, "--user", "op"]
        // A click at panel pixel (1800, 400): notes' pane starts at 1408 px, at 2 px a point.
        let r = try Harness.run(login + ["--password", "s3cret", "--click", "1800,400", "--key", "0x61", "--hold", "0.5"], timeoutMilliseconds: 30_000)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try k.waitUntil {
            let events = try Harness.events("\(dir)/events-secondary.jsonl")
            return events.contains { $0["event"]?.stringValue == "pointer" && $0["phase"]?.stringValue == "button" && $0["x"]?.intValue == 196 && $0["y"]?.intValue == 200 }
                && events.contains { $0["event"]?.stringValue == "key" && $0["text"]?.stringValue == "a" }
        })
        // A wrong password: refused.
        #expect(try Harness.run(login + ["--password", "nope"], timeoutMilliseconds: 30_000).status == 1)
        // A local process choosing no security (which neatvnc 0.5 would let through) is shut
        // out: its click reaches nothing.
        let sneaky = try Harness.run(["python3", client, "\(dir)/vnc", "--force-none", "--click", "1700,300", "--hold", "1", "--reads"], timeoutMilliseconds: 30_000)
        Glibc.usleep(500_000)
        #expect(try Harness.events("\(dir)/events-secondary.jsonl").allSatisfy { $0["event"]?.stringValue != "pointer" || $0["x"]?.intValue != 146 }, "\(sneaky.stdout)")
        #expect(try k.waitUntil { try k.status()["vnc"]?["clients"]?.intValue == 0 })
        // Four viewers stay; a fifth is refused at its login. (A second after the logins
        // above: at most four passwords are checked a second.)
        Glibc.usleep(1_100_000)
        let four = try (0..<4).map { _ in try ChildProcess(arguments: login + ["--password", "s3cret", "--hold", "20", "--reads"]) }
        defer { for v in four { v.terminate() } }
        #expect(try k.waitUntil { try k.status()["vnc"]?["clients"]?.intValue == 4 })
        let text = try k.ctl(["status"]).stdout
        #expect(text.contains("vnc: unix:\(dir)/vnc, 4 viewers, TLS and a password, input allowed"), "\(text)")
        #expect(try Harness.run(login + ["--password", "s3cret"], timeoutMilliseconds: 30_000).status == 1)
        #expect(try k.status()["vnc"]?["clients"]?.intValue == 4)
    }

    @Test func withInputTheViewersCursorIsTheDiscUnlessTheFramesShowIt() throws {
        // (Headless has no cursor plane: the frames show the disc once the pointer moves.)
        for (mode, expected) in [("hidden", "cursor 40 38 19 19"), ("auto", "cursor 0 0 0 0 0")] {
            let dir = Harness.temporaryDirectory("vnc-cursor")
            let c = try credentials(dir)
            let k = try Kiosk(flags: ["--vnc", "unix:\(dir)/vnc", "--vnc-tls-cert", c.cert, "--vnc-tls-key", c.key, "--vnc-users", c.users, "--vnc-input", "--cursor", mode], directory: dir)
            #expect(k.ready)
            let r = try Harness.run(["python3", client, "\(dir)/vnc", "--ca", c.cert, "--user", "op", "--password", "s3cret", "--cursor", "--hold", "1.5"], timeoutMilliseconds: 30_000)
            #expect(r.status == 0, "\(r.stderr)")
            let cursors = r.stdout.split(separator: "\n").filter { $0.hasPrefix("cursor ") }
            #expect(cursors.count == 1 && cursors[0].hasPrefix(expected), "\(mode): \(r.stdout)")
            if mode == "hidden", let opaque = cursors.first?.split(separator: " ").last.flatMap({ Int($0) }) {
                // A disc 38 px across: about π × 19² of its pixels are drawn.
                #expect(abs(opaque - 1134) < 60, "\(r.stdout)")
            }
        }
    }

    @Test func viewersThatNeverReadLeaveTheGoodAppItsFramesAndAFifthPlainOneEndsThem() throws {
        let sockets = Harness.temporaryDirectory("vnc-stall")
        let v = try Victim(arguments: ["--vnc", "unix:\(sockets)/vnc", "--vnc-insecure"])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        let before = v.residentKiB
        var highest = 0
        for round in 1...2 {
            // Four viewers that ask for the whole screen (raw: 12 MiB, more than a socket
            // takes) and never read: each holds a framebuffer and its picture.
            let stalled = try (0..<4).map { _ in try ChildProcess(arguments: ["python3", client, "\(sockets)/vnc", "--hold", "60"]) }
            defer { for s in stalled { _ = s.terminate() } }
            #expect(eventually { v.residentKiB > before + 4 * 12 * 1024 }, "resident \(v.residentKiB) KiB, \(before) before")
            // The good app keeps its frames.
            #expect(v.framesGo(on: 60))
            // What they hold is bounded: the second round holds no more than the first.
            let held = v.residentKiB
            if round == 1 { highest = held } else { #expect(held < highest + 16 * 1024, "resident \(held) KiB, \(highest) in the first round") }
            // A fifth plain viewer (there is no login to refuse) disconnects them all, and most
            // of what they held is given back (the picture the display keeps stays, and what
            // malloc's heaps keep varies from round to round).
            _ = try Harness.run(["python3", client, "\(sockets)/vnc", "--hold", "1"], timeoutMilliseconds: 30_000)
            #expect(eventually { v.stderr.split(separator: "\n").filter { $0.contains("a fifth plain viewer came") }.count == round })
            #expect(eventually { v.residentKiB < (before + held) / 2 }, "round \(round): resident \(v.residentKiB) KiB, \(before) before, \(held) held")
            #expect(v.framesGo(on: 30))
        }
        #expect(v.stop() == 0)
    }

    @Test func aFloodOfLoginsCostsTheLoopAtMostFourPasswordChecksASecond() throws {
        let dir = Harness.temporaryDirectory("vnc-logins")
        let c = try credentials(dir)
        let v = try Victim(arguments: ["--vnc", "unix:\(dir)/vnc", "--vnc-tls-cert", c.cert, "--vnc-tls-key", c.key, "--vnc-users", c.users])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        // Wrong passwords, one login after another (each a TLS handshake, then a password).
        let start = MonotonicClock.milliseconds
        let r = try Harness.run(["python3", client, "\(dir)/vnc", "--ca", c.cert, "--user", "op", "--password", "nope", "--repeat", "30"], timeoutMilliseconds: 60_000)
        let seconds = Int((MonotonicClock.milliseconds - start) / 1000) + 1
        #expect(r.stdout.contains("refused 30 of 30"), "\(r.stdout) \(r.stderr)")
        #expect(v.framesGo(on: 30))
        // Four were checked in some second, the rest refused unchecked; said once a second.
        #expect(eventually { v.stderr.contains("login refused unchecked") })
        let said = v.stderr.split(separator: "\n").filter { $0.contains("login refused unchecked") }.count
        #expect(said <= seconds, "\(said) in \(seconds) s: \(v.stderr.suffix(2000))")
        // A second later, the right password is checked again.
        Glibc.usleep(1_100_000)
        let good = try Harness.run(["python3", client, "\(dir)/vnc", "--ca", c.cert, "--user", "op", "--password", "s3cret"], timeoutMilliseconds: 30_000)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(v.stop() == 0)
    }

    @Test func settingsThatWouldOpenTheKioskAreUsageErrors() throws {
        let dir = Harness.temporaryDirectory("vnc-bad")
        let c = try credentials(dir)
        chmod(c.users, 0o644)
        for (flags, says) in [
            (["--vnc", "0.0.0.0:5900", "--vnc-insecure"], "not loopback"),
            (["--vnc", "127.0.0.1:5900"], "--vnc-tls-cert"),
            (["--vnc", "unix:\(dir)/v", "--vnc-insecure", "--vnc-input"], "--vnc-input needs TLS"),
            (["--vnc", "unix:\(dir)/v", "--vnc-tls-cert", c.cert, "--vnc-tls-key", c.key, "--vnc-users", c.users], "chmod 600"),
            (["--vnc-insecure"], "need --vnc"),
        ] {
            let r = try Harness.run([Harness.diptych, "run", "--backend", "headless"] + flags, timeoutMilliseconds: 30_000)
            #expect(r.status == 2 && r.stderr.contains(says), "\(flags): \(r.stderr)")
        }
    }
}

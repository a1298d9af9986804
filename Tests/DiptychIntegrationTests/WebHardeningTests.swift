// SPDX-License-Identifier: MIT
// Web pages against the kiosk (issue 55, item 6), with real WPE WebKit: a file: page reaches only
// the files of its folder (served by the web client itself, symlinks resolved), not one outside
// it or through a symlink pointing out; a page that opens dialogs and reloads itself gets no more
// than three in 10 s, and a sign-in past that is cancelled; a hidden, muted or tiny looping video
// does not keep the screen on, a visible audible or large one does. The loopback listener that
// plays a served page's media takes no body, no other Host and no more than 16 idle connections,
// for 5 s each; answers ranges itself; serves only media, decoded once, never opening a FIFO; its
// secret never reaches another site's frame; and a folder holding the web clients' data (the
// home folder, the root) is never served.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

private func pageTitles(_ log: [JSONValue]) -> [String] {
    log.compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil }
}

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebHardeningTests {
    /// Writes `dir/app/page.html` (fetching a file beside it, one in a folder below, one
    /// outside its folder by a relative path, by an absolute path and as a file: URL, and one
    /// through a symlink in its folder pointing out) and renders it with `flags`: what each
    /// fetch gave (the file's text or "error"), and the client's stderr.
    func fetches(_ dir: String, _ flags: String, _ k: Int) throws -> (results: JSONValue, stderr: String) {
        try Files.makeDirectories("\(dir)/log\(k)")
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/app/page.html\(flags)",
            "--event-log-dir", "\(dir)/log\(k)", "--out", "\(dir)/x\(k).png",
        ], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let title = pageTitles((try? Harness.events("\(dir)/log\(k)/events-primary.jsonl")) ?? []).last ?? "{}"
        return ((try? JSONValue.parse(title)) ?? .null, r.stderr)
    }

    @Test func aFilePageReachesOnlyItsOwnFolder() throws {
        let dir = Harness.temporaryDirectory("web-confined")
        try Files.makeDirectories("\(dir)/app/sub")
        try Files.writeAtomically("\(dir)/app/beside.txt", bytes: Array("beside".utf8))
        try Files.writeAtomically("\(dir)/app/sub/below.txt", bytes: Array("below".utf8))
        try Files.writeAtomically("\(dir)/secret.txt", bytes: Array("secret".utf8))
        #expect(symlink("\(dir)/secret.txt", "\(dir)/app/link.txt") == 0)
        #expect(symlink(dir, "\(dir)/app/up") == 0)
        try Files.writeAtomically("\(dir)/app/page.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><title>-</title><script>
            var names = {beside: 'beside.txt', below: 'sub/below.txt', relative: '../secret.txt', absolute: '\(dir)/secret.txt',
                         file: 'file://\(dir)/secret.txt', link: 'link.txt', folderLink: 'up/secret.txt'}, got = {}, left = 0;
            Object.keys(names).forEach(function (k) {
              left++;
              fetch(names[k]).then(function (r) { if (!r.ok) throw r.status; return r.text(); })
                .then(function (t) { got[k] = t; }, function () { got[k] = 'error'; })
                .then(function () { if (--left === 0) document.title = JSON.stringify(got); });
            });
            </script>
            """.utf8))
        // Served from its folder: what is in it loads, nothing outside it does.
        let (served, stderr) = try fetches(dir, "", 1)
        #expect(served["beside"]?.stringValue == "beside" && served["below"]?.stringValue == "below", "\(served) \(stderr)")
        for k in ["relative", "absolute", "file", "link", "folderLink"] { #expect(served[k]?.stringValue == "error", "\(k): \(served)") }
        #expect(stderr.contains("file://\(dir)/app/link.txt is refused: outside the folders served"), "\(stderr)")
        // --file-root names the folders served: the parent serves the secret too (a file: URL
        // never loads from a served page).
        let (parent, _) = try fetches(dir, " --file-root \(dir)", 2)
        #expect(parent["relative"]?.stringValue == "secret" && parent["link"]?.stringValue == "secret" && parent["folderLink"]?.stringValue == "secret", "\(parent)")
        #expect(parent["file"]?.stringValue == "error", "\(parent)")
        // --no-file-access: the page alone.
        let (alone, _) = try fetches(dir, " --no-file-access", 3)
        #expect(alone["beside"]?.stringValue == "error" && alone["relative"]?.stringValue == "error", "\(alone)")
        // A folder that does not hold the page, or one that is not there, is refused at once.
        for bad in [" --file-root \(dir)/app/sub", " --file-root \(dir)/none"] {
            let r = try Harness.run([Harness.binDirectory + "/diptych-web", "\(dir)/app/page.html"] + bad.split(separator: " ").map(String.init))
            #expect(r.status == 2, "\(bad): \(r.stderr)")
        }
    }

    /// A page on the iPad's full screen played through `steps`: its event log and stderr.
    func play(_ name: String, url: String, steps: String) throws -> (log: [JSONValue], stderr: String) {
        let dir = Harness.temporaryDirectory(name)
        let scenario = #"{"device":"ipad","primary":"web:\#(url)","arrangement":"full","steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 180_000)
        #expect(r.status == 0, "\(r.stderr)")
        return ((try? Harness.events("\(dir)/events-primary.jsonl")) ?? [], r.stderr)
    }

    /// A tap at screen points (x, y) at `at` ms (the scenario's pixels are twice the points).
    func tap(_ at: Int, _ x: Double, _ y: Double) -> String {
        let (px, py) = (Int(x * 2), Int(y * 2))
        return #"{"at":\#(at),"touch":{"id":1,"phase":"down","x":\#(px),"y":\#(py)}},{"at":\#(at + 40),"touch":{"id":1,"phase":"up","x":\#(px),"y":\#(py)}}"#
    }

    /// The OK button of a one-line alert on the full-screen iPad (points; as WebDialogTests).
    let ok = (x: 512.0 + 67.5, y: 435.0)

    /// A page that opens an alert and then loads itself again (the same origin), eight times:
    /// three alerts show within 10 s, the rest return at once without showing, however the
    /// page reloads; the dialogs' log lines say which showed and when.
    @Test func aPageReloadingItselfGetsNoMoreThanThreeDialogsIn10s() throws {
        let dir = Harness.temporaryDirectory("web-reload-flood")
        try Files.writeAtomically("\(dir)/loop.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><title>-</title><style>body{margin:0;background:#eef}</style><script>
            var n = Number(location.search.slice(1) || 0) + 1;
            document.title = 'round ' + n;
            if (n <= 8) setTimeout(function () { alert('Round ' + n); location.replace(location.pathname + '?' + n); }, 100);
            </script>
            """.utf8))
        var steps = #"[{"at":0,"wait":true}"#
        for k in 0..<5 { steps += "," + tap(500 + 600 * k, ok.x, ok.y) + #",{"at":\#(1000 + 600 * k),"wait":true}"# }
        let (log, stderr) = try play("web-reload-flood-run", url: "\(dir)/loop.html", steps: steps + #",{"at":4000,"wait":true}]"#)
        let dialogs = log.filter { $0["event"]?.stringValue == "dialog" }
        let shown = dialogs.filter { $0["shown"]?.boolValue == true }.compactMap { $0["ms"]?.intValue }
        let answered = log.filter { $0["event"]?.stringValue == "alertAnswered" }.count
        #expect(pageTitles(log).last == "round 9", "\(pageTitles(log)) \(stderr)")
        #expect(answered == shown.count && shown.count >= 3, "\(answered) answered, \(dialogs)")
        // No four within 10 s (the run is shorter than that: three showed, the rest did not).
        for i in 0..<max(0, shown.count - 3) { #expect(shown[i + 3] - shown[i] >= 10_000, "\(dialogs)") }
        #expect(dialogs.contains { $0["shown"]?.boolValue == false }, "\(dialogs)")
        #expect(stderr.contains("more than three dialogs within 10 s"), "\(stderr)")
    }

    /// Three alerts, then a fetch that asks for an HTTP sign-in: the sign-in is past the rule,
    /// cancelled at once (the fetch fails, as when the user cancels) instead of holding the pane.
    @Test func aSignInPastThreeDialogsIsCancelled() throws {
        let out = Harness.temporaryDirectory("web-sign-in-flood-port")
        let server = try ChildProcess(arguments: ["/bin/sh", "-c", "exec python3 \"$0\" basic > \(out)/port", "\(repositoryRoot)/Tests/Tools/web-server.py"])
        defer { server.terminate() }
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = ((try? Files.read("\(out)/port")).flatMap { Int(String(decoding: $0, as: UTF8.self).split(separator: "\n").first ?? "") }) ?? 0
            usleep(50_000)
        }
        try #require(port > 0)
        var steps = #"[{"at":0,"wait":true}"#
        for k in 0..<3 { steps += "," + tap(500 + 600 * k, ok.x, ok.y) + #",{"at":\#(1000 + 600 * k),"wait":true}"# }
        let (log, stderr) = try play("web-sign-in-flood", url: "http://127.0.0.1:\(port)/flood", steps: steps + #",{"at":3000,"wait":true}]"#)
        #expect(pageTitles(log).last == "failed", "\(pageTitles(log)) \(stderr)")
        let dialogs = log.filter { $0["event"]?.stringValue == "dialog" }
        #expect(dialogs.map { "\($0["kind"]?.stringValue ?? "?") \($0["shown"]?.boolValue ?? false)" } == ["alert true", "alert true", "alert true", "signIn false"], "\(dialogs)")
    }

    /// A live kiosk showing `page` (written to a folder with the test clip) until `done` says
    /// so or 20 s pass; then the idleInhibit values the web client sent, in order.
    func inhibits(_ name: String, page: String, until done: ([String], [Bool]) -> Bool) throws -> (inhibits: [Bool], titles: [String]) {
        let dir = Harness.temporaryDirectory(name)
        try Files.writeAtomically("\(dir)/clip.ogv", bytes: try Files.read("\(repositoryRoot)/Assets/web/clip.ogv"))
        try Files.writeAtomically("\(dir)/page.html", bytes: Array(page.utf8))
        // (Keeping nothing: live web clients of tests run at once would share a data directory.)
        let k = try Kiosk(apps: false, flags: ["--primary", "web:\(dir)/page.html --ephemeral"])
        func read() -> ([Bool], [String]) {
            let log = (try? Harness.events("\(k.dir)/events-primary.jsonl")) ?? []
            return (log.compactMap { $0["event"]?.stringValue == "idleInhibit" ? $0["on"]?.boolValue : nil }, pageTitles(log))
        }
        for _ in 0..<400 {
            let (on, titles) = read()
            if done(titles, on) { break }
            usleep(50_000)
        }
        let (on, titles) = read()
        return (on, titles)
    }

    /// Five looping videos that play unseen (display:none and unmuted, 1×1 px, hidden,
    /// transparent, scrolled far away): none keeps the screen on.
    @Test func anUnseenLoopingVideoDoesNotKeepTheScreenOn() throws {
        var polls = 0
        let page = """
            <!doctype html><meta charset="utf-8"><title>-</title><style>body{margin:0;background:#123}
            .big{width:100vw;height:80vh;display:block}</style>
            <video src="clip.ogv" autoplay loop style="display:none"></video>
            <video src="clip.ogv" autoplay loop muted style="width:1px;height:1px"></video>
            <video src="clip.ogv" autoplay loop muted class="big" style="visibility:hidden;position:absolute;top:0"></video>
            <div style="opacity:0;position:absolute;top:0"><video src="clip.ogv" autoplay loop class="big"></video></div>
            <video src="clip.ogv" autoplay loop muted class="big" style="position:absolute;top:5000px"></video>
            <script>var playing = new Set();
            document.querySelectorAll('video').forEach(function (v, i) { v.addEventListener('playing', function () { playing.add(i); document.title = 'playing ' + playing.size; }); });
            </script>
            """
        let (on, titles) = try inhibits("web-video-unseen", page: page) { titles, on in
            // Three seconds more (60 polls): the page is judged on every play, then each second.
            if titles.last == "playing 5" { polls += 1 }
            return on.contains(true) || polls > 60
        }
        #expect(titles.last == "playing 5", "\(titles)")
        #expect(!on.contains(true), "\(on)")
    }

    /// A small audible video holds the screen on while it is seen; hidden, it lets go; a large
    /// muted one holds it again.
    @Test func aSeenAudibleOrLargeVideoKeepsTheScreenOn() throws {
        let page = """
            <!doctype html><meta charset="utf-8"><title>-</title><style>body{margin:0;background:#123}</style>
            <video id="small" src="clip.ogv" autoplay loop style="width:320px;height:240px"></video>
            <video id="large" src="clip.ogv" loop muted style="display:block;width:100vw;height:60vh"></video>
            <script>
            small.addEventListener('playing', function () {
              if (document.title !== '-') return;
              document.title = 'small';
              setTimeout(function () { small.style.display = 'none'; document.title = 'hidden';
                setTimeout(function () { large.play(); document.title = 'large'; }, 2500); }, 2500);
            });
            </script>
            """
        let (on, titles) = try inhibits("web-video-seen", page: page) { titles, on in on == [true, false, true] }
        #expect(on == [true, false, true], "\(on) \(titles)")
    }

    /// A live kiosk showing `page.html` of `dir` until its title satisfies `done` (20 s at
    /// most): the kiosk (kept running) and the titles.
    func showing(_ dir: String, until done: (String) -> Bool) throws -> (kiosk: Kiosk, titles: [String]) {
        let k = try Kiosk(apps: false, flags: ["--primary", "web:\(dir)/page.html --ephemeral", "--arrangement", "full"])
        var titles: [String] = []
        for _ in 0..<400 {
            titles = pageTitles((try? Harness.events("\(k.dir)/events-primary.jsonl")) ?? [])
            if titles.last.map(done) == true { break }
            usleep(50_000)
        }
        return (k, titles)
    }

    /// A served page plays a clip from the loopback listener (its src then names the port and
    /// the secret); another local process then tries the listener
    /// (`Tests/Tools/media-listener-probe.py`): requests with bodies or another Host are closed
    /// unread, whatever they send; ranges are answered by the client alone (one range, several:
    /// the whole file, none past the end: 416), with the right lengths; only media files are
    /// served, their names decoded once, and a FIFO is never opened; connections past 16 are
    /// closed at once, the rest (and a slow sender, and a kept-alive one) after 5 s.
    @Test func theMediaListenerTakesOnlyAPageMediaRequests() throws {
        let dir = Harness.temporaryDirectory("web-listener")
        let clip = try Files.read("\(repositoryRoot)/Assets/web/clip.ogv")
        try Files.writeAtomically("\(dir)/clip.ogv", bytes: clip)
        try Files.writeAtomically("\(dir)/a%20b.ogv", bytes: clip)
        #expect(mkfifo("\(dir)/pipe.ogv", 0o600) == 0)
        try Files.writeAtomically("\(dir)/page.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><title>-</title><body style="margin:0;background:#123">
            <video id="v" src="clip.ogv" muted autoplay style="width:400px;height:300px"></video>
            <script>v.addEventListener('playing', function () { document.title = 'src=' + v.currentSrc; });</script>
            """.utf8))
        let (k, titles) = try showing(dir) { $0.hasPrefix("src=") }
        // src=http://127.0.0.1:PORT/SECRET/DIR/clip.ogv
        let src = try #require(titles.last.flatMap { $0.hasPrefix("src=http://127.0.0.1:") ? $0.dropFirst(21) : nil }, "\(titles)")
        let parts = src.split(separator: "/", maxSplits: 2)
        let port = try #require(parts.first.flatMap { Int($0) }), secret = String(parts[1])
        #expect(secret.count == 32 && String(parts[2]) == "\(dir.dropFirst())/clip.ogv", "\(src)")
        let pid = try #require(try k.status()["panes"]?.arrayValue?.first?["pid"]?.intValue)
        let r = try Harness.run(["python3", "\(repositoryRoot)/Tests/Tools/media-listener-probe.py", "\(port)", secret, dir, "\(pid)"],
                                timeoutMilliseconds: 120_000)
        let found = try JSONValue.parse(r.stdout)
        let size = clip.count
        func field(_ check: String, _ name: String) -> JSONValue? { found[check]?[name] }
        // Bodies and other methods: closed before a byte of the body is kept.
        for check in ["bodyPost", "bodyChunked", "bodyOptions"] {
            #expect(field(check, "answer")?.stringValue == "closed", "\(check): \(found[check] ?? .null)")
            #expect((field(check, "sent")?.intValue ?? .max) < 64 << 20, "\(check): \(found[check] ?? .null)")
            #expect((field(check, "grew")?.intValue ?? .max) < 32 << 10, "\(check): \(found[check] ?? .null)")
        }
        #expect(found["bodyShort"]?.stringValue == "closed" && found["method"]?.stringValue == "unanswered", "\(r.stdout)")
        // The Host: exactly 127.0.0.1:PORT.
        for check in ["hostOther", "hostLocalhost"] { #expect(found[check]?.stringValue == "unanswered", "\(check): \(r.stdout)") }
        #expect(found["hostNone"]?.stringValue == "closed", "\(r.stdout)")
        // Ranges, with libsoup's lengths.
        func answer(_ check: String) -> String {
            let a = found[check]
            return "\(a?["status"]?.intValue ?? 0) \(a?["length"]?.stringValue ?? "-") \(a?["range"]?.stringValue ?? "-") \(a?["got"]?.intValue ?? -1)"
        }
        #expect(answer("get") == "200 \(size) - \(size)", "\(r.stdout)")
        #expect(answer("head") == "200 \(size) - 0", "\(r.stdout)")
        #expect(answer("range") == "206 10 bytes 0-9/\(size) 10", "\(r.stdout)")
        #expect(answer("suffix") == "206 5 bytes \(size - 5)-\(size - 1)/\(size) 5", "\(r.stdout)")
        #expect(answer("multi") == "200 \(size) - \(size)" && field("multi", "type")?.stringValue == "video/ogg", "\(r.stdout)")
        #expect(answer("unsatisfiable") == "416 0 bytes */\(size) 0", "\(r.stdout)")
        #expect(answer("wrongSecret").hasPrefix("404 "), "\(r.stdout)")
        // Media only, decoded once; a FIFO refused without being opened.
        #expect(answer("html").hasPrefix("403 "), "\(r.stdout)")
        #expect(answer("percent") == "200 \(size) - \(size)", "\(r.stdout)")
        #expect(answer("fifo").hasPrefix("403 ") && found["fifoOpened"]?.boolValue == false, "\(r.stdout)")
        // 40 idle connections: those past 16 (less the page's own) closed at once, all within 7 s.
        #expect((found["closedAtOnce"]?.intValue ?? 0) >= 20 && found["closedLater"]?.intValue == 40, "\(r.stdout)")
        let slow = found["slowClosedAfter"]?.doubleValue ?? 0, kept = found["keptAliveClosedAfter"]?.doubleValue ?? 0
        #expect(slow >= 3 && slow <= 8 && kept >= 3 && kept <= 8 && found["keptAliveAnswered"]?.boolValue == true, "\(r.stdout)")
        #expect(answer("after") == "200 \(size) - \(size)", "\(r.stdout) \(r.stderr)")
    }

    /// A served page framing another site, whose video asks for the served clip: the media
    /// script (which holds the listener's secret) is not in that frame, so its src is never
    /// swapped for the loopback URL.
    @Test func anotherSitesFrameNeverLearnsTheMediaSecret() throws {
        let dir = Harness.temporaryDirectory("web-listener-frame")
        let server = try ChildProcess(arguments: ["/bin/sh", "-c", "exec python3 \"$0\" media > \(dir)/port", "\(repositoryRoot)/Tests/Tools/web-server.py"])
        defer { server.terminate() }
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = ((try? Files.read("\(dir)/port")).flatMap { Int(String(decoding: $0, as: UTF8.self).split(separator: "\n").first ?? "") }) ?? 0
            usleep(50_000)
        }
        try #require(port > 0)
        try Files.makeDirectories("\(dir)/app")
        try Files.writeAtomically("\(dir)/app/clip.ogv", bytes: try Files.read("\(repositoryRoot)/Assets/web/clip.ogv"))
        try Files.writeAtomically("\(dir)/app/page.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><title>-</title><body style="margin:0;background:#123">
            <iframe src="http://127.0.0.1:\(port)/framed?diptych-file://app\(dir)/app/clip.ogv"></iframe>
            <script>addEventListener('message', function (e) { document.title = e.data; });</script>
            """.utf8))
        let (_, titles) = try showing("\(dir)/app") { $0.hasPrefix("framed ") }
        #expect(titles.last == "framed diptych-file://app\(dir)/app/clip.ogv", "\(titles)")
    }

    /// A page in the home folder (or symlinked from there), a folder holding the state
    /// directory, `--file-root /` or the home folder: refused at once (exit 2), naming the folder.
    @Test func aFolderHoldingTheWebClientsDataIsNeverServed() throws {
        let home = Harness.temporaryDirectory("web-home")
        try Files.makeDirectories("\(home)/app")
        try Files.makeDirectories("\(home)/elsewhere")
        try Files.writeAtomically("\(home)/kiosk.html", bytes: Array("<title>kiosk</title>".utf8))
        try Files.writeAtomically("\(home)/app/page.html", bytes: Array("<title>page</title>".utf8))
        #expect(symlink("\(home)/kiosk.html", "\(home)/elsewhere/kiosk.html") == 0)
        let web = Harness.binDirectory + "/diptych-web"
        func run(_ arguments: [String], _ environment: [String: String]) throws -> Harness.Result {
            try Harness.run([web] + arguments, environment: ["HOME": home, "DIPTYCH_SOCKET": "\(home)/no-compositor"].merging(environment) { $1 })
        }
        let refused: [([String], [String: String], String)] = [
            (["\(home)/kiosk.html"], [:], "from its folder \(home): it is the home folder"),
            (["\(home)/elsewhere/kiosk.html"], [:], "from its folder \(home): it is the home folder"),
            (["\(home)/app/page.html"], ["XDG_STATE_HOME": "\(home)/app/state"], "it holds \(home)/app/state/diptych"),
            (["\(home)/app/page.html"], ["STATE_DIRECTORY": "/var/lib/none:\(home)/app/s"], "it holds \(home)/app/s/web"),
            (["\(home)/app/page.html", "--file-root", "/"], [:], "--file-root /: will not serve /: it is the root folder"),
            (["\(home)/app/page.html", "--file-root", home], [:], "--file-root \(home): will not serve \(home): it is the home folder"),
            (["\(home)/app/page.html", "--file-root", "\(home)/app", "--file-root", "\(home)/elsewhere/.."], [:], "it is the home folder"),
        ]
        for (arguments, environment, said) in refused {
            let r = try run(arguments, environment)
            #expect(r.status == 2 && r.stderr.contains(said), "\(arguments) \(environment): \(r.status) \(r.stderr)")
        }
        // A folder of its own is served (the client goes on to look for its compositor).
        let r = try run(["\(home)/app/page.html"], [:])
        #expect(r.status == 1 && r.stderr.contains("cannot connect to the compositor"), "\(r.status) \(r.stderr)")
    }
}

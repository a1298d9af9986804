// SPDX-License-Identifier: MIT
// Web pages nobody wrote for Diptych, as Safari on iPad shows them: below the status bar (or
// under it, with viewport-fit=cover), scrolled by a finger without seeing wheel events, with
// touch pointer events, and a cancelled touch that clicks nothing. Real WPE WebKit; the page
// says what it saw in its title (JSON).

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

/// A long page: a 10 px red row at its top, a link, 60 rows; its title is what it saw (the
/// events its listeners got, by type and pointerType), its scroll and its location's hash.
private func longPage(cover: String) -> String {
    """
    <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width\(cover)">
    <title>-</title>
    <style>body{margin:0;font:20px sans-serif;background:#fff} #top{height:10px;background:#ff0000}
    a{display:block;height:200px;background:#00aa00;color:#fff} .row{height:100px;border-bottom:1px solid #ccc}</style>
    <div id="top"></div><a id="link" href="#navigated">a link</a><div id="rows"></div>
    <script>
    var seen = {};
    function report() { document.title = JSON.stringify({hash: location.hash, y: Math.round(scrollY), seen: seen}); }
    ['touchstart', 'touchend', 'touchcancel', 'pointerdown', 'pointerup', 'pointercancel', 'wheel', 'click'].forEach(function (k) {
      addEventListener(k, function (e) { var key = k + (e.pointerType ? ':' + e.pointerType : ''); seen[key] = (seen[key] || 0) + 1; report(); }, true);
    });
    for (var i = 0; i < 60; i++) { var d = document.createElement('div'); d.className = 'row'; d.textContent = 'row ' + i; rows.appendChild(d); }
    addEventListener('scroll', report); addEventListener('hashchange', report); report();
    </script>
    """
}

/// Writes the page (`cover`: with viewport-fit=cover) and plays `steps` with it full screen on
/// an iPad; returns the folder and what the page last said.
private func play(_ name: String, cover: Bool = false, steps: String) throws -> (dir: String, page: JSONValue) {
    let dir = Harness.temporaryDirectory(name)
    try Files.writeAtomically("\(dir)/page.html", bytes: Array(longPage(cover: cover ? ", viewport-fit=cover" : "").utf8))
    let scenario = #"{"device":"ipad","primary":"web:\#(dir)/page.html","arrangement":"full","steps":\#(steps)}"#
    try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
    let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
    #expect(r.status == 0, "\(r.stderr)")
    let title = try Harness.events("\(dir)/events-primary.jsonl").last { $0["event"]?.stringValue == "pageTitle" }?["title"]?.stringValue ?? "{}"
    return (dir, (try? JSONValue.parse(title)) ?? .null)
}

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebPageTests {
    /// The page starts below the 20 pt status bar, the band above it in the page's background;
    /// with viewport-fit=cover its top row is under the bar.
    @Test func aPageStartsBelowTheBarUnlessItCoversIt() throws {
        let steps = #"[{"at":0,"wait":true},{"at":100,"wait":true},{"at":100,"capture":"page.png"}]"#
        let below = try PixelImage.readPNG(from: "\(try play("web-band", steps: steps).dir)/page.png")
        // (x 1000 px: clear of the bar's text.) The band white, the red row just below it.
        #expect(below.pixel(x: 1000, y: 10) & 0xFFFFFF == 0xFFFFFF)
        #expect(below.pixel(x: 1000, y: 40 + 10) & 0xFFFFFF == 0xFF0000)
        let covered = try PixelImage.readPNG(from: "\(try play("web-cover", cover: true, steps: steps).dir)/page.png")
        #expect(covered.pixel(x: 1000, y: 10) & 0xFFFFFF == 0xFF0000)
        #expect(covered.pixel(x: 1000, y: 40 + 10) & 0xFFFFFF == 0x00AA00)
    }

    /// A one-finger drag scrolls the page (its pixels move) as WebKit scrolls, and the page's
    /// listeners see touchstart and pointerdown with pointerType touch, and no wheel; a tap in
    /// the band then scrolls it back to its top.
    @Test func aFingerScrollsThePageAndItSeesTouchNotWheels() throws {
        var steps = #"[{"at":0,"wait":true},{"at":50,"capture":"before.png"},{"at":100,"touch":{"id":1,"phase":"down","x":1000,"y":1300}}"#
        for k in 1...8 { steps += #",{"at":\#(100 + 16 * k),"touch":{"id":1,"phase":"motion","x":1000,"y":\#(1300 - 100 * k)}}"# }
        steps += #",{"at":240,"touch":{"id":1,"phase":"up","x":1000,"y":500}},{"at":1500,"wait":true},{"at":1500,"capture":"scrolled.png"}"#
        let (dir, page) = try play("web-scroll", steps: steps + "]")
        #expect((page["y"]?.intValue ?? 0) > 100, "\(page)")
        let seen = page["seen"]
        #expect(seen?["touchstart"]?.intValue == 1 && seen?["pointerdown:touch"]?.intValue == 1, "\(page)")
        #expect(seen?["wheel"] == nil && seen?["pointerdown:mouse"] == nil, "\(page)")
        let before = try PixelImage.readPNG(from: "\(dir)/before.png"), after = try PixelImage.readPNG(from: "\(dir)/scrolled.png")
        #expect(before.pixel(x: 1000, y: 40 + 100) != after.pixel(x: 1000, y: 40 + 100), "the link's green should have scrolled away")
        // A tap in the band: back to the top.
        let (_, top) = try play("web-scroll-top", steps: steps + #",{"at":1600,"touch":{"id":2,"phase":"down","x":1000,"y":20}},{"at":1640,"touch":{"id":2,"phase":"up","x":1000,"y":20}},{"at":3000,"wait":true}]"#)
        #expect(top["y"]?.intValue == 0, "\(top)")
    }

    /// Palm rejection cancels a finger resting on a link when the pen comes: the page sees
    /// touchcancel and pointercancel, and the link is not followed.
    @Test func aCancelledTouchFollowsNoLink() throws {
        let (_, page) = try play("web-palm", steps: """
            [{"at":0,"wait":true},{"at":100,"touch":{"id":1,"phase":"down","x":400,"y":240}},
             {"at":200,"pen":{"phase":"proximityIn","x":1500,"y":1200,"pressure":0}},
             {"at":260,"touch":{"id":1,"phase":"up","x":400,"y":240}},
             {"at":300,"pen":{"phase":"proximityOut","x":1500,"y":1200,"pressure":0}},{"at":1500,"wait":true}]
            """)
        #expect(page["hash"]?.stringValue == "", "\(page)")
        let seen = page["seen"]
        #expect(seen?["touchstart"]?.intValue == 1 && seen?["touchcancel"]?.intValue == 1, "\(page)")
        #expect(seen?["pointercancel:touch"]?.intValue == 1 && seen?["click"] == nil, "\(page)")
    }
}

/// What a page keeps and says: its storage in its data directory across launches (none with
/// --ephemeral), the files beside a file: page, its console on stderr and in the event log.
@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebStateTests {
    static let counter = """
        <!doctype html><meta charset="utf-8"><title>-</title>
        <script>
        var n = Number(localStorage.getItem('n') || 0) + 1; localStorage.setItem('n', String(n));
        console.log('count', n);
        fetch('data.json').then(r => r.json()).then(j => { document.title = 'n=' + n + ' data=' + j.value; })
          .catch(e => { document.title = 'n=' + n + ' data=none'; });
        </script>
        """

    /// Renders the counter page with `flags`; its last title, stderr and event log.
    func render(_ dir: String, _ flags: String, _ k: Int) throws -> (title: String, stderr: String, log: [JSONValue], status: Int32) {
        try Files.makeDirectories("\(dir)/log\(k)")
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/count.html\(flags)",
            "--event-log-dir", "\(dir)/log\(k)", "--out", "\(dir)/x\(k).png",
        ], timeoutMilliseconds: 60_000)
        let log = (try? Harness.events("\(dir)/log\(k)/events-primary.jsonl")) ?? []
        return (log.last { $0["event"]?.stringValue == "pageTitle" }?["title"]?.stringValue ?? "", r.stderr, log, r.status)
    }

    @Test func aPageKeepsItsStorageReadsItsFilesAndSaysWhatItLogs() throws {
        let dir = Harness.temporaryDirectory("web-state")
        try Files.writeAtomically("\(dir)/count.html", bytes: Array(Self.counter.utf8))
        try Files.writeAtomically("\(dir)/data.json", bytes: Array(#"{"value": 42}"#.utf8))
        let first = try render(dir, " --data-dir \(dir)/data", 1), second = try render(dir, " --data-dir \(dir)/data", 2)
        #expect(first.title == "n=1 data=42" && second.title == "n=2 data=42", "\(first.title), \(second.title): \(second.stderr)")
        // render keeps nothing by default, and --ephemeral nothing anywhere.
        #expect(try render(dir, "", 3).title == "n=1 data=42")
        #expect(try render(dir, " --ephemeral", 4).title == "n=1 data=42")
        // The console: on stderr with the page's name and where, and in the event log.
        #expect(second.stderr.contains("diptych-web[web-primary]: console.log: count 2 (file://\(dir)/count.html:4)"), "\(second.stderr)")
        #expect(second.log.contains { $0["event"]?.stringValue == "console" && $0["text"]?.stringValue == "count 2" && $0["level"]?.stringValue == "log" })
        // No file access asked away: the file beside it cannot be read.
        #expect(try render(dir, " --no-file-access", 5).title == "n=1 data=none")
    }

    /// A data directory another web client holds is refused, saying so.
    @Test func aDataDirectoryInUseIsRefused() throws {
        let dir = Harness.temporaryDirectory("web-state-held")
        try Files.writeAtomically("\(dir)/count.html", bytes: Array(Self.counter.utf8))
        try Files.makeDirectories("\(dir)/data")
        let fd = open("\(dir)/data/.diptych-web.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0 && flock(fd, LOCK_EX) == 0)
        defer { close(fd) }
        let held = try render(dir, " --data-dir \(dir)/data", 1)
        #expect(held.status != 0 && held.stderr.contains("the data directory \(dir)/data is in use by another web client"), "\(held.stderr)")
    }

    /// A page that draws 300 ms after its load is captured drawn by `render` (which waits for
    /// it to be ready) and by a scenario's `waitFor`, the same bytes on every run.
    @Test func aPageThatDrawsLateIsCapturedDrawn() throws {
        let dir = Harness.temporaryDirectory("web-late")
        try Files.writeAtomically("\(dir)/late.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>late</title>
            <style>body{margin:0;background:#fff} #b{height:300px;background:#fff}</style><div id="b"></div>
            <script>addEventListener('load', function () { setTimeout(function () { b.style.background = '#0000ff'; }, 300); });</script>
            """.utf8))
        var pictures: [[UInt8]] = []
        for k in 1...2 {
            let r = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/late.html",
                                     "--out", "\(dir)/late\(k).png"], timeoutMilliseconds: 60_000)
            #expect(r.status == 0, "\(r.stderr)")
            pictures.append(try Files.read("\(dir)/late\(k).png"))
        }
        #expect(pictures[0] == pictures[1])
        #expect(try PixelImage.readPNG(from: "\(dir)/late1.png").pixel(x: 1000, y: 40 + 100) & 0xFFFFFF == 0x0000FF)
        let scenario = #"{"device":"ipad","primary":"web:\#(dir)/late.html","arrangement":"full","steps":[{"at":0,"waitFor":"primary"},{"at":0,"capture":"s.png"}]}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PixelImage.readPNG(from: "\(dir)/s.png").pixel(x: 1000, y: 40 + 100) & 0xFFFFFF == 0x0000FF)
        // A waitFor naming no app is refused when the scenario is read.
        try Files.writeAtomically("\(dir)/bad.json", bytes: Array(#"{"primary":"notes","steps":[{"at":0,"waitFor":"third"}]}"#.utf8))
        let bad = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/bad.json", "--out", dir])
        #expect(bad.status == 2 && bad.stderr.contains("steps[0].waitFor") && bad.stderr.contains("primary, secondary or both"), "\(bad.stderr)")
    }

    /// What a kiosk's page may not do: a link with target=_blank opens in the same pane, a
    /// permission (the location) is denied, a file chooser is cancelled.
    @Test func aNewWindowOpensInThePaneAndPermissionsAreDenied() throws {
        let dir = Harness.temporaryDirectory("web-policy")
        try Files.writeAtomically("\(dir)/first.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>first</title>
            <style>body{margin:0} a{display:block;height:300px;background:#00aa00}</style><a href="second.html" target="_blank">new</a>
            <script>navigator.geolocation.getCurrentPosition(function () { console.log('geo: allowed'); },
              function (e) { console.log('geo: refused ' + e.code); });</script>
            """.utf8))
        try Files.writeAtomically("\(dir)/second.html", bytes: Array(#"<!doctype html><meta charset="utf-8"><title>second</title>"#.utf8))
        let scenario = #"{"device":"ipad","primary":"web:\#(dir)/first.html","arrangement":"full","steps":[{"at":0,"waitFor":"primary"},"# +
            #"{"at":100,"touch":{"id":1,"phase":"down","x":400,"y":300}},{"at":140,"touch":{"id":1,"phase":"up","x":400,"y":300}},{"at":200,"waitFor":"primary"}]}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let log = try Harness.events("\(dir)/events-primary.jsonl")
        #expect(log.last { $0["event"]?.stringValue == "pageTitle" }?["title"]?.stringValue == "second")
        #expect(r.stderr.contains("a new window for file://\(dir)/second.html opens in this pane"), "\(r.stderr)")
        #expect(log.contains { $0["event"]?.stringValue == "console" && $0["text"]?.stringValue == "geo: refused 1" }, "\(r.stderr)")
    }

    /// A page that never finishes loading (an image that is a FIFO nobody writes, loaded as
    /// plain file: with --allow-file-access: the web client refuses a FIFO at once) is taken as
    /// ready at the 10 s bound, said on stderr: `render` still writes its frame.
    @Test func aPageThatNeverFinishesLoadingIsTakenAsReadyAtTheBound() throws {
        let dir = Harness.temporaryDirectory("web-never")
        #expect(mkfifo("\(dir)/never.png", 0o600) == 0)
        try Files.writeAtomically("\(dir)/never.html", bytes: Array("""
            <!doctype html><meta charset="utf-8"><title>never</title><p>waiting</p><img src="never.png">
            """.utf8))
        let r = try Harness.run([Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/never.html --allow-file-access",
                                 "--out", "\(dir)/never-frame.png"], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("has not finished loading 10 s after its load began: shown as it is, taken as ready"), "\(r.stderr)")
        #expect(Files.exists("\(dir)/never-frame.png"))
    }
}

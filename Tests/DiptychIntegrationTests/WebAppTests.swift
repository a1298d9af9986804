// SPDX-License-Identifier: MIT
// Web apps: real WPE WebKit processes behind `web:URL`, judged by the pixels of their panes,
// the page's own title (which the demo pages keep as their state) in the web client's event
// log, and its frames.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

/// The web client, built beside the Swift binaries when WPE WebKit is installed.
private let webClient = Harness.binDirectory + "/diptych-web"
private let webIsThere = access(webClient, X_OK) == 0
private let markets = "web:\(repositoryRoot)/Assets/web/markets.html"

/// The page titles the web client logged, in order.
private func titles(_ log: String) -> [String] {
    ((try? Harness.events(log)) ?? []).compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil }
}

/// Whether two images hold the same pixels.
private func same(_ a: PixelImage, _ b: PixelImage) -> Bool {
    guard a.width == b.width, a.height == b.height else { return false }
    for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { return false } }
    return true
}

private func events(_ log: String) -> [String] { ((try? Harness.events(log)) ?? []).compactMap { $0["event"]?.stringValue } }

/// Plays `steps` (a scenario's JSON list) with `primary` and `secondary` into a new folder.
private func play(_ name: String, primary: String, secondary: String, steps: String, environment: [String: String] = [:]) throws -> String {
    let dir = Harness.temporaryDirectory(name)
    let scenario = #"{"device":"ipad","primary":"\#(primary)","secondary":"\#(secondary)","arrangement":"split-2/3","steps":\#(steps)}"#
    try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
    let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], environment: environment, timeoutMilliseconds: 120_000)
    #expect(r.status == 0, "\(r.stderr)")
    return dir
}

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebAppTests {
    /// The page's viewport is the pane in points, so its layout follows the size class: list and
    /// detail side by side when regular, the list alone across the pane when compact.
    @Test func aWebPageHasTheLayoutOfItsSizeClass() throws {
        let dir = Harness.temporaryDirectory("web-render")
        for (arrangement, name) in [("split-2/3", "regular"), ("split-1/2", "compact")] {
            let r = try Harness.run([
                Harness.diptych, "render", "--device", "ipad", "--arrangement", arrangement, "--primary", markets,
                "--secondary", "pattern:#993366", "--event-log-dir", dir, "--out", "\(dir)/\(name).png",
            ], timeoutMilliseconds: 60_000)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(titles("\(dir)/events-primary.jsonl").last?.contains("class=\(name)") == true)
            Files.remove("\(dir)/events-primary.jsonl")
        }
        let regular = try PixelImage.readPNG(from: "\(dir)/regular.png"), compact = try PixelImage.readPNG(from: "\(dir)/compact.png")
        // The selected row (AAPL, 100 pt down): 320 pt wide when regular, the pane's width when compact.
        let row = regular.pixel(x: 300, y: 200)
        #expect(regular.pixel(x: 450, y: 200) == row)
        #expect(regular.pixel(x: 1000, y: 1400) != row)
        #expect(compact.pixel(x: 300, y: 200) == row && compact.pixel(x: 500, y: 200) == row && compact.pixel(x: 800, y: 200) == row)
        // A dark page asks for light status bar text (the meta tag): the time is white.
        var light = 0
        for x in 980..<1070 { for y in 8..<32 where regular.pixel(x: x, y: y) & 0xFFFFFF == 0xFFFFFF { light += 1 } }
        #expect(light > 20, "\(light) white pixels in the clock")
    }

    /// A tap selects a stock; mid-drag the pane shows the page rendered at the compact size (the
    /// same pixels the page shows live once compact); after the drag back the selection is kept;
    /// and the whole scenario plays the same twice.
    @Test func aDividerDragShowsTheWebSnapshotsAndKeepsThePageState() throws {
        var runs: [[PixelImage]] = []
        for i in 0..<2 {
            let dir = Harness.temporaryDirectory("web-drag-\(i)")
            let r = try Harness.run(
                [Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/web-drag.json", "--out", dir], timeoutMilliseconds: 120_000)
            #expect(r.status == 0, "\(r.stderr)")
            let shots = try ["web-selected", "web-mid-drag", "web-compact", "web-back"].map { try PixelImage.readPNG(from: "\(dir)/\($0).png") }
            runs.append(shots)
            let t = titles("\(dir)/events-primary.jsonl")
            #expect(t.contains { $0.contains("selected=NVDA") }, "the tap did not reach the page: \(t)")
            #expect(t.last?.contains("selected=NVDA class=regular") == true, "\(t.last ?? "")")
            #expect(events("\(dir)/events-primary.jsonl").filter { $0 == "snapshotRequest" }.count == 6)
        }
        let (selected, mid, compact, back) = (runs[0][0], runs[0][1], runs[0][2], runs[0][3])
        // Mid-drag, the left pane is the compact snapshot blurred: the page as it then is,
        // compact, its large shapes kept (block means close to the snapshot's, dimmed) and its
        // detail gone (far less change from pixel to pixel).
        let blocks = BlurMeasure.blockMeans(mid, Rect(x: 0, y: 96, width: 960, height: 1344), block: 96)
        let sharpBlocks = BlurMeasure.blockMeans(compact, Rect(x: 0, y: 96, width: 960, height: 1344), block: 96)
        let off = zip(blocks, sharpBlocks).map { abs($0 - $1 * BlurMeasure.dim) }
        #expect(off.reduce(0, +) / Double(off.count) < 8 && off.max()! < 40, "block means off by \(off)")
        let detail = BlurMeasure.detail(mid, Rect(x: 0, y: 96, width: 960, height: 1344)), sharpDetail = BlurMeasure.detail(compact, Rect(x: 0, y: 96, width: 960, height: 1344))
        #expect(detail < sharpDetail / 4, "detail \(detail) against the snapshot's \(sharpDetail)")
        // Over it, the page's apple-touch-icon (its blue line), read from the page's link.
        var iconLine = 0
        for y in stride(from: 648, to: 888, by: 2) { for x in stride(from: 0, to: 1200, by: 2) where mid.pixel(x: x, y: y) & 0xFFFFFF == 0x5AA2FF { iconLine += 1 } }
        #expect(iconLine > 50, "\(iconLine) pixels of the icon's line")
        #expect(selected.pixel(x: 600, y: 200) != compact.pixel(x: 600, y: 200))
        // Back in the regular split: as it was before the drag.
        #expect(same(back, selected))
        for (a, b) in zip(runs[0], runs[1]) { #expect(same(a, b)) }
    }

    /// A page cannot reach diptych-web's handlers (they live in its own script world): posting
    /// to them fails, replacing requestAnimationFrame stalls no round trip, and an icon link
    /// outside the page's folder, or to a FIFO in it, is refused without blocking.
    @Test(arguments: ["outside", "fifo"])
    func aPageCannotUseTheWebClientsHandlers(icon: String) throws {
        let dir0 = Harness.temporaryDirectory("web-hostile"), elsewhere = Harness.temporaryDirectory("web-elsewhere")
        let png = PixelImage(width: 64, height: 64)
        png.fill(Rect(x: 0, y: 0, width: 64, height: 64), color: RGB(red: 255, green: 0, blue: 0))
        try png.writePNG(to: "\(elsewhere)/icon.png")
        if icon == "fifo" { #expect(mkfifo("\(dir0)/icon.png", 0o600) == 0) }
        let href = icon == "fifo" ? "icon.png" : "file://\(elsewhere)/icon.png"
        let page = """
            <!doctype html><meta name=viewport content="width=device-width"><link rel=icon href="\(href)">
            <style>html,body{margin:0;height:100%;background:#246}</style><script>
            var posted=[];['diptych','diptychIcon'].forEach(function(n){try{window.webkit.messageHandlers[n].postMessage(n==='diptych'?1:'file:\(elsewhere)/icon.png');posted.push(n)}catch(e){}});
            window.requestAnimationFrame=function(){};
            document.title='reached='+(posted.join(',')||'none');</script>
            """
        try Files.writeAtomically("\(dir0)/hostile.html", bytes: Array(page.utf8))
        var steps: [String] = []
        for i in 0..<6 {
            let t = 200 + i * 300
            steps.append(#"{"at":\#(t),"touch":{"id":1,"phase":"down","x":1700,"y":\#(300 + i * 40)}},{"at":\#(t + 40),"touch":{"id":1,"phase":"up","x":1700,"y":\#(300 + i * 40)}},{"at":\#(t + 60),"wait":true}"#)
        }
        steps.append(#"{"at":2400,"capture":"end.png"}"#)
        let dir = try play("web-hostile-run", primary: "notes", secondary: "web:\(dir0)/hostile.html", steps: "[" + steps.joined(separator: ",") + "]")
        let log = "\(dir)/events-secondary.jsonl"
        #expect(titles(log).last == "reached=none", "\(titles(log))")
        // Every round trip was answered because the page drew, none at the deadline.
        #expect(!events(log).contains("syncTimeout"), "\(events(log))")
        // No icon came from outside the page's folder or from the FIFO.
        #expect(!events(log).contains("iconSent"), "\(events(log))")
    }

    /// Lifecycle reaches the page: losing focus when a drag starts, hidden once dismissed, and a
    /// hidden page makes no frames.
    @Test func lifecycleReachesThePageAndAHiddenPageMakesNoFrames() throws {
        let dir0 = Harness.temporaryDirectory("web-anim")
        let page = """
            <!doctype html><meta name=viewport content="width=device-width"><style>html,body{margin:0;height:100%;background:#124}
            #b{width:200px;height:200px;background:#fc0;animation:s 1s linear infinite}@keyframes s{to{transform:rotate(360deg)}}</style>
            <div id=b></div><script>function t(){document.title='visibility='+document.visibilityState+' focus='+document.hasFocus()}
            document.addEventListener('visibilitychange',t);addEventListener('focus',t);addEventListener('blur',t);t()</script>
            """
        try Files.writeAtomically("\(dir0)/anim.html", bytes: Array(page.utf8))
        let steps = """
            [{"at":0,"touch":{"id":1,"phase":"down","x":1398,"y":700}},{"at":16,"touch":{"id":1,"phase":"motion","x":1524,"y":700}},
             {"at":32,"touch":{"id":1,"phase":"motion","x":1777,"y":700}},{"at":48,"touch":{"id":1,"phase":"motion","x":2030,"y":700}},
             {"at":64,"touch":{"id":1,"phase":"up","x":2030,"y":700}},{"at":80,"wait":true},{"at":3000,"capture":"later.png"}]
            """
        let dir = try play("web-dismiss", primary: "notes", secondary: "web:\(dir0)/anim.html", steps: steps, environment: ["DIPTYCH_WEB_LOG_FRAMES": "1"])
        let log = "\(dir)/events-secondary.jsonl"
        let lines = (try? Harness.events(log)) ?? []
        let names = lines.compactMap { $0["event"]?.stringValue }
        let t = titles(log)
        #expect(t.contains("visibility=visible focus=false"), "\(t)")
        #expect(t.last == "visibility=hidden focus=false", "\(t)")
        // Frames while it was visible; none after it went to the background (one may be on its way).
        let background = try #require(names.firstIndex(of: "didEnterBackground"))
        #expect(names[..<background].filter { $0 == "webFrame" }.count >= 3)
        #expect(names[(background + 1)...].filter { $0 == "webFrame" }.count <= 1, "\(names[(background + 1)...])")
    }

    /// The pen draws through pointer events and a finger through touch events (sketch.html
    /// counts its strokes in its title), and both show in the pane.
    @Test func thePenAndAFingerDrawOnAWebCanvas() throws {
        let dir = Harness.temporaryDirectory("web-sketch")
        let r = try Harness.run(
            [Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/web-sketch.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(titles("\(dir)/events-primary.jsonl").last?.hasPrefix("sketch strokes=2 ") == true, "\(titles("\(dir)/events-primary.jsonl"))")
        let png = try PixelImage.readPNG(from: "\(dir)/sketch.png")
        #expect(png.pixel(x: 500, y: 700) & 0xFFFFFF == 0x1D1D1F)  // on the pen's line
        #expect(png.pixel(x: 450, y: 1050) & 0xFFFFFF == 0xD0403A)  // on the finger's
    }

    /// Keys and the pointer reach WebKit: typed text (with Shift) lands in the focused field, a
    /// wheel scrolls the list under the pointer down, a click presses the button (form.html
    /// says what it got in its title).
    @Test func keysAndThePointerReachAWebPage() throws {
        let dir = Harness.temporaryDirectory("web-form")
        let r = try Harness.run(
            [Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/web-form.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let t = titles("\(dir)/events-primary.jsonl")
        #expect(t.last?.hasPrefix("form text=Kio scroll=down clicks=1 ") == true, "\(t)")
        let keys = try Harness.events("\(dir)/events-primary.jsonl").filter { $0["event"]?.stringValue == "key" }
        #expect(keys.count == 8)
    }

    /// A URL that cannot be loaded shows an error page naming it, and says so on stderr.
    @Test func aBadURLShowsTheErrorPage() throws {
        let dir = Harness.temporaryDirectory("web-bad")
        // A page's file that is not there is refused before anything starts.
        let missing = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/no-such-page.html", "--out", "\(dir)/missing.png",
        ], timeoutMilliseconds: 60_000)
        #expect(missing.status == 2 && missing.stderr.contains("\(dir)/no-such-page.html does not exist"), "\(missing.stderr)")
        // One that cannot be loaded (a folder where the page should be): the error page, named.
        #expect(mkdir("\(dir)/folder.html", 0o755) == 0)
        let r = try Harness.run([
            Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "web:\(dir)/folder.html",
            "--event-log-dir", dir, "--out", "\(dir)/bad.png",
        ], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("cannot load file://\(dir)/folder.html"), "\(r.stderr)")
        let png = try PixelImage.readPNG(from: "\(dir)/bad.png")
        #expect(png.pixel(x: 1000, y: 1200) & 0xFFFFFF == 0x1C1C1E)
        #expect(titles("\(dir)/events-primary.jsonl").last == "error")
    }

    /// The web process killed: the page is reloaded (said once) and draws again; the client
    /// killed: no WebKit process is left behind.
    @Test func aKilledWebProcessRecoversAndNoneOutlivesTheClient() throws {
        let dir = Harness.temporaryDirectory("web-crash")
        let compositor = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--device", "ipad", "--primary", markets, "--out", dir],
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "XDG_STATE_HOME": dir])
        defer { compositor.terminate() }
        func waitFor(_ what: () -> Bool) -> Bool { eventually(seconds: 30, what) }
        #expect(waitFor { titles("\(dir)/events-primary.jsonl").count >= 1 })
        func children(of pid: Int32) -> [Int32] {
            // Every thread's children (a process started from another thread is its child).
            let tasks = (try? Harness.run(["/bin/sh", "-c", "cat /proc/\(pid)/task/*/children"]))?.stdout ?? ""
            return tasks.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
        }
        func name(_ pid: Int32) -> String {
            ((try? Files.read("/proc/\(pid)/comm")).map { String(decoding: $0, as: UTF8.self) } ?? "").filter { $0 != "\n" }
        }
        let client = try #require(children(of: compositor.pid).first { name($0).hasPrefix("diptych-web") })
        // (Under WebKit's sandbox the web process is bwrap's child: looked for among all.)
        func descendants(of pid: Int32) -> [Int32] { children(of: pid).flatMap { [$0] + descendants(of: $0) } }
        func webProcess() -> Int32? { descendants(of: client).first { name($0).hasPrefix("WPEWebProcess") } }
        // Killed four times, each once the page is back: the reloads back off whatever loaded
        // in between (0, then 0.5, 1 and 2 s).
        func loads() -> Int { titles("\(dir)/events-primary.jsonl").filter { $0.contains("class=") }.count }
        for _ in 0..<4 {
            let before = loads()
            #expect(waitFor { webProcess() != nil })
            let process = try #require(webProcess(), "\(descendants(of: client).map(name))")
            kill(process, SIGKILL)
            #expect(waitFor { loads() > before }, "the page was not loaded again")
        }
        let ended = ((try? Harness.events("\(dir)/events-primary.jsonl")) ?? []).filter { $0["event"]?.stringValue == "webProcessEnded" }
        #expect(ended.compactMap { $0["reloadMs"]?.intValue } == [0, 500, 1000, 2000])
        let webkit = descendants(of: client)
        // The client killed outright: its WebKit processes go by themselves.
        let left = webkit
        kill(client, SIGKILL)
        #expect(waitFor { left.allSatisfy { kill($0, 0) != 0 || name($0).isEmpty } }, "left behind: \(left.map(name))")
    }
}

// SPDX-License-Identifier: MIT
// A page's menus and dialogs shown by the compositor, with real WPE WebKit: a tapped `<select>`
// opens a popover anchored under it and a tapped option is the page's value; confirm() answered
// OK is true; prompt() returns what the keyboard typed; a page that opens dialogs in a loop is
// held to three within 10 s; a select of 10,000 options scrolls and chooses; HTTP sign-in asks
// for a user and a password; --tls-ca lets a page signed by a private authority load.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0
private let opensslIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v openssl"]))?.status ?? 1) == 0

/// A full-screen page at iPad size played through `steps`: its titles and event log.
private struct DialogPlayed {
    var dir: String
    var titles: [String]
    var events: [JSONValue]
    var stderr: String

    init(_ name: String, page: String, flags: String = "", url: String? = nil, steps: String) throws {
        dir = Harness.temporaryDirectory(name)
        try Files.writeAtomically("\(dir)/page.html", bytes: Array(page.utf8))
        let app = "web:\(url ?? "\(dir)/page.html")\(flags)"
        let scenario = #"{"device":"ipad","primary":"\#(app)","arrangement":"full","steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 180_000)
        #expect(r.status == 0, "\(r.stderr)")
        stderr = r.stderr
        events = (try? Harness.events("\(dir)/events-primary.jsonl")) ?? []
        titles = events.compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil }
    }

    func count(_ event: String) -> Int { events.filter { $0["event"]?.stringValue == event }.count }
}

/// A tap at screen points (x, y) at `at` ms (the scenario's pixels are twice the points).
private func tap(_ at: Int, _ x: Double, _ y: Double) -> String {
    let (px, py) = (Int(x * 2), Int(y * 2))
    return #"{"at":\#(at),"touch":{"id":1,"phase":"down","x":\#(px),"y":\#(py)}},{"at":\#(at + 40),"touch":{"id":1,"phase":"up","x":\#(px),"y":\#(py)}}"#
}

/// Controls placed where the tests tap them (CSS px are points; the page starts 20 pt down,
/// below the status bar).
private let controls = """
    <!doctype html><meta charset="utf-8"><title>-</title>
    <style>body{margin:0;background:#eef;font:18px sans-serif} .c{position:absolute;left:100px;width:200px;height:40px;font-size:18px}</style>
    <select id="s" class="c" style="top:100px"><option>Apple</option><option>Cherry</option><option selected>Banana</option></select>
    <button class="c" style="top:200px" onclick="document.title='confirm:'+confirm('Delete the file?')">Confirm</button>
    <button class="c" style="top:300px" onclick="document.title='prompt:'+prompt('Your name?','Bo')">Prompt</button>
    <button class="c" style="top:400px" onclick="var n=0;for(var i=0;i<10;i++){alert('Number '+i);n++}document.title='alerts:'+n">Alerts</button>
    <script>s.onchange=function(){document.title='chose:'+s.value}</script>
    """

/// Where an alert without a field shows its last button on a full-screen iPad (points): a card
/// of 270 pt centred below the bar (title, one line of message), buttons 44 pt tall.
private let okButton = (x: 512.0 + 67.5, y: 435.0)

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebDialogTests {
    @Test func aTappedSelectOpensAPopoverAndAnOptionIsChosen() throws {
        let p = try DialogPlayed("web-select", page: controls, steps: """
            [{"at":0,"wait":true},\(tap(100, 200, 140)),{"at":700,"wait":true},{"at":700,"capture":"menu.png"},
             \(tap(800, 200, 234)),{"at":1400,"wait":true}]
            """)
        #expect(p.titles.last == "chose:Cherry", "\(p.titles) \(p.stderr)")
        #expect(p.count("menuChosen") == 1)
        // The popover: white under the select (it ends at 160 pt; the popover starts 8 pt below),
        // the page's blue-grey beside it.
        let shot = try PixelImage.readPNG(from: "\(p.dir)/menu.png")
        #expect(shot.pixel(x: 2 * 280, y: 2 * 172) & 0xFFFFFF == 0xFFFFFF, "\(String(shot.pixel(x: 560, y: 344), radix: 16))")
        #expect(shot.pixel(x: 2 * 600, y: 2 * 190) & 0xFFFFFF == 0xEEEEFF)
        #expect(shot.pixel(x: 2 * 200, y: 2 * 130) & 0xFFFFFF != 0xFFFFFF, "the select stays in sight above the popover")
    }

    @Test func confirmAnsweredOKIsTrueAndPromptReturnsWhatWasTyped() throws {
        let p = try DialogPlayed("web-confirm", page: controls, steps: """
            [{"at":0,"wait":true},\(tap(100, 200, 240)),{"at":700,"wait":true},{"at":700,"capture":"confirm.png"},
             \(tap(800, okButton.x, okButton.y)),{"at":1400,"wait":true},
             \(tap(1500, 200, 340)),{"at":2100,"wait":true},{"at":2100,"type":"Ann\\n"},{"at":2100,"wait":true}]
            """)
        #expect(p.titles.contains("confirm:true"), "\(p.titles) \(p.stderr)")
        #expect(p.titles.last == "prompt:BoAnn", "\(p.titles)")
        // The alert dims the page around its card.
        let shot = try PixelImage.readPNG(from: "\(p.dir)/confirm.png")
        let dimmed = shot.pixel(x: 2 * 200, y: 2 * 600) & 0xFFFFFF
        #expect(dimmed != 0xEEEEFF && dimmed & 0xFF < 0xEE, "\(String(dimmed, radix: 16))")
        #expect(shot.pixel(x: Int(2 * okButton.x), y: 2 * 400) & 0xFFFFFF == 0xF2F2F2, "the card")
    }

    /// A page that opens ten alerts in a row: three show, the rest return at once.
    @Test func aPageOpeningDialogsInALoopIsHeldToThree() throws {
        let p = try DialogPlayed("web-flood", page: controls, steps: """
            [{"at":0,"wait":true},\(tap(100, 200, 440)),{"at":600,"wait":true},\(tap(700, okButton.x, okButton.y)),{"at":1200,"wait":true},
             \(tap(1300, okButton.x, okButton.y)),{"at":1800,"wait":true},\(tap(1900, okButton.x, okButton.y)),{"at":2400,"wait":true}]
            """)
        #expect(p.titles.last == "alerts:10", "\(p.titles) \(p.stderr)")
        #expect(p.count("alertAnswered") == 3)
        #expect(p.stderr.contains("more than three dialogs within 10 s"))
    }

    /// A select of 10,000 options: the popover scrolls with a finger and a row far down is
    /// chosen; the compositor holds every option (10,000 is the bound).
    @Test func aSelectOfTenThousandOptionsScrollsAndChooses() throws {
        let page = """
            <!doctype html><meta charset="utf-8"><title>-</title><style>body{margin:0}</style>
            <select id="s" style="position:absolute;left:100px;top:100px;width:200px;height:40px"></select>
            <script>for(var i=0;i<10000;i++){var o=document.createElement('option');o.textContent='Option '+i;s.appendChild(o)}
            s.onchange=function(){document.title='chose:'+s.value}</script>
            """
        // Drag the list up by 440 pt (ten rows) in steps, then tap its first row in sight.
        var drag = #"{"at":800,"touch":{"id":2,"phase":"down","x":400,"y":1400}}"#
        for k in 1...11 {
            let at = 800 + 20 * k, y = 1400 - 80 * k
            drag += #",{"at":\#(at),"touch":{"id":2,"phase":"motion","x":400,"y":\#(y)}}"#
        }
        drag += #",{"at":1100,"touch":{"id":2,"phase":"up","x":400,"y":520}}"#
        let p = try DialogPlayed("web-big-select", page: page, steps: """
            [{"at":0,"wait":true},\(tap(100, 200, 140)),{"at":700,"wait":true},\(drag),{"at":1200,"wait":true},
             \(tap(1300, 200, 190)),{"at":1900,"wait":true}]
            """)
        let last = p.titles.last ?? ""
        let chosen: Int? = last.hasPrefix("chose:Option ") ? Int(last.dropFirst(13)) : nil
        #expect(chosen != nil && chosen! >= 8 && chosen! <= 12, "\(p.titles) \(p.stderr)")
    }
}

/// The shipped tour of a page's menus and dialogs (`Assets/scenarios/web-dialogs.json`, in
/// `make run`): a select, a prompt typed on the keyboard, a confirm; the same PNGs twice.
@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebDialogScenarioTests {
    @Test func theDialogsTourEndsCheckedOutAndCapturesTheSameTwice() throws {
        var runs: [String] = []
        for k in 0..<2 {
            let dir = Harness.temporaryDirectory("web-dialogs-\(k)")
            let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/web-dialogs.json", "--out", dir],
                                    timeoutMilliseconds: 120_000)
            #expect(r.status == 0, "\(r.stderr)")
            let titles = ((try? Harness.events("\(dir)/events-primary.jsonl")) ?? []).compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil }
            #expect(titles.last == "host=Alan Turing|note=Back at 3|out=true", "\(titles)")
            runs.append(dir)
        }
        for name in ["select.png", "prompt.png", "confirm.png"] {
            let a = try PixelImage.readPNG(from: "\(runs[0])/\(name)"), b = try PixelImage.readPNG(from: "\(runs[1])/\(name)")
            #expect(a.compare(to: b, tolerance: 0).matches, "\(name) differs between two runs")
        }
    }
}

/// A page behind HTTP Basic authentication, and one over HTTPS with a private authority's
/// certificate, served by `Tests/Tools/web-server.py` on a free port.
@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebSignInTests {
    /// Starts the test server in `mode`; its process and port.
    func serve(_ arguments: [String]) throws -> (ChildProcess, Int) {
        let dir = Harness.temporaryDirectory("web-server")
        let out = "\(dir)/port"
        let server = try ChildProcess(arguments: ["/bin/sh", "-c", "exec python3 \"$0\" \"$@\" > \(out)", "\(repositoryRoot)/Tests/Tools/web-server.py"] + arguments)
        for _ in 0..<100 {
            if let text = try? Files.read(out), let port = Int(String(decoding: text, as: UTF8.self).split(separator: "\n").first ?? "") { return (server, port) }
            usleep(50_000)
        }
        server.terminate()
        throw ServerDidNotStart()
    }

    /// HTTP authentication asks for the user name, then the password (typed on the keyboard);
    /// the page loads signed in.
    @Test func httpSignInAsksForAUserAndAPassword() throws {
        let (server, port) = try serve(["basic"])
        defer { server.terminate() }
        let p = try DialogPlayed("web-sign-in", page: "", url: "http://127.0.0.1:\(port)/", steps: """
            [{"at":0,"wait":true},{"at":0,"capture":"user.png"},{"at":100,"type":"ann\\n"},{"at":100,"wait":true},
             {"at":200,"type":"pw\\n"},{"at":200,"wait":true},{"at":300,"waitFor":"primary"}]
            """)
        #expect(p.titles.last == "welcome ann", "\(p.titles) \(p.stderr)")
        let answers = p.events.filter { $0["event"]?.stringValue == "alertAnswered" }.map { $0["text"]?.stringValue ?? "" }
        #expect(answers == ["ann", "pw"])
    }

    /// A page whose certificate a private authority signed shows the error page naming the
    /// problem, and loads with that authority given (`--tls-ca`).
    @Test(.enabled(if: opensslIsThere, "needs openssl (make installs it)"))
    func aPrivateAuthorityIsTrustedOnlyWhenGiven() throws {
        let dir = Harness.temporaryDirectory("web-tls")
        let make = """
            cd "\(dir)" && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=Diptych Test CA" &&
            openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" &&
            printf 'subjectAltName=IP:127.0.0.1\\n' > ext && openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile ext
            """
        let made = try Harness.run(["/bin/sh", "-c", make])
        #expect(made.status == 0, "\(made.stderr)")
        let (server, port) = try serve(["tls", "\(dir)/srv.pem", "\(dir)/srv.key"])
        defer { server.terminate() }
        let url = "https://127.0.0.1:\(port)/"
        let refused = try DialogPlayed("web-tls-refused", page: "", url: url, steps: #"[{"at":0,"wait":true}]"#)
        #expect(refused.titles.last == "error")
        #expect(refused.stderr.contains("not signed by an authority this system trusts"), "\(refused.stderr)")
        let trusted = try DialogPlayed("web-tls-trusted", page: "", flags: " --tls-ca \(dir)/ca.pem", url: url, steps: #"[{"at":0,"wait":true}]"#)
        #expect(trusted.titles.last == "secure page", "\(trusted.titles) \(trusted.stderr)")
    }
}
private struct ServerDidNotStart: Error {}

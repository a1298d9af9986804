// SPDX-License-Identifier: MIT
// A sign-in kiosk from start to finish (SPEC §20) with real WPE WebKit: an ordinary form served
// over HTTP on 127.0.0.1 (Tests/Tools/web-server.py sign-in), its last two fields and its button
// low on the page where the on-screen keyboard covers them; filled in with the keyboard's ‹ ›
// and return, or reached by a finger's scroll; the server reads what was typed; the page after
// the submit shows from its top with no keyboard. Also the dismiss key's blur, return in a
// single-line field, and a page that never stops drawing in a scenario.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

/// The sign-in server, on a free port of 127.0.0.1; what it received, one POST body a line.
private final class SignInServer {
    let dir: String
    let port: Int
    private let process: ChildProcess

    init(_ dir: String) throws {
        self.dir = dir
        process = try ChildProcess(arguments: [
            "/bin/sh", "-c", "exec python3 \"$0\" sign-in \"$1\" > \"$2\"", "\(repositoryRoot)/Tests/Tools/web-server.py", "\(dir)/received", "\(dir)/port",
        ])
        var port = 0
        _ = try eventually(seconds: 10) {
            let text = String(decoding: (try? Files.read("\(dir)/port")) ?? [], as: UTF8.self)
            port = Int(text.split(separator: "\n").first ?? "") ?? 0
            return port > 0
        }
        self.port = port
    }

    var url: String { "web:http://127.0.0.1:\(port)/" }
    var received: [String] { String(decoding: (try? Files.read("\(dir)/received")) ?? [], as: UTF8.self).split(separator: "\n").map(String.init) }

    deinit { process.terminate() }
}

/// A scenario played full screen on the iPad with `page`: its frames, the page's titles (the
/// form's state: `focus=…|inner=…|scroll=…`) and its events.
private struct FormPlayed {
    var dir: String
    var frames: [JSONValue]
    var events: [JSONValue]
    var seconds: Double
    var stderr: String

    init(_ dir: String, page: String, steps: String) throws {
        self.dir = dir
        let scenario = #"{"device":"ipad","primary":"\#(page)","arrangement":"full","steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let start = MonotonicClock.milliseconds
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 180_000)
        seconds = Double(MonotonicClock.milliseconds - start) / 1000
        stderr = r.stderr
        #expect(r.status == 0, "\(r.stderr)")
        frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        events = (try? Harness.events("\(dir)/events-primary.jsonl")) ?? []
    }

    var titles: [String] { events.compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil } }

    /// The fields of the last title that has `key`.
    func last(_ key: String) -> String? {
        for title in titles.reversed() {
            for part in title.split(separator: "|") where part.hasPrefix("\(key)=") { return String(part.dropFirst(key.count + 1)) }
        }
        return nil
    }

    /// Whether any title had `key=value`.
    func ever(_ key: String, _ value: String) -> Bool { titles.contains { $0.split(separator: "|").contains { $0 == "\(key)=\(value)" } } }

    /// The virtual time of the page's first key event with `keysym` going down.
    func keyTime(_ keysym: Int) -> Int? {
        events.first { $0["event"]?.stringValue == "key" && $0["keysym"]?.intValue == keysym && $0["state"]?.stringValue == "pressed" }?["time"]?.doubleValue.map { Int($0) }
    }

    func keyboard(_ frame: JSONValue) -> JSONValue? { frame["keyboard"].flatMap { $0 == .null ? nil : $0 } }
}

/// A tap at screen pixels (x, y) at `at` ms.
private func tap(_ at: Int, _ x: Int, _ y: Int) -> String {
    #"{"at":\#(at),"touch":{"id":1,"phase":"down","x":\#(x),"y":\#(y)}},{"at":\#(at + 40),"touch":{"id":1,"phase":"up","x":\#(x),"y":\#(y)}}"#
}

/// A finger's slow drag up from `y0` to `y1` (screen pixels) at x 1024, starting at `at`.
private func dragUp(_ at: Int, id: Int, from y0: Int, to y1: Int) -> String {
    var steps = [#"{"at":\#(at),"touch":{"id":\#(id),"phase":"down","x":1024,"y":\#(y0)}}"#]
    for k in 1...10 { steps.append(#"{"at":\#(at + 40 * k),"touch":{"id":\#(id),"phase":"motion","x":1024,"y":\#(y0 + (y1 - y0) * k / 10)}}"#) }
    steps.append(#"{"at":\#(at + 480),"touch":{"id":\#(id),"phase":"up","x":1024,"y":\#(y1)}}"#)
    return steps.joined(separator: ",")
}

/// How many pixels of `image` in the box (points, at scale 2) are `rgb` (within 12 a channel).
private func count(_ image: PixelImage, _ rgb: UInt32, x: ClosedRange<Int>, y: ClosedRange<Int>) -> Int {
    var n = 0
    for py in stride(from: y.lowerBound * 2, through: y.upperBound * 2, by: 2) {
        for px in stride(from: x.lowerBound * 2, through: x.upperBound * 2, by: 2) {
            let p = image.pixel(x: px, y: py)
            var close = true
            for shift: UInt32 in [0, 8, 16] {
                let a = Int((p >> shift) & 0xFF), b = Int((rgb >> shift) & 0xFF)
                if abs(a - b) > 12 { close = false }
            }
            if close { n += 1 }
        }
    }
    return n
}

private let green: UInt32 = 0x34C759, blue: UInt32 = 0x0A84FF

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct SignInKioskTests {
    /// Tap the first field, type, › twice typing each, return: the server gets exactly what was
    /// typed, the keyboard is gone within 0.5 s of the submit, and the next page shows from its
    /// top (its green band under the status bar). While the keyboard shows, the page's view
    /// ends at its top (`innerHeight` 350 of 748) and the focused field is scrolled above it.
    @Test func aSignInFormIsFilledInWithNextAndReturn() throws {
        let dir = Harness.temporaryDirectory("sign-in-next")
        let server = try SignInServer(dir)
        let p = try FormPlayed(dir, page: server.url, steps: """
            [{"at":0,"wait":true},\(tap(100, 1024, 394)),{"at":600,"type":"Ada Lovelace"},{"at":600,"press":"next"},
             {"at":600,"type":"ada@example.com"},{"at":600,"press":"next"},{"at":600,"type":"pw1234"},{"at":600,"wait":true},
             {"at":600,"capture":"filled.png"},{"at":600,"press":"return"},{"at":600,"wait":true},{"at":600,"capture":"welcome.png"}]
            """)
        #expect(server.received == ["name=Ada+Lovelace&email=ada%40example.com&password=pw1234"], "\(p.titles.suffix(4))")
        #expect(p.ever("focus", "email") && p.ever("focus", "password"), "› moved the focus: \(p.titles)")
        #expect(p.ever("inner", "350"), "the view ended at the keyboard's top: \(p.titles)")
        // The password field (at 561 pt unscrolled) was scrolled above the keyboard (370 pt):
        // its dots are drawn there.
        let filled = try PixelImage.readPNG(from: "\(dir)/filled.png")
        #expect(count(filled, 0x1C1C1E, x: 16...400, y: 200...368) + count(filled, 0x000000, x: 16...400, y: 200...368) > 20, "\(dir)/filled.png")
        // The keyboard went with the navigation: within half a second of return no frame has
        // it, and none after.
        let returned = try #require(p.keyTime(0xFF0D), "no Return reached the page")
        let after = p.frames.filter { ($0["time"]?.intValue ?? 0) >= returned }
        let gone = try #require(after.firstIndex { p.keyboard($0) == nil }, "the keyboard stayed: \(after.suffix(2))")
        #expect((after[gone]["time"]?.intValue ?? .max) <= returned + 500, "gone at \(after[gone]["time"]?.intValue ?? -1), return at \(returned)")
        #expect(after[gone...].allSatisfy { p.keyboard($0) == nil })
        // The next page from its top: its green band under the status bar, nothing panned.
        let welcome = try PixelImage.readPNG(from: "\(dir)/welcome.png")
        #expect(count(welcome, green, x: 100...900, y: 40...150) > 2000, "\(dir)/welcome.png")
    }

    /// The tour's sign-in (Assets/scenarios/sign-in.json, a GET form from a file, as `make run`
    /// plays it): the next page greets the visitor by the typed name, from its top, with no
    /// keyboard in its capture.
    @Test func theToursSignInEndsOnTheWelcomePage() throws {
        let dir = Harness.temporaryDirectory("sign-in-tour")
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/sign-in.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let titles = try Harness.events("\(dir)/events-primary.jsonl").compactMap { $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil }
        #expect(titles.last == "name=Ada Lovelace|company=Analytical Engines|email=ada@example.com", "\(titles)")
        let welcome = try PixelImage.readPNG(from: "\(dir)/signed-in.png")
        #expect(count(welcome, green, x: 100...900, y: 40...120) > 2000, "\(dir)/signed-in.png")
        // White where the keyboard was (its keys' grey gone).
        #expect(count(welcome, 0xFFFFFF, x: 20...1000, y: 400...760) > 60_000, "\(dir)/signed-in.png")
    }

    /// The same form reached by a finger instead of ‹ ›: with the keyboard up the page scrolls
    /// to its end and the button shows above the keyboard; each field tapped where it then is.
    @Test func aFingerScrollsEveryFieldAboveTheKeyboard() throws {
        let dir = Harness.temporaryDirectory("sign-in-scroll")
        let server = try SignInServer(dir)
        // With the keyboard up the view is 350 pt tall on a 659 pt page: scrolled to its end
        // (309 pt) the email field is at 171 pt, the password's at 252, the button at 326.
        let p = try FormPlayed(dir, page: server.url, steps: """
            [{"at":0,"wait":true},\(tap(100, 1024, 394)),{"at":600,"type":"Grace"},{"at":600,"wait":true},
             \(dragUp(1000, id: 2, from: 680, to: 120)),\(dragUp(1600, id: 3, from: 680, to: 120)),{"at":2400,"wait":true},
             {"at":2400,"capture":"scrolled.png"},
             \(tap(2500, 1024, 342)),{"at":3100,"type":"grace@example.com"},{"at":3100,"wait":true},
             \(tap(3200, 1024, 504)),{"at":3800,"type":"x"},{"at":3800,"wait":true},
             \(tap(4000, 1024, 652)),{"at":4600,"wait":true},{"at":4600,"capture":"welcome.png"}]
            """)
        let scrolled = try PixelImage.readPNG(from: "\(dir)/scrolled.png")
        #expect(count(scrolled, blue, x: 100...900, y: 290...360) > 1000, "the button above the keyboard in \(dir)/scrolled.png")
        #expect(server.received == ["name=Grace&email=grace%40example.com&password=x"], "\(p.titles.suffix(4))")
        let welcome = try PixelImage.readPNG(from: "\(dir)/welcome.png")
        #expect(count(welcome, green, x: 100...900, y: 40...150) > 2000, "\(dir)/welcome.png")
    }

    /// The dismiss key blurs the field (the page's `document.activeElement` is the body again)
    /// and the view is the pane's height again.
    @Test func theDismissKeyBlursTheField() throws {
        let dir = Harness.temporaryDirectory("sign-in-dismiss")
        let server = try SignInServer(dir)
        let p = try FormPlayed(dir, page: server.url, steps: """
            [{"at":0,"wait":true},\(tap(100, 1024, 394)),{"at":600,"type":"Al"},{"at":600,"press":"dismiss"},{"at":600,"wait":true}]
            """)
        #expect(p.ever("focus", "name"))
        #expect(p.last("focus") == "none", "\(p.titles)")
        #expect(p.last("inner") == "748", "\(p.titles)")
        #expect(p.keyboard(try #require(p.frames.last)) == nil)
    }

    /// Return in a single-line field whose text stays (a find field, as pdf.js has) does not
    /// bring the keyboard back shifted.
    @Test func returnInAFindFieldLeavesShiftOff() throws {
        let dir = Harness.temporaryDirectory("find-return")
        let p = try FormPlayed(dir, page: "web:\(repositoryRoot)/Tests/Tools/find-field.html", steps: """
            [{"at":0,"wait":true},\(tap(100, 400, 124)),{"at":600,"type":"menu"},{"at":600,"press":"return"},{"at":600,"wait":true},{"at":2000,"wait":true}]
            """)
        #expect(p.last("q") == "menu" && p.last("found") == "1", "\(p.titles)")
        let returned = try #require(p.keyTime(0xFF0D))
        let after = p.frames.filter { ($0["time"]?.intValue ?? 0) > returned }.compactMap { p.keyboard($0) }
        #expect(!after.isEmpty && after.allSatisfy { $0["shift"]?.stringValue == "off" }, "\(after.suffix(2))")
    }

    /// A page that never stops drawing costs about its own frame time a virtual frame: no
    /// round trip of a 3 s scenario waits for its bound (the time it took is in the README).
    @Test func aPageThatKeepsDrawingIsNotWaitedOn() throws {
        let dir = Harness.temporaryDirectory("animated")
        let p = try FormPlayed(dir, page: "web:\(repositoryRoot)/Tests/Tools/animated.html", steps: #"[{"at":3000,"capture":"end.png"}]"#)
        #expect(!p.stderr.contains("round trip"), "\(p.stderr)")
        #expect(p.frames.count >= 180)
        Files.writeStandardError("a page drawing at 60 Hz, 3 s of virtual time: \(p.seconds) s real\n")
    }
}

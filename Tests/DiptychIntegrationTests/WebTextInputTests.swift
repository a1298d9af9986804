// SPDX-License-Identifier: MIT
// Typing into web pages on the on-screen keyboard: real WPE WebKit behind `web:URL`, its
// input-method context mapped onto `textInput`, judged by what the page holds (its title, in
// the web client's event log), the keyboard `frames.json` recorded, and the captured pixels.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private let webIsThere = access(Harness.binDirectory + "/diptych-web", X_OK) == 0

/// A scenario's `frames.json` frames and the web page's titles after playing `steps` with
/// notes as the primary and `page` as the secondary of an iPad's split-2/3 (or `primary` alone
/// full screen).
private struct WebPlayed {
    var dir: String
    var frames: [JSONValue]
    var titles: [String]

    init(_ name: String, primary: String = "notes", secondary: String?, layouts: String? = nil, steps: String) throws {
        dir = Harness.temporaryDirectory(name)
        let apps = secondary.map { #""primary":"\#(primary)","secondary":"\#($0)","arrangement":"split-2/3""# } ?? #""primary":"\#(primary)","arrangement":"full""#
        let languages = layouts.map { #""keyboardLayouts":"\#($0)","# } ?? ""
        let scenario = #"{"device":"ipad",\#(languages)\#(apps),"steps":\#(steps)}"#
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 180_000)
        #expect(r.status == 0, "\(r.stderr)")
        frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        let page = secondary == nil ? "primary" : "secondary"
        titles = ((try? Harness.events("\(dir)/events-\(page).jsonl")) ?? []).compactMap {
            $0["event"]?.stringValue == "pageTitle" ? $0["title"]?.stringValue : nil
        }
    }

    /// The keyboard records of the frames (nil where none was drawn).
    var keyboards: [[String: JSONValue]?] {
        frames.map { $0["keyboard"]?.objectValue.map { Dictionary($0, uniquingKeysWith: { a, _ in a }) } }
    }

    /// The page's fields as its title says them.
    var page: [String: String] {
        var out: [String: String] = [:]
        for part in (titles.last ?? "").split(separator: "|") {
            let kv = part.split(separator: "=", maxSplits: 1)
            out[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        return out
    }
}

/// A tap at screen pixels (x, y) at `at` ms.
private func tap(_ at: Int, _ x: Int, _ y: Int) -> String {
    #"{"at":\#(at),"touch":{"id":1,"phase":"down","x":\#(x),"y":\#(y)}},{"at":\#(at + 40),"touch":{"id":1,"phase":"up","x":\#(x),"y":\#(y)}}"#
}

private let signIn = "web:\(repositoryRoot)/Assets/web/sign-in.html"

@Suite(.enabled(if: webIsThere, "diptych-web is not built (it needs WPE WebKit: make installs it)"))
struct WebTextInputTests {
    /// The kiosk's languages into a real `<input>`: German, French, Spanish, Danish and Swedish
    /// sentences typed as a person would (keys held for their popups), and the page holds
    /// exactly them.
    @Test func aWebFieldTakesTheSentencesOfTheKiosksLanguages() throws {
        let sentences = ["Größe über Straße", "Crème brûlée à la française", "¿Año niño?", "Smørrebrød på Åland"]
        let text = sentences.joined(separator: " ")
        let p = try WebPlayed("web-languages", secondary: signIn, layouts: "de,fr,es,dk,se", steps: """
            [{"at":0,"wait":true},\(tap(100, 1728, 128)),{"at":600,"type":"\(text)"},{"at":600,"wait":true}]
            """)
        #expect(p.page["message"] == text, "\(p.titles.suffix(3))")
        // (German's popups hold every accent here: the keyboard never needed another language.)
        #expect(Set(p.keyboards.compactMap { $0?["language"]?.stringValue }) == ["de"])
    }

    /// A real `<input>` in the secondary of a Split View, tapped, takes exactly what a `type`
    /// step taps on the keyboard's keys (shift, the numbers and back), read back from the page;
    /// both apps hear where the keyboard is in their own pane's points, only the page's as local.
    @Test func aWebFieldTakesWhatTheKeyboardTypes() throws {
        let p = try WebPlayed("web-type", secondary: signIn, steps: """
            [{"at":0,"wait":true},\(tap(100, 1728, 128)),{"at":600,"type":"Hello, World 42! a@x.com"},{"at":600,"wait":true},
             {"at":600,"capture":"typed.png"}]
            """)
        #expect(p.page["message"] == "Hello, World 42! a@x.com", "\(p.titles.suffix(3))")
        #expect(p.page["focus"] == "message")
        let boards = p.keyboards.compactMap { $0 }
        #expect(Set(boards.compactMap { $0["layout"]?.stringValue }) == ["letters", "numbers"])
        let web = try Harness.events("\(p.dir)/events-secondary.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" }
        let notes = try Harness.events("\(p.dir)/events-primary.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" }
        let mine = try #require(web.first), theirs = try #require(notes.first)
        #expect(mine["local"]?.boolValue == true && theirs["local"]?.boolValue == false)
        // The secondary's pane starts at 704 pt: its frame is the keyboard moved by that.
        #expect(mine["frame"]?["x"]?.intValue == -704 && theirs["frame"]?["x"]?.intValue == 0)
        #expect(mine["frame"]?["y"]?.intValue == 370 && mine["screenFrame"]?["width"]?.intValue == 1024)
    }

    /// The keyboard follows each field: an email field's `@` and `.` with `next` (its
    /// `enterkeyhint`), a search field's return saying search (WPE 2.38 has no search purpose: a
    /// script reads it) whose typing filters the page's list, numbers for a PIN's
    /// `inputmode=numeric`, and none for `inputmode=none`. (The keyboard is set down before the
    /// PIN is tapped: while it shows the page's view ends at its top, and the note, placed at
    /// the viewport's bottom, moves up over the PIN field, as in Safari.)
    @Test func eachFieldGetsItsKeyboard() throws {
        let p = try WebPlayed("web-fields", secondary: signIn, steps: """
            [{"at":0,"wait":true},\(tap(100, 1728, 256)),{"at":800,"wait":true},
             \(tap(1000, 1728, 384)),{"at":1600,"type":"gr"},{"at":1600,"wait":true},
             {"at":3900,"press":"dismiss"},{"at":3900,"wait":true},\(tap(4000, 1728, 640)),{"at":4800,"wait":true},
             \(tap(5000, 1728, 512)),{"at":5800,"wait":true},{"at":5800,"capture":"badge.png"}]
            """)
        let boards = p.keyboards.compactMap { $0 }
        #expect(boards.contains { $0["variant"]?.stringValue == "email" && $0["returnKey"]?.stringValue == "next" })
        #expect(boards.contains { $0["variant"]?.stringValue == "default" && $0["returnKey"]?.stringValue == "search" })
        #expect(p.page["visitors"] == "1", "\(p.titles.suffix(3))")
        // inputmode=numeric (which WebKit 2.38 does not read: the script does) opens on numbers.
        #expect(boards.contains { $0["layout"]?.stringValue == "numbers" && $0["variant"]?.stringValue == "number" })
        // The badge field took the focus, and the keyboard went.
        #expect(p.page["focus"] == "badge")
        #expect(p.keyboards.last! == nil)
    }

    /// A field the page focuses by script at load shows no keyboard; a tap on it (already
    /// focused: the web client sends the field's state again naming that tap) does.
    @Test func aFieldFocusedByScriptWaitsForATap() throws {
        let form = "web:\(repositoryRoot)/Assets/web/form.html"
        let p = try WebPlayed("web-autofocus", primary: form, secondary: nil, steps: """
            [{"at":0,"wait":true},{"at":1500,"wait":true},{"at":1500,"capture":"loaded.png"},\(tap(1600, 600, 120)),
             {"at":2300,"wait":true},{"at":2300,"capture":"tapped.png"}]
            """)
        let loadedAt = try #require(p.frames.lastIndex { ($0["time"]?.intValue ?? 0) <= 1500 })
        #expect(p.keyboards[...loadedAt].allSatisfy { $0 == nil })
        #expect(p.keyboards.last! != nil)
    }

    /// A field near the bottom of a page that cannot scroll shows above the keyboard: the page
    /// is panned up (its typed text drawn just above the keyboard, where the page is empty
    /// unpanned), and a tap on the field where it shows lands on it. A divider drag sets the
    /// keyboard aside (the page resigns active meanwhile); it comes back after, the field still
    /// taking text and panned above it in its new pane.
    @Test func aLowFieldIsPannedAboveTheKeyboard() throws {
        let p = try WebPlayed("web-pan", secondary: signIn, steps: """
            [{"at":0,"wait":true},\(tap(100, 1728, 1440)),{"at":700,"type":"Hi"},{"at":700,"wait":true},
             {"at":700,"capture":"panned.png"},\(tap(3000, 1600, 680)),{"at":3600,"type":"!"},{"at":3600,"wait":true},
             {"at":5000,"touch":{"id":5,"phase":"down","x":1398,"y":400}},{"at":5016,"touch":{"id":5,"phase":"motion","x":1300,"y":400}},
             {"at":5032,"touch":{"id":5,"phase":"motion","x":1100,"y":400}},{"at":5048,"touch":{"id":5,"phase":"motion","x":1030,"y":400}},
             {"at":5064,"touch":{"id":5,"phase":"up","x":1030,"y":400}},{"at":6500,"wait":true},{"at":6500,"capture":"dragged.png"}]
            """)
        #expect(p.page["note"] == "Hi!" && p.page["focus"] == "note", "\(p.titles.suffix(3))")
        let image = try PixelImage.readPNG(from: "\(p.dir)/panned.png")
        // Dark text in the band just above the keyboard (370 pt), the pane's left: "Hi".
        var dark = 0
        for y in stride(from: 300 * 2, to: 370 * 2, by: 1) {
            for x in stride(from: 720 * 2, to: 780 * 2, by: 1) where image.pixel(x: x, y: y) & 0xFF < 0x60 { dark += 1 }
        }
        #expect(dark > 100, "no text above the keyboard in \(p.dir)/panned.png")
        // After the drag: the keyboard back, the field's text above it in the pane now at 517 pt.
        #expect(p.keyboards.last??["frame"]?["y"]?.intValue == 370)
        let dragged = try PixelImage.readPNG(from: "\(p.dir)/dragged.png")
        dark = 0
        for y in stride(from: 300 * 2, to: 370 * 2, by: 1) {
            for x in stride(from: 530 * 2, to: 600 * 2, by: 1) where dragged.pixel(x: x, y: y) & 0xFF < 0x60 { dark += 1 }
        }
        #expect(dark > 100, "no text above the keyboard in \(p.dir)/dragged.png")
    }
}

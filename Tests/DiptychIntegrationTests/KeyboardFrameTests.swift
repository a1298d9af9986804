// SPDX-License-Identifier: MIT
// Where the on-screen keyboard is, as each app on screen hears it (`keyboardFrame`): the
// keyboard in that app's own pane's points, `local` for the app that raised it, in a portrait
// split, from a Slide Over, and again when a pane changes while it shows.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import Testing

/// The last `keyboardFrame` of a scenario's app log, as (frame, screenFrame, local).
private func lastKeyboardFrame(_ log: String) throws -> (frame: [Int], screen: [Int], local: Bool)? {
    guard let e = try Harness.events(log).last(where: { $0["event"]?.stringValue == "keyboardFrame" }) else { return nil }
    func rect(_ v: JSONValue?) -> [Int] { ["x", "y", "width", "height"].map { v?[$0]?.intValue ?? -1 } }
    return (rect(e["frame"]), rect(e["screenFrame"]), e["local"]?.boolValue ?? false)
}

private func play(_ name: String, _ scenario: String) throws -> String {
    let dir = Harness.temporaryDirectory(name)
    try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
    let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
    #expect(r.status == 0, "\(r.stderr)")
    return dir
}

struct KeyboardFrameTests {
    /// iPad portrait, split-2/3: notes (438 pt at x 0) raises it; markets (at x 448) hears it
    /// 448 pt to its left. 40 pt of bar and 264 of keys: 304 pt from y 720.
    @Test func aPortraitSplitHearsItInEachPane() throws {
        let dir = try play("kbframe-portrait", """
            {"device":"ipad","orientation":"portrait","arrangement":"split-2/3","primary":"notes","secondary":"markets",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":200,"y":80}},{"at":140,"touch":{"id":1,"phase":"up","x":200,"y":80}},
                      {"at":700,"wait":true}]}
            """)
        let notes = try #require(try lastKeyboardFrame("\(dir)/events-primary.jsonl"))
        let markets = try #require(try lastKeyboardFrame("\(dir)/events-secondary.jsonl"))
        #expect(notes.local && !markets.local)
        #expect(notes.screen == [0, 720, 768, 304] && markets.screen == notes.screen)
        #expect(notes.frame == [0, 720, 768, 304])
        #expect(markets.frame == [-448, 720, 768, 304])
    }

    /// A Slide Over (320 × 728 pt at 704, 20) raises it from its search field: its frame is the
    /// keyboard moved by the window's origin; the app under it hears it as not its own.
    @Test func aSlideOverHearsItInItsWindowsPoints() throws {
        let dir = try play("kbframe-slide-over", """
            {"device":"ipad","arrangement":"slide-over","primary":"notes","secondary":"markets",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1800,"y":114}},{"at":140,"touch":{"id":1,"phase":"up","x":1800,"y":114}},
                      {"at":700,"wait":true}]}
            """)
        let notes = try #require(try lastKeyboardFrame("\(dir)/events-primary.jsonl"))
        let markets = try #require(try lastKeyboardFrame("\(dir)/events-secondary.jsonl"))
        #expect(markets.local && !notes.local)
        #expect(markets.screen == [0, 370, 1024, 398])
        #expect(markets.frame == [-704, 350, 1024, 398])
        #expect(notes.frame == [0, 370, 1024, 398])
    }

    /// The keyboard shows for the secondary (at x 683 in split-2/3) when the primary goes: the
    /// secondary takes the whole screen, and hears the keyboard again in its new pane.
    @Test func aPaneThatMovesWhileItShowsHearsItAgain() throws {
        let f = try OnScreenKeyboardTests().raised()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isInMotion })
        let told = { try f.events("text.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" } }
        let paneX = try #require(try f.events("text.jsonl").last { $0["event"]?.stringValue == "configure" }?["frame"]?["x"]?.intValue)
        #expect(try told().last?["frame"]?["x"]?.intValue == -paneX)
        _ = f.apps[0].kill()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("text.jsonl").last { $0["event"]?.stringValue == "configure" }?["frame"]?["x"]?.intValue == 0
        })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try told().last?["frame"]?["x"]?.intValue == 0 })
        let last = try #require(try told().last)
        #expect(last["local"]?.boolValue == true && last["frame"]?["height"]?.intValue == 398)
        #expect(f.compositor.keyboardShown != nil)
    }
}

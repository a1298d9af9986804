// SPDX-License-Identifier: MIT
// The keyboard's languages through a real compositor and app: a scenario with keyboardLayouts
// types letters of both languages as a person would (the globe key to the next language, a key
// held for its popup), the app receives exactly the text, and frames.json names the language; a
// character no listed language has is refused before anything runs. The German and French
// planes and the French popup against references.

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Testing

struct KeyboardLanguageScenarioTests {
    static func scenario(_ layouts: String, typing text: String) -> String {
        """
        {"device":"ipad","arrangement":"split-2/3","keyboardLayouts":"\(layouts)","primary":"pattern:#00AA00","secondary":"\(Harness.misbehave) text-input pattern:#AA0000",
         "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1800,"y":600}},{"at":140,"touch":{"id":1,"phase":"up","x":1800,"y":600}},
                  {"at":600,"type":"\(text)"},{"at":700,"capture":"typed.png"}]}
        """
    }

    @Test func lettersOfTwoLanguagesAreTypedWithTheGlobeKey() throws {
        let dir = Harness.temporaryDirectory("languages")
        // (ö is in US English's popup of o; ß is German's alone.)
        let text = "Größe über Straße"
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(Self.scenario("us,de", typing: text).utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let typed = try Harness.events("\(dir)/events-secondary.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }.joined()
        #expect(typed == text)
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        let languages = Set(frames.compactMap { $0["keyboard"]?["language"]?.stringValue })
        #expect(languages == ["us", "de"], "\(languages)")
    }

    /// The sentences a kiosk in Berlin, Lyon, Madrid and Copenhagen types: each reaches the app
    /// as the `textCommit`s of the keys and popups a person would use.
    @Test(arguments: [("de", "Größe über Straße"), ("fr", "Crème brûlée à la française"), ("es", "¿Año niño?"), ("dk,se", "Smørrebrød på Åland")])
    func eachLanguagesSentenceReachesTheApp(_ layouts: String, _ text: String) throws {
        let dir = Harness.temporaryDirectory("sentence-\(layouts)")
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(Self.scenario(layouts, typing: text).utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let typed = try Harness.events("\(dir)/events-secondary.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }.joined()
        #expect(typed == text)
    }

    @Test func aCharacterNoListedLanguageHasIsRefusedAtParse() throws {
        let dir = Harness.temporaryDirectory("languages-refused")
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(Self.scenario("us,fr", typing: "Straşe").utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 60_000)
        #expect(r.status == 2 && r.stderr.contains("'ş'") && r.stderr.contains("us, fr"), "\(r.stderr)")
        #expect(!Files.exists("\(dir)/frames.json"))
        let bad = try Harness.run([Harness.diptych, "run", "--keyboard-layouts", "us,xx", "--backend", "headless"], timeoutMilliseconds: 60_000)
        #expect(bad.status == 2 && bad.stderr.contains("--keyboard-layouts") && bad.stderr.contains("'xx'"), "\(bad.stderr)")
    }
}

/// The German and French keyboards against references (light, over notes, landscape): each
/// plane, and French's popup of e held with è under the finger. Looked at beside an iPad's: QWERTZ
/// with ü ö ä, AZERTY with m on the second row, the globe left of the space bar, € on the
/// numbers; the popup a row of key-sized cells above the key, the chosen one blue.
struct KeyboardLanguageGoldenTests {
    static func scenario(_ layouts: String, popup: String = "") -> String {
        """
        {"device":"ipad","arrangement":"split-2/3","primary":"notes","secondary":"markets","keyboardLayouts":"\(layouts)",
         "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":200,"y":80}},{"at":140,"touch":{"id":1,"phase":"up","x":200,"y":80}},
                  {"at":600,"type":"Hi"},{"at":600,"wait":true},{"at":600,"capture":"letters.png"}\(popup),
                  {"at":3000,"type":"4"},{"at":3000,"wait":true},{"at":3000,"capture":"numbers.png"},
                  {"at":3100,"type":"#"},{"at":3100,"wait":true},{"at":3100,"capture":"symbols.png"}]}
        """
    }

    @Test func theGermanAndFrenchPlanesLookAsWritten() throws {
        let dir = Harness.temporaryDirectory("language-golden")
        try Files.writeAtomically("\(dir)/de.json", bytes: Array(Self.scenario("de").utf8))
        let de = try play("keyboard-de", file: "\(dir)/de.json")
        for plane in ["letters", "numbers", "symbols"] { try expectGolden(de, "\(plane).png", as: "keyboard-de-\(plane)") }
        // French with German beside it (the globe key shows): e held (its key at 432, 930 px),
        // the finger slid onto the popup's second cell (è), captured, lifted.
        let popup = """
            ,{"at":1000,"touch":{"id":2,"phase":"down","x":432,"y":930}},{"at":1600,"capture":"popup.png"},
             {"at":1700,"touch":{"id":2,"phase":"motion","x":574,"y":766}},{"at":1750,"capture":"chosen.png"},
             {"at":1800,"touch":{"id":2,"phase":"up","x":574,"y":766}}
            """
        try Files.writeAtomically("\(dir)/fr.json", bytes: Array(Self.scenario("fr,de", popup: popup).utf8))
        let fr = try play("keyboard-fr", file: "\(dir)/fr.json")
        for plane in ["letters", "numbers", "symbols"] { try expectGolden(fr, "\(plane).png", as: "keyboard-fr-\(plane)") }
        try expectGolden(fr, "chosen.png", as: "keyboard-fr-popup")
        // The popup opened with nothing chosen (lifting there types e); sliding chose è: iOS's
        // blue, and è reached notes.
        let opened = try fr.image("popup.png"), chosen = try fr.image("chosen.png")
        #expect(opened.pixel(x: 574, y: 766) & 0xFFFFFF != 0x0A84FF && chosen.pixel(x: 574 - 60, y: 766 - 60) & 0xFFFFFF == 0x0A84FF)
        let typed = fr.events("primary", including: ["textCommit"]).compactMap { $0["text"]?.stringValue }.joined()
        #expect(typed.contains("è"), "\(typed)")
    }
}

// SPDX-License-Identifier: MIT
// The keyboard's languages through a real compositor and app: a scenario with keyboardLayouts
// types letters of both languages as a person would (the globe key to the next language), the
// app receives exactly the text, and frames.json names the language; a character no listed
// language has is refused before anything runs.

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

// SPDX-License-Identifier: MIT
// Text input through a real compositor and app processes: only the focused app takes it, a tap
// gives the focus and the library's re-sent state is taken, focus elsewhere ends it; and the
// protocol's older version is still served.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Testing

struct TextInputTests {
    @Test func onlyTheFocusedAppTakesTextAndATapGivesItTheFocus() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let app = try f.misbehave("text-input", log: "text.jsonl")
        // Not focused (it connected by itself): refused, and it lives on.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try f.events("text.jsonl").contains { $0["event"]?.stringValue == "refused" } })
        let refusal = try #require(try f.events("text.jsonl").first { $0["event"]?.stringValue == "refused" })
        #expect(refusal["request"]?.stringValue == "textInput" && refusal["reason"]?.stringValue == "focus", "\(refusal)")
        #expect(f.compositor.textInputState(.secondary)?.enabled == false)
        // A tap in its pane (the right third of the screen) gives it the focus; the library
        // sends its text input again after the tap, and now it is taken.
        f.compositor.touch(id: 1, phase: .down, x: 900, y: 400)
        f.compositor.touch(id: 1, phase: .up, x: 900, y: 400)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.textInputState(.secondary)?.enabled == true })
        let t = try #require(f.compositor.textInputState(.secondary))
        #expect(t.purpose == .email && t.returnKey == .go && t.caret == (10, 10, 2, 20))
        // A tap in the other app moves the focus: the text input ends.
        f.compositor.touch(id: 2, phase: .down, x: 100, y: 400)
        f.compositor.touch(id: 2, phase: .up, x: 100, y: 400)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.textInputState(.secondary)?.enabled == false })
        #expect(f.compositor.protocolErrors.isEmpty)
        #expect(app.poll() == nil)
    }

    /// An app of the oldest version served is spoken to in its version: its configure comes
    /// framed as that version.
    @Test func anAppOfTheOldestServedVersionIsServedInIt() throws {
        let f = try Fixture()
        let old = SharedDescriptor(try UnixSocket.connect(path: f.compositor.socketPath!))
        var hello = ClientMessage.hello(name: "old", requiresFullScreen: false).encoded()
        hello[4] = UInt8(Wire.oldestServedVersion)
        try UnixSocket.sendAll(old.rawValue, hello)
        var got: [UInt8] = []
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            if let r = try? UnixSocket.receive(old.rawValue, nonBlocking: true) { got += r.bytes }
            return got.count >= 8
        })
        #expect(got.count >= 8 && got[4] == UInt8(Wire.oldestServedVersion) && got[6] == 100, "\(got.prefix(8))")
        #expect(f.compositor.protocolErrors.isEmpty)
    }
}

/// The on-screen keyboard through a real compositor and app processes.
struct OnScreenKeyboardTests {
    /// Taps `label`'s key at its centre (a finger, down and up).
    func tap(_ f: Fixture, _ label: String, id: Int32 = 9) throws {
        let key = try #require(f.compositor.keyboardKeys.first { $0.label == label }, "no key \(label) in \(f.compositor.keyboardKeys.map(\.label))")
        let (x, y) = (Double(key.frame.x) + Double(key.frame.width) / 2, Double(key.frame.y) + Double(key.frame.height) / 2)
        f.compositor.touch(id: id, phase: .down, x: x, y: y)
        f.compositor.touch(id: id, phase: .up, x: x, y: y)
    }

    /// A compositor with a good app as the primary and one with an email field as the
    /// secondary, both drawn; nothing tapped yet.
    func withField() throws -> Fixture {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "good.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.misbehave("text-input", log: "text.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        return f
    }

    /// The same, the secondary tapped: its keyboard shown (it may still be sliding in).
    func raised() throws -> Fixture {
        let f = try withField()
        f.compositor.touch(id: 1, phase: .down, x: 900, y: 300)
        f.compositor.touch(id: 1, phase: .up, x: 900, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.keyboardShown != nil })
        return f
    }

    /// A tap in the secondary's pane raises the keyboard across the screen; both apps hear
    /// where it is in their own pane's points (local only for the secondary); its keys type
    /// into the secondary (shift for a capital, the numbers for a digit, return and delete as
    /// keys), the focus stays there, and its dismiss key slides it away.
    @Test func aTapRaisesTheKeyboardAndItsKeysTypeIntoTheApp() throws {
        let f = try raised()
        // (It slides in; keys are tapped once it rests.)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isInMotion })
        let shown = try #require(f.compositor.keyboardShown)
        // Drawn docked, dark over the secondary's dark red (its bar style is light): a letter
        // key grey, the gaps darker (a capture kept for a person to look at).
        f.compositor.repaint()
        try f.compositor.output.writePNG(to: "\(f.dir)/keyboard.png")
        let qKey = try #require(f.compositor.keyboardKeys.first { $0.label == "q" }?.frame)
        #expect(f.compositor.output.pixel(x: (qKey.x + qKey.width / 2) * 2, y: (qKey.y + 8) * 2) & 0xFFFFFF == 0x6B6B6E)
        #expect(f.compositor.output.pixel(x: 2, y: (qKey.y + 8) * 2) & 0xFFFFFF == 0x2A2A2C)
        // Its corners are rounded: the key's very corner shows the keyboard's grey.
        #expect(f.compositor.output.pixel(x: qKey.x * 2, y: qKey.y * 2) & 0xFFFFFF == 0x2A2A2C)
        // Pressing a key repaints that key only.
        f.compositor.touch(id: 8, phase: .down, x: Double(qKey.x + 10), y: Double(qKey.y + 10))
        f.compositor.repaint()
        let pressed = try #require(f.compositor.lastFrameDamage).rects
        let keyPixels = Rect(x: qKey.x * 2, y: qKey.y * 2, width: qKey.width * 2, height: qKey.height * 2)
        #expect(!pressed.isEmpty && pressed.allSatisfy { keyPixels.contains($0) }, "\(pressed) beyond \(keyPixels)")
        f.compositor.touch(id: 8, phase: .cancel, x: Double(qKey.x + 10), y: Double(qKey.y + 10))
        // Docked across the whole 1024 × 768 pt screen: 46 pt of bar and 352 pt of keys.
        #expect(shown.frame == Rect(x: 0, y: 768 - 398, width: 1024, height: 398))
        #expect(shown.layout == .letters && shown.owner != nil)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("good.jsonl").contains { $0["event"]?.stringValue == "keyboardFrame" } && (try f.events("text.jsonl").contains { $0["event"]?.stringValue == "keyboardFrame" })
        })
        let mine = try #require(try f.events("text.jsonl").first { $0["event"]?.stringValue == "keyboardFrame" })
        let theirs = try #require(try f.events("good.jsonl").first { $0["event"]?.stringValue == "keyboardFrame" })
        #expect(mine["local"]?.boolValue == true && theirs["local"]?.boolValue == false)
        #expect(mine["screenFrame"]?["y"]?.intValue == 370 && theirs["screenFrame"]?["y"]?.intValue == 370)
        // The secondary's pane starts at x 683 in split-2/3 (its frame is translated, not clipped).
        let paneX = try #require(try f.events("text.jsonl").last { $0["event"]?.stringValue == "configure" }?["frame"]?["x"]?.intValue)
        #expect(mine["frame"]?["x"]?.intValue == -paneX && theirs["frame"]?["x"]?.intValue == 0)
        // Typing: ⇧ H i, the numbers, 4, return (labelled as the field asked: go), delete.
        for key in ["⇧", "H", "i", ".?123", "4", "go", "⌫"] { try tap(f, key) }
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("text.jsonl").filter { $0["event"]?.stringValue == "key" }.count >= 4
        })
        let typed = try f.events("text.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }
        #expect(typed == ["H", "i", "4"], "\(typed)")
        let keys = try f.events("text.jsonl").filter { $0["event"]?.stringValue == "key" }.compactMap { $0["keysym"]?.intValue }
        #expect(keys == [0xFF0D, 0xFF0D, 0xFF08, 0xFF08])
        // The focus stayed with the secondary (touches on the keyboard move no focus).
        #expect(try f.events("good.jsonl").last { $0["event"]?.stringValue == "keyboardFocus" }?["focused"]?.boolValue == false)
        #expect(try f.events("text.jsonl").last { $0["event"]?.stringValue == "keyboardFocus" }?["focused"]?.boolValue == true)
        // A divider drag sets it aside (both apps hear it go); it comes back after.
        let frames = { try f.events("text.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" }.count }
        let before = try frames()
        f.compositor.touch(id: 5, phase: .down, x: Double(paneX) - 4, y: 300)
        f.compositor.touch(id: 5, phase: .motion, x: Double(paneX) - 60, y: 300)
        f.compositor.touch(id: 5, phase: .motion, x: Double(paneX) - 120, y: 300)
        #expect(f.compositor.keyboardShown == nil)
        f.compositor.touch(id: 5, phase: .up, x: Double(paneX) - 120, y: 300)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isInMotion && f.compositor.keyboardShown != nil })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try frames() >= before + 2 })
        try tap(f, "↓")
        #expect(f.compositor.keyboardShown == nil)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try frames() >= before + 3 })
        let hidden = try #require(try f.events("text.jsonl").last { $0["event"]?.stringValue == "keyboardFrame" })
        #expect(hidden["screenFrame"]?["height"]?.intValue == 0)
        #expect(f.compositor.protocolErrors.isEmpty)
    }
}

extension OnScreenKeyboardTests {
    /// The pen types on the keyboard as a finger does; a palm resting while the pen is near
    /// types nothing (palm rejection runs before the keyboard).
    @Test func thePenTypesAPalmDoesNot() throws {
        let f = try raised()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isInMotion })
        func centre(_ label: String) throws -> (Double, Double) {
            let k = try #require(f.compositor.keyboardKeys.first { $0.label == label }?.frame)
            return (Double(k.x) + Double(k.width) / 2, Double(k.y) + Double(k.height) / 2)
        }
        let (qx, qy) = try centre("q"), (wx, wy) = try centre("w")
        f.compositor.pen(phase: .proximityIn, x: qx, y: qy, pressure: 0, tiltX: 0, tiltY: 0)
        f.compositor.pen(phase: .down, x: qx, y: qy, pressure: 0.5, tiltX: 0, tiltY: 0)
        f.compositor.pen(phase: .up, x: qx, y: qy, pressure: 0, tiltX: 0, tiltY: 0)
        // The pen still near: a palm on the w key.
        f.compositor.touch(id: 7, phase: .down, x: wx, y: wy)
        f.compositor.touch(id: 7, phase: .up, x: wx, y: wy)
        f.compositor.pen(phase: .proximityOut, x: qx, y: qy, pressure: 0, tiltX: 0, tiltY: 0)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try f.events("text.jsonl").contains { $0["event"]?.stringValue == "textCommit" } })
        // (A round trip: the app has read, and logged, everything sent before it.)
        try f.compositor.roundTrip(timeoutMilliseconds: 5000)
        let typed = try f.events("text.jsonl").filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }
        #expect(typed == ["q"])
        #expect(f.compositor.keyboardShown != nil)
    }
}

/// The scenario `type` step, through the keyboard's keys and as hardware keys.
struct TypeStepTests {
    /// A tap on the secondary's field, then a sentence typed through the keyboard's keys
    /// (shift, the numbers and the email row's @ as a person would): the app receives exactly
    /// the sentence, one `textCommit` a character; the same typed on a hardware keyboard
    /// arrives as `key` events, `Shift_L` around the capitals.
    @Test(arguments: ["keyboard", "hardware"])
    func aSentenceIsTypedAsAPersonWould(_ via: String) throws {
        let dir = Harness.temporaryDirectory("type-\(via)")
        let sentence = "Hello, World 42! a@x.com"
        let scenario = """
            {"device":"ipad","arrangement":"split-2/3","primary":"pattern:#00AA00","secondary":"\(Harness.misbehave) text-input pattern:#AA0000",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1800,"y":600}},{"at":140,"touch":{"id":1,"phase":"up","x":1800,"y":600}},
                      {"at":600,"type":"\(sentence)","via":"\(via)"},{"at":700,"capture":"typed.png"}]}
            """
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let events = try Harness.events("\(dir)/events-secondary.jsonl")
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        if via == "keyboard" {
            let typed = events.filter { $0["event"]?.stringValue == "textCommit" }.compactMap { $0["text"]?.stringValue }.joined()
            #expect(typed == sentence)
            // frames.json says what the keyboard showed: docked at 370 pt, the email field's
            // letters and numbers, shift on for the capitals.
            let boards = frames.compactMap { $0["keyboard"]?.objectValue.map { Dictionary($0, uniquingKeysWith: { a, _ in a }) } }
            #expect(boards.contains { $0["frame"]?["y"]?.intValue == 370 && $0["variant"]?.stringValue == "email" })
            #expect(Set(boards.compactMap { $0["layout"]?.stringValue }) == ["letters", "numbers"])
            #expect(boards.contains { $0["shift"]?.stringValue == "on" })
            #expect(frames.first?["keyboard"] == .null)
        } else {
            let texts = events.filter { $0["event"]?.stringValue == "key" && $0["state"]?.stringValue == "pressed" }.compactMap { $0["text"]?.stringValue }.joined()
            #expect(texts == sentence)
            #expect(!events.contains { $0["event"]?.stringValue == "textCommit" })
            // (The tap raised the keyboard; typed as the scenario's hardware, it stays as it is.)
            #expect(!frames.contains { $0["keyboard"]?["layout"]?.stringValue == "shortcutBar" })
        }
    }

    /// A `key` step takes one character: one that needs Shift is typed with `Shift_L` around
    /// it (`A` types "A", `@` types "@"), and none when a step holds Shift already.
    @Test func aKeyStepTypesOneCharacterAsItIsTyped() throws {
        let dir = Harness.temporaryDirectory("key-char")
        let scenario = """
            {"device":"ipad","arrangement":"split-2/3","primary":"pattern:#00AA00","secondary":"\(Harness.misbehave) text-input pattern:#AA0000",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1800,"y":600}},{"at":140,"touch":{"id":1,"phase":"up","x":1800,"y":600}},
                      {"at":300,"key":{"key":"A","state":"pressed"}},{"at":340,"key":{"key":"A","state":"released"}},
                      {"at":400,"key":{"key":"@","state":"pressed"}},{"at":440,"key":{"key":"@","state":"released"}},
                      {"at":500,"key":{"key":"Shift_L","state":"pressed"}},{"at":520,"key":{"key":"b","state":"pressed"}},
                      {"at":540,"key":{"key":"b","state":"released"}},{"at":560,"key":{"key":"Shift_L","state":"released"}}]}
            """
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(scenario.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let keys = try Harness.events("\(dir)/events-secondary.jsonl").filter { $0["event"]?.stringValue == "key" }
        let typed = keys.filter { $0["state"]?.stringValue == "pressed" }.compactMap { $0["text"]?.stringValue }.joined()
        #expect(typed == "A@B", "\(keys)")
        // Shift went down three times: around A, around @, and the step's own.
        #expect(keys.filter { $0["keysym"]?.intValue == 0xFFE1 && $0["state"]?.stringValue == "pressed" }.count == 3)
    }

    @Test func aCharacterOnNoKeyIsRefusedAtOnce() throws {
        let dir = Harness.temporaryDirectory("type-bad")
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(#"{"primary":"notes","steps":[{"at":0,"type":"caşa"}]}"#.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", dir])
        #expect(r.status == 2 && r.stderr.contains("steps[0].type") && r.stderr.contains("'ş'"), "\(r.stderr)")
    }
}

/// The keyboard's look, against references: light letters, numbers and symbols over notes in
/// landscape and letters in portrait; dark over apps with dark content: markets' search field
/// in landscape (capitals locked, return saying search), an email field in portrait (its @ row).
struct KeyboardGoldenTests {
    @Test func theKeyboardLooksAsWritten() throws {
        let dir = Harness.temporaryDirectory("keyboard-golden")
        let light = """
            {"device":"ipad","arrangement":"split-2/3","primary":"notes","secondary":"markets",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":200,"y":80}},{"at":140,"touch":{"id":1,"phase":"up","x":200,"y":80}},
                      {"at":600,"type":"Hi"},{"at":600,"wait":true},{"at":600,"capture":"letters.png"},
                      {"at":700,"type":"4"},{"at":700,"wait":true},{"at":700,"capture":"numbers.png"},
                      {"at":800,"type":"#"},{"at":800,"wait":true},{"at":800,"capture":"symbols.png"}]}
            """
        try Files.writeAtomically("\(dir)/light.json", bytes: Array(light.utf8))
        let l = try play("keyboard-light", file: "\(dir)/light.json")
        try expectGolden(l, "letters.png", as: "keyboard-letters-light-landscape")
        try expectGolden(l, "numbers.png", as: "keyboard-numbers-light-landscape")
        try expectGolden(l, "symbols.png", as: "keyboard-symbols-light-landscape")
        let portrait = """
            {"device":"ipad","orientation":"portrait","arrangement":"split-2/3","primary":"notes","secondary":"markets",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":200,"y":80}},{"at":140,"touch":{"id":1,"phase":"up","x":200,"y":80}},
                      {"at":600,"type":"Hi"},{"at":600,"wait":true},{"at":600,"capture":"portrait.png"}]}
            """
        try Files.writeAtomically("\(dir)/portrait.json", bytes: Array(portrait.utf8))
        try expectGolden(try play("keyboard-portrait", file: "\(dir)/portrait.json"), "portrait.png", as: "keyboard-letters-light-portrait")
        // Markets' search field: the secondary's pane starts at 704 pt, the field 136 pt in.
        let search = """
            {"device":"ipad","arrangement":"split-2/3","primary":"notes","secondary":"markets",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1848,"y":74}},{"at":140,"touch":{"id":1,"phase":"up","x":1848,"y":74}},
                      {"at":600,"type":"am"},{"at":600,"wait":true},{"at":600,"capture":"search.png"}]}
            """
        try Files.writeAtomically("\(dir)/search.json", bytes: Array(search.utf8))
        let found = try play("keyboard-search", file: "\(dir)/search.json")
        try expectGolden(found, "search.png", as: "keyboard-search-dark-landscape")
        // The list shows the two symbols holding "AM" (AMZN, AMD): a third row's place is bare.
        let image = try found.image("search.png")
        #expect(image.pixel(x: 1708, y: 2 * (56 + 22)) & 0xFFFFFF == 0x1C283C && image.pixel(x: 1708, y: 2 * (56 + 44 + 22)) & 0xFFFFFF == 0x1C283C)
        #expect(image.pixel(x: 1708, y: 2 * (56 + 88 + 22)) & 0xFFFFFF == 0x101828)
        let dark = """
            {"device":"ipad","orientation":"portrait","arrangement":"split-2/3","primary":"pattern:#00AA00","secondary":"\(Harness.misbehave) text-input pattern:#303030",
             "steps":[{"at":100,"touch":{"id":1,"phase":"down","x":1300,"y":600}},{"at":140,"touch":{"id":1,"phase":"up","x":1300,"y":600}},
                      {"at":600,"type":"x"},{"at":600,"wait":true},{"at":600,"capture":"dark.png"}]}
            """
        try Files.writeAtomically("\(dir)/dark.json", bytes: Array(dark.utf8))
        let d = try play("keyboard-dark", file: "\(dir)/dark.json")
        try expectGolden(d, "dark.png", as: "keyboard-email-dark-portrait")
    }
}

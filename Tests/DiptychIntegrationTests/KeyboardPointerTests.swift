// SPDX-License-Identifier: MIT
// Keyboard and pointer end to end: the shipped scenario typed into notes and clicked into
// markets by real app processes, judged by their event logs and the captures; the cursor's
// damage; and bad input (a layout or key that does not exist) refused by name.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychOutput
import DiptychServer
import DiptychTestSupport
import Logging
import Testing

struct KeyboardPointerTests {
    @Test func typingClickingAndShortcutsReachTheRightApps() throws {
        let played = try play("keyboard-pointer")
        let notes = played.events("primary", including: ["key", "keyboardFocus", "pointer"])
        let markets = played.events("secondary", including: ["key", "keyboardFocus", "pointer"])
        // notes has the keyboard first (the primary), then gives it to markets when markets is clicked.
        #expect(notes.first?["event"]?.stringValue == "keyboardFocus" && notes.first?["focused"]?.boolValue == true)
        #expect(notes.contains { $0["event"]?.stringValue == "keyboardFocus" && $0["focused"]?.boolValue == false })
        #expect(markets.contains { $0["event"]?.stringValue == "keyboardFocus" && $0["focused"]?.boolValue == true })
        // Shift+h types H; the held i repeats at 25 a second after 600 ms (virtual time).
        let typed = notes.filter { $0["event"]?.stringValue == "key" && $0["state"]?.stringValue != "released" }.compactMap { $0["text"]?.stringValue }.joined()
        #expect(typed == "Hiiiii")
        let h = notes.first { $0["text"]?.stringValue == "H" }
        #expect(h?["modifiers"]?.arrayValue?.compactMap(\.stringValue) == ["shift"])
        #expect(notes.filter { $0["state"]?.stringValue == "repeated" }.count == 4)
        // No key reached notes once markets had the focus, and the arrows went to markets.
        let notesKeysAfter = notes.drop { !($0["event"]?.stringValue == "keyboardFocus" && $0["focused"]?.boolValue == false) }.filter { $0["event"]?.stringValue == "key" }
        #expect(notesKeysAfter.isEmpty)
        #expect(markets.filter { $0["event"]?.stringValue == "key" && $0["keysym"]?.intValue == 0xFF54 }.count == 4)
        // Super+← is the compositor's: markets saw Super go down and up, never the arrow; the
        // divider moved to the middle.
        #expect(!markets.contains { $0["keysym"]?.intValue == 0xFF51 })
        #expect(widths(played.configures("primary")).last == 678)
        // The click reached notes as pointer events in its pane's points.
        let click = notes.first { $0["event"]?.stringValue == "pointer" && $0["phase"]?.stringValue == "button" }
        #expect(click?["x"]?.doubleValue == 200 && click?["y"]?.doubleValue == 300 && click?["button"]?.intValue == 0x110)
        // The typed text is on screen: ink under the title where the note is written.
        let image = try played.image("keyboard-typed.png")
        var ink = 0
        for y in 132..<160 {
            for x in 24..<200 {
                let p = image.pixel(x: x, y: y)
                if p & 0xFF > 0x60 && (p >> 16) & 0xFF < 0x40 { ink += 1 }
            }
        }
        #expect(ink > 100, "no typed text drawn (\(ink) ink pixels)")
    }

    /// Headless, a moving cursor repaints at most its old and new rectangles.
    @Test func aMovingCursorRepaintsOnlyItsRectangles() throws {
        let compositor = try Compositor(
            configuration: CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .full, listen: false),
            logger: Logger(label: "test"))
        compositor.virtualTime = 0
        compositor.repaint()
        for i in 1...5 {
            compositor.virtualTime = UInt64(i * 16)
            compositor.pointerMotion(toX: Double(100 + 7 * i), y: Double(200 + 3 * i))
            compositor.repaint()
            let damage = try #require(compositor.lastFrameDamage)
            let area = damage.rects.reduce(0) { $0 + $1.width * $1.height }
            let cursor = 19 * 2  // points to pixels at the iPad's scale
            #expect(area <= 2 * cursor * cursor, "frame \(i) repainted \(area) pixels: \(damage.rects)")
            if i > 1 { #expect(area > 0) }
        }
        // Without motion for 3 s it hides: one more frame takes it away.
        compositor.virtualTime = 80 + 3000
        compositor.tick()
        #expect(!compositor.pointerPosition.shown)
    }

    @Test func anUnknownLayoutExits2NamingIt() throws {
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--keymap", "no-such-layout", "--primary", "pattern:#336699"], timeoutMilliseconds: 20_000)
        #expect(r.status == 2)
        #expect(r.stderr.contains("no-such-layout"), "\(r.stderr)")
        let bad = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--repeat", "fast", "--primary", "pattern:#336699"], timeoutMilliseconds: 20_000)
        #expect(bad.status == 2 && bad.stderr.contains("--repeat"))
    }

    @Test func aScenarioKeyNoKeyGivesExits2NamingTheStep() throws {
        let dir = Harness.temporaryDirectory("badkey")
        let file = "\(dir)/s.json"
        try Files.writeAtomically(file, bytes: Array(#"{"device":"ipad","primary":"notes","steps":[{"at":0,"key":{"key":"no_such_keysym","state":"pressed"}}]}"#.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--scenario", file, "--out", dir], timeoutMilliseconds: 30_000)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("steps[0].key.key") && r.stderr.contains("no_such_keysym"), "\(r.stderr)")
    }
}

/// An output with a cursor plane, as a KMS output has (this machine has no card: the real
/// plane is exercised by the VM test): frames go to a headless output, cursor calls are kept.
final class CursorPlaneOutput: OutputBackend {
    let inner: HeadlessBackend
    var cursorCalls: [String] = []
    init(size: Size) { inner = HeadlessBackend(size: size) }
    var size: Size { inner.size }
    func beginFrame() -> FrameTarget { inner.beginFrame() }
    func present(damage: Region?) -> PresentResult { inner.present(damage: damage) }
    var readyForFrame: Bool { inner.readyForFrame }
    var lastFrame: PixelImage { inner.lastFrame }
    var cursorSize: Int { 64 }
    func setCursor(_ image: PixelImage?, hotspot: (x: Int, y: Int)) -> Bool {
        cursorCalls.append(image.map { "show \($0.width)x\($0.height) hotspot \(hotspot.x),\(hotspot.y)" } ?? "hide")
        return true
    }
    func moveCursor(x: Int, y: Int) { cursorCalls.append("move \(x),\(y)") }
}

struct CursorPlaneTests {
    /// On an output with a cursor plane, moving the pointer draws no frame: the plane moves.
    @Test func pointerMotionOnACursorPlaneDrawsNothing() throws {
        let profile = try DeviceProfile.named("ipad")
        let output = CursorPlaneOutput(size: profile.pixelSize(.landscape))
        let compositor = try Compositor(
            configuration: CompositorConfiguration(profile: profile, orientation: .landscape, arrangement: .full, listen: false),
            backend: output, logger: Logger(label: "test"))
        compositor.virtualTime = 0
        compositor.repaint()
        #expect(!compositor.needsRepaint)
        compositor.pointerMotion(toX: 100, y: 200)
        compositor.virtualTime = 16
        compositor.pointerMotion(toX: 110, y: 205)
        compositor.tick()
        #expect(!compositor.needsRepaint, "pointer motion asked for a frame")
        #expect(output.cursorCalls == ["show 38x38 hotspot 19,19", "move 200,400", "move 220,410"])
        // 3 s later it hides, with no frame either.
        compositor.virtualTime = 16 + 3000
        compositor.tick()
        #expect(output.cursorCalls.last == "hide")
        #expect(!compositor.needsRepaint)
    }
}

/// Swapping sides end to end: the secondary's pill dragged over the primary swaps the apps;
/// both are told their new roles and frames, and the status bar follows the new primary.
struct SwapSidesScenarioTests {
    @Test func thePillSwapsTheAppsAndBothAreToldTheirNewRoles() throws {
        let dir = Harness.temporaryDirectory("swap")
        let file = "\(dir)/swap.json"
        // ipad, split-2/3: the secondary's pill at its top centre, (704 + 160) pt = 1728 px.
        try Files.writeAtomically(file, bytes: Array("""
            {"device":"ipad","primary":"notes","secondary":"markets","arrangement":"split-2/3",
             "steps":[{"at":0,"touch":{"id":1,"phase":"down","x":1728,"y":20}},
                      {"at":16,"touch":{"id":1,"phase":"motion","x":1200,"y":400}},
                      {"at":32,"touch":{"id":1,"phase":"up","x":600,"y":600}},
                      {"at":48,"wait":true},{"at":600,"capture":"swapped.png"}]}
            """.utf8))
        let played = try play("swap", file: file)
        let notes = played.configures("primary"), markets = played.configures("secondary")
        #expect(notes.last?["role"]?.stringValue == "secondary" && notes.last?["frame"]?["x"]?.intValue == 704)
        #expect(markets.last?["role"]?.stringValue == "primary" && markets.last?["frame"]?["width"]?.intValue == 694)
        // Neither app saw the pill's touch.
        #expect(played.events("primary", including: ["touch"]).isEmpty && played.events("secondary", including: ["touch"]).isEmpty)
        // markets (dark, asking for light text) is on the left now: light clock text over it.
        let image = try played.image("swapped.png")
        #expect(image.pixel(x: 100, y: 300) & 0xFFFFFF != 0xFAF6E8)  // no paper on the left
    }
}

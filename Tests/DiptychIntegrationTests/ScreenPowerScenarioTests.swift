// SPDX-License-Identifier: MIT
// Screen power in scenarios (virtual time, real app processes, real PNGs): the idle timeout
// blanks the screen black and the apps go to the background; a touch wakes it without reaching
// the app; a blank schedule read against the scenario's clock blanks at its start, a wake there
// lasts a minute; a playing Picture in Picture window keeps the screen on.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

private func play(_ json: String) throws -> (dir: String, result: Harness.Result) {
    let dir = Harness.temporaryDirectory("power")
    try Files.writeAtomically("\(dir)/s.json", bytes: Array(json.utf8))
    return (dir, try Harness.run([Harness.diptych, "run", "--scenario", "\(dir)/s.json", "--out", "\(dir)/out"]))
}

private func isBlack(_ path: String) throws -> Bool {
    let image = try PixelImage.readPNG(from: path)
    return stride(from: 0, to: image.height, by: 37).allSatisfy { y in stride(from: 0, to: image.width, by: 41).allSatisfy { image.pixel(x: $0, y: y) & 0xFFFFFF == 0 } }
}

private func events(_ dir: String, _ role: String) throws -> [String] {
    try Harness.events("\(dir)/out/events-\(role).jsonl").compactMap { $0["event"]?.stringValue }
}

struct ScreenPowerScenarioTests {
    @Test func theIdleTimeoutBlanksAndATouchWakesWithoutReachingTheApp() throws {
        let (dir, r) = try play("""
            {"device":"ipad","primary":"pattern:#336699","secondary":"notes","idleTimeout":2,
             "steps":[{"at":0,"wait":true},{"at":500,"capture":"on.png"},{"at":2600,"capture":"blank.png"},
              {"at":3000,"touch":{"id":1,"phase":"down","x":400,"y":400}},{"at":3040,"touch":{"id":1,"phase":"motion","x":420,"y":400}},
              {"at":3080,"touch":{"id":1,"phase":"up","x":420,"y":400}},{"at":3100,"wait":true},{"at":3400,"capture":"woke.png"},
              {"at":3500,"touch":{"id":2,"phase":"down","x":400,"y":400}},{"at":3540,"touch":{"id":2,"phase":"up","x":400,"y":400}},{"at":3600,"wait":true}]}
            """)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try isBlack("\(dir)/out/blank.png") && !isBlack("\(dir)/out/on.png"))
        #expect(try Files.read("\(dir)/out/woke.png") == Files.read("\(dir)/out/on.png"))
        // The waking touch (down, motion, up) reached no app; the next touch did.
        let touches = try Harness.events("\(dir)/out/events-primary.jsonl").filter { $0["event"]?.stringValue == "touch" }
        #expect(touches.count == 2 && touches.allSatisfy { $0["id"]?.intValue == 2 }, "\(touches)")
        for role in ["primary", "secondary"] {
            let e = try events(dir, role)
            let background = try #require(e.firstIndex(of: "didEnterBackground"), "\(role): \(e)")
            #expect(e[background...].contains("willEnterForeground"), "\(role): \(e)")
        }
        let frames = try JSONValue.parse(String(decoding: try Files.read("\(dir)/out/frames.json"), as: UTF8.self))["frames"]?.arrayValue ?? []
        #expect(frames.contains { $0["blanked"]?.boolValue == true } && frames.last?["blanked"]?.boolValue == false)
    }

    @Test func aScheduleBlanksAtItsStartByTheScenariosClock() throws {
        let (dir, r) = try play("""
            {"device":"ipad","primary":"pattern:#336699","clock":"2026-11-27 19:59","blankSchedule":"Fri 20:00-07:00",
             "steps":[{"at":0,"wait":true},{"at":59000,"capture":"before.png"},{"at":60500,"capture":"blank.png"},
              {"at":61000,"touch":{"id":1,"phase":"down","x":400,"y":400}},{"at":61050,"touch":{"id":1,"phase":"up","x":400,"y":400}},
              {"at":61100,"wait":true},{"at":61200,"capture":"woke.png"},{"at":121500,"capture":"again.png"}]}
            """)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try !isBlack("\(dir)/out/before.png") && isBlack("\(dir)/out/blank.png") && !isBlack("\(dir)/out/woke.png") && isBlack("\(dir)/out/again.png"))
        // The status bar shows the scenario's clock: 19:59, then 20:01 after the wake.
        #expect(try Files.read("\(dir)/out/before.png") != Files.read("\(dir)/out/woke.png"))
    }

    @Test func aPlayingPictureInPictureKeepsTheScreenOn() throws {
        let (dir, r) = try play("""
            {"device":"ipad","primary":"tv --pip","secondary":"notes","idleTimeout":2,
             "steps":[{"at":0,"wait":true},{"at":3000,"wait":true},{"at":3100,"capture":"playing.png"}]}
            """)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try !isBlack("\(dir)/out/playing.png"))
        #expect(try !events(dir, "primary").contains("didEnterBackground"))
    }

    @Test func badScreenPowerKeysAreNamed() throws {
        for (key, value) in [("clock", "\"friday\""), ("idleTimeout", "0"), ("blankSchedule", "\"nights\"")] {
            let (_, r) = try play("{\"primary\":\"notes\",\"\(key)\":\(value),\"steps\":[]}")
            #expect(r.status == 2 && r.stderr.contains("field '\(key)'"), "\(key): \(r.stderr)")
        }
    }

    /// An app on screen that sends `idleInhibit` (here from Python) keeps a live kiosk's screen
    /// on past its idle timeout; the same app without it lets the screen blank.
    @Test(arguments: [true, false])
    func anAppHoldingIdleInhibitKeepsTheScreenOn(holds: Bool) throws {
        let dir = Harness.temporaryDirectory("inhibit")
        let library = try CLibraryBuild.sharedLibrary(in: dir)
        let k = try Kiosk(
            apps: false,
            flags: ["--primary", "python3 \(repositoryRoot)/Tests/Tools/py-inhibit.py \(holds ? "on" : "off")", "--idle-timeout", "1", "--blank", "black"],
            environment: ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library])
        #expect(k.waitUntil { (try? k.status()["panes"]?.arrayValue?.first?["state"]?.stringValue) == "drawing" })
        if holds {
            // Still on well past the 1 s timeout (a negative: it takes the wait).
            usleep(2_500_000)
            #expect(try k.status()["blanked"]?.boolValue == false)
        } else {
            #expect(try k.waitUntil { try k.status()["blanked"]?.boolValue == true })
        }
    }

    /// A page's playing `<video>` (real WebKit, a real Theora clip) holds idleInhibit: the
    /// screen stays on past the idle timeout while it plays, and blanks once it ended.
    @Test(.enabled(if: access(Harness.binDirectory + "/diptych-web", X_OK) == 0, "needs diptych-web (WPE WebKit)"))
    func aPlayingVideoKeepsTheScreenOnUntilItEnds() throws {
        let k = try Kiosk(apps: false, flags: ["--primary", "web:\(repositoryRoot)/Assets/web/video.html", "--idle-timeout", "2", "--blank", "black"])
        let log = "\(k.dir)/events-primary.jsonl"
        func said(_ event: String, _ on: Bool? = nil) -> Bool {
            ((try? Harness.events(log)) ?? []).contains { $0["event"]?.stringValue == event && (on == nil || $0["on"]?.boolValue == on) }
        }
        #expect(k.waitUntil { said("idleInhibit", true) }, "the video never played")
        // Held past the idle timeout while it plays (the clip is four seconds long).
        usleep(2_500_000)
        #expect(try k.status()["blanked"]?.boolValue == false || said("idleInhibit", false))
        #expect(k.waitUntil { said("idleInhibit", false) }, "the video never ended")
        #expect(try k.waitUntil { try k.status()["blanked"]?.boolValue == true })
    }
}

// SPDX-License-Identifier: MIT
// Supervision: a launched app that exits or crashes is relaunched with back-off and
// takes its place back, while the other app sees nothing but its usual frames.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

/// The processes whose parent is `parent` and whose command line contains `text`.
func children(of parent: Int32, containing text: String) -> [Int32] {
    guard let r = try? Harness.run(["/bin/sh", "-c", "for d in /proc/[0-9]*; do p=$(cut -d' ' -f4 $d/stat 2>/dev/null); [ \"$p\" = \(parent) ] && echo ${d#/proc/} $(tr '\\0' ' ' < $d/cmdline); done"]) else { return [] }
    return r.stdout.split(separator: "\n").filter { $0.contains(text) }.compactMap { Int32($0.split(separator: " ").first ?? "") }
}

/// Zombie children of `parent`.
func zombies(of parent: Int32) -> Int {
    guard let r = try? Harness.run(["/bin/sh", "-c", "cat /proc/[0-9]*/stat 2>/dev/null"]) else { return -1 }
    return r.stdout.split(separator: "\n").filter { line in
        let f = line.split(separator: ")").last?.split(separator: " ") ?? []
        return f.count > 2 && f[0] == "Z" && f[1] == "\(parent)"
    }.count
}

func eventCount(_ path: String, _ name: String) -> Int {
    let text = (try? Files.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    return text.split(separator: "\n").filter { $0.contains("\"event\":\"\(name)\"") }.count
}

struct SupervisionTests {
    @Test func aKilledAppIsRelaunchedInItsPlaceAndTheOtherIsUndisturbed() throws {
        let v = try Victim(arguments: ["--secondary", "pattern:#0000AA"])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        let primaryLog = "\(v.dir)/events-primary.jsonl", secondaryLog = "\(v.dir)/events-secondary.jsonl"
        #expect(eventually { eventCount(secondaryLog, "didBecomeActive") >= 1 })
        let old = try #require(children(of: v.process.pid, containing: "#0000AA").first)
        let primaryConfigures = eventCount(primaryLog, "configure"), secondaryConfigures = eventCount(secondaryLog, "configure")
        kill(old, SIGKILL)
        // A new process takes the role back with a fresh configure, and becomes active.
        #expect(eventually { eventCount(secondaryLog, "configure") > secondaryConfigures })
        #expect(eventually { eventCount(secondaryLog, "didBecomeActive") >= 2 })
        let new = children(of: v.process.pid, containing: "#0000AA")
        #expect(new.count == 1 && new.first != old, "\(new) after \(old)")
        // The other app saw nothing but its frames: no configure, frames going on.
        #expect(eventCount(primaryLog, "configure") == primaryConfigures)
        #expect(v.framesGo(on: 10))
        #expect(v.stderr.contains("killed by signal 9; relaunching"), "\(v.stderr.suffix(2000))")
        #expect(zombies(of: v.process.pid) == 0)
        #expect(v.stop() == 0)
        // The relaunched app is drawn in its pane.
        let frame = try PixelImage.readPNG(from: "\(v.dir)/frame.png")
        #expect(frame.pixel(x: 1700, y: 300) & 0xFFFFFF == 0x0000AA)
    }

    @Test func anAppThatCrashesOnStartBacksOffWithoutATightLoop() throws {
        let dir = Harness.temporaryDirectory("crasher")
        let script = "\(dir)/crash.sh"
        try Files.writeAtomically(script, bytes: Array("#!/bin/sh\nexit 3\n".utf8))
        chmod(script, 0o755)
        let v = try Victim(arguments: ["--secondary", script])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        // Each attempt is logged once with the back-off before the next: 0.5 s, 1 s, 2 s, …
        // (doubling: no tight loop, whatever the machine's speed).
        func attempts() -> [Substring] { v.stderr.split(separator: "\n").filter { $0.contains("exited with status 3; relaunching") } }
        #expect(eventually { attempts().count >= 3 }, "\(attempts())")
        let delays = attempts().prefix(3).map { line in line.split(separator: " ").first { $0.hasPrefix("relaunch.in_ms=") }.map { String($0.dropFirst(15)) } ?? "" }
        #expect(delays == ["500", "1000", "2000"], "\(attempts())")
        #expect(v.framesGo(on: 10))
        #expect(zombies(of: v.process.pid) == 0)
        #expect(v.stop() == 0)
    }

    @Test func withRelaunchNeverTheOtherAppTakesTheScreen() throws {
        let v = try Victim(arguments: ["--secondary", "pattern:#0000AA", "--relaunch", "never"], environment: ["DIPTYCH_LOG_LEVEL": "info"])
        #expect(v.framesGo(on: 20, from: 0, seconds: 30))
        let primaryLog = "\(v.dir)/events-primary.jsonl"
        #expect(eventually { eventCount("\(v.dir)/events-secondary.jsonl", "didBecomeActive") >= 1 })
        let before = eventCount(primaryLog, "configure")
        let old = try #require(children(of: v.process.pid, containing: "#0000AA").first)
        kill(old, SIGKILL)
        #expect(eventually { eventCount(primaryLog, "configure") > before })
        // Its end is decided once: not relaunched, and nothing of it left.
        #expect(eventually { v.stderr.contains("launched app ended; not relaunched") }, "\(v.stderr.suffix(2000))")
        #expect(children(of: v.process.pid, containing: "#0000AA").isEmpty)
        #expect(!v.stderr.contains("relaunching"))
        #expect(v.stop() == 0)
    }
}

struct SessionSwitchTests {
    /// A VT switch during a divider drag ends it as if the finger lifted: the panes settle at
    /// a split and both apps are activated again.
    @Test func aSwitchAwayDuringADragEndsItAsALift() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "p.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        try f.connect(["pattern:#0000AA"], log: "s.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        let divider = try #require(f.compositor.layout.divider)
        f.compositor.touch(id: 1, phase: .down, x: Double(divider.x) + 5, y: 300)
        f.compositor.touch(id: 1, phase: .motion, x: 560, y: 300)
        #expect(f.compositor.shell.drag != nil)
        f.compositor.liftAllTouches()
        #expect(f.compositor.shell.drag == nil)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("s.jsonl").filter { $0["event"]?.stringValue == "didBecomeActive" }.count >= 2
        })
        #expect(f.compositor.layout.arrangement.isSplit)
    }
}

struct SeatErrorTests {
    /// A device the seat will not open (here /dev/null, not a card) is refused naming the
    /// device and the seat; without a seat at all the error says what to start.
    @Test func aDeviceTheSeatRefusesIsNamed() throws {
        let r = try Harness.run([Harness.diptych, "run", "--backend", "drm", "--card", "/dev/null"], timeoutMilliseconds: 30_000)
        #expect(r.status == 1, "\(r.stderr)")
        let named = ["cannot open /dev/null through the seat", "no seat available", "did not become active"].contains { r.stderr.contains($0) }
        #expect(named, "\(r.stderr)")
    }
}

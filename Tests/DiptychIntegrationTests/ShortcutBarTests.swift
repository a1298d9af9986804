// SPDX-License-Identifier: MIT
// A hardware keyboard that types swaps the on-screen keyboard for its shortcut bar: input read
// from a source as libinput's is (the compositor's own input path from there on), through a
// real compositor and app processes. libinput's side (a device with letter keys) runs in the VM
// test, on a uinput keyboard.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import Glibc
import Testing

/// An input source whose events are the test's: what it reads is what was queued, and a byte in
/// a pipe makes its descriptor readable meanwhile.
private final class QueuedInput: InputSource {
    private let readEnd: Int32, writeEnd: Int32
    private var queued: [RawInput] = []
    var descriptor: Int32 { readEnd }

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func push(_ events: [RawInput]) {
        queued += events
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func read() -> [RawInput] {
        var byte: UInt8 = 0
        _ = Glibc.read(readEnd, &byte, 1)
        defer { queued = [] }
        return queued
    }
}

extension OnScreenKeyboardTests {
    /// A key that types, from a device with letter keys, leaves only the 55 pt shortcut bar
    /// (both apps hear its frame); a modifier alone or a key of a device without letters does
    /// not; the bar's key brings the keys back, and so does the keyboard going away.
    @Test func aHardwareKeyboardTypingLeavesTheShortcutBar() throws {
        let f = try raised()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isInMotion })
        let source = try QueuedInput()
        try f.compositor.addInput(source)
        let frames = { try f.events("text.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" } }
        func feed(_ events: [RawInput]) throws {
            source.push(events)
            _ = try f.compositor.run(timeoutMilliseconds: 300) { false }
        }
        // Shift alone from the keyboard, and a power button's key: the keys stay.
        try feed([.key(code: 42, pressed: true, time: 1, keyboard: "event7"), .key(code: 42, pressed: false, time: 2, keyboard: "event7")])
        try feed([.key(code: 116, pressed: true, time: 3), .key(code: 116, pressed: false, time: 4)])
        #expect(f.compositor.keyboardShown?.layout == .letters)
        let before = try frames().count
        // "a" typed on it: the bar, 55 pt at the screen's bottom; the app still gets the key.
        try feed([.key(code: 30, pressed: true, time: 5, keyboard: "event7"), .key(code: 30, pressed: false, time: 6, keyboard: "event7")])
        let bar = try #require(f.compositor.keyboardShown)
        #expect(bar.layout == .shortcutBar && bar.frame == Rect(x: 0, y: 768 - 55, width: 1024, height: 55))
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try frames().count > before && (try frames().last?["frame"]?["height"]?.intValue == 55) })
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("good.jsonl").filter { $0["event"]?.stringValue == "keyboardFrame" }.last?["screenFrame"]?["height"]?.intValue == 55
        })
        #expect(try f.events("text.jsonl").contains { $0["event"]?.stringValue == "key" && $0["keycode"]?.intValue == 30 })
        #expect(f.compositor.keyboardKeys.map(\.label) == ["ABC", "↓"])
        // (A capture for a person to look at: DIPTYCH_KEEP_TMP=1 keeps it.)
        f.compositor.repaint()
        try f.compositor.output.writePNG(to: "\(f.dir)/shortcut-bar.png")
        // Its key: the keys again, until the keyboard types again.
        try tap(f, "ABC")
        #expect(f.compositor.keyboardShown?.layout == .letters && f.compositor.keyboardShown?.frame.height == 398)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { try frames().last?["frame"]?["height"]?.intValue == 398 })
        try feed([.key(code: 31, pressed: true, time: 7, keyboard: "event7"), .key(code: 31, pressed: false, time: 8, keyboard: "event7")])
        #expect(f.compositor.keyboardShown?.layout == .shortcutBar)
        // Another device going changes nothing; the keyboard going brings the keys back.
        try feed([.deviceRemoved(name: "Power Button", sysname: "event2")])
        #expect(f.compositor.keyboardShown?.layout == .shortcutBar)
        try feed([.deviceRemoved(name: "AT Translated Set 2 keyboard", sysname: "event7")])
        #expect(f.compositor.keyboardShown?.layout == .letters)
        #expect(f.compositor.protocolErrors.isEmpty)
    }
}

extension OnScreenKeyboardTests {
    /// Only a tap raises the keyboard: a finger that moved (a scroll) and lifted in the pane of
    /// an app whose field takes text raises none; a tap there does.
    @Test func aScrollRaisesNoKeyboardATapDoes() throws {
        let f = try withField()
        f.compositor.touch(id: 1, phase: .down, x: 900, y: 300)
        f.compositor.touch(id: 1, phase: .motion, x: 900, y: 340)
        f.compositor.touch(id: 1, phase: .motion, x: 900, y: 400)
        f.compositor.touch(id: 1, phase: .up, x: 900, y: 400)
        _ = try f.compositor.run(timeoutMilliseconds: 600) { false }
        #expect(f.compositor.keyboardShown == nil)
        f.compositor.touch(id: 2, phase: .down, x: 900, y: 300)
        f.compositor.touch(id: 2, phase: .up, x: 902, y: 303)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.keyboardShown != nil })
    }
}

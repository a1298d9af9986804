// SPDX-License-Identifier: MIT
// Text input through a real compositor and app processes: only the focused app takes it, a tap
// gives the focus and the library's re-sent state is taken, focus elsewhere ends it; and the
// protocol's older version is still served.

import DiptychCore
import DiptychLinux
import DiptychServer
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

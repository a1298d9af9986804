// SPDX-License-Identifier: MIT
// Hardening, round two: one local app must never take the screen or the loop away from the
// other. Each attack runs next to a well-behaved app that must keep its frames.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import DiptychWire
import Glibc
import Testing

struct ReplacementAppTests {
    /// After the secondary leaves, the next app that connects takes its place on screen.
    @Test func theNextAppAfterTheSecondaryLeftIsShown() throws {
        let f = try Fixture()
        try f.connect(["pattern:#00AA00"], log: "first.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.primary) })
        let second = try f.connect(["pattern:#0000AA"], log: "second.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        second.kill()
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { !f.compositor.isConnected(.secondary) })
        try f.connect(["pattern:#AA0000"], log: "third.jsonl")
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.isConnected(.secondary) })
        // It is configured into the place the old one had (split-2/3) and activated.
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) { f.compositor.hasCommittedForConfigure(.secondary) })
        #expect(f.compositor.layout.arrangement == .split23)
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            try f.events("third.jsonl").compactMap { $0["event"]?.stringValue }.contains("didBecomeActive")
        })
        #expect(try f.events("third.jsonl").allSatisfy { $0["event"]?.stringValue != "didEnterBackground" })
    }
}

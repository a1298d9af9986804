// SPDX-License-Identifier: MIT
// The compositor's time-keeping policies on a clock the test moves: the hello deadline and
// the supervision's back-off, at the test's speed, not by sleeping on the wall clock.

import DiptychCore
import DiptychLinux
@testable import DiptychServer
import DiptychTestSupport
import Glibc
import Logging
import Testing

struct PolicyClockTests {
    /// Real time passes for what really happens (a process starts, exits); the policies' time
    /// only when the test moves it.
    func turns(_ c: Compositor, milliseconds: Int = 100) throws { _ = try c.run(timeoutMilliseconds: milliseconds) { false } }

    @Test func aConnectionWithoutHelloIsClosedWhenItsTwoSecondsHavePassed() throws {
        let f = try Fixture(arrangement: .full)
        let clock = f.compositor.policyClock
        clock.set(1_000_000)
        let silent = try UnixSocket.connect(path: f.compositor.socketPath!)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { f.compositor.clients.all.count == 1 })
        clock.advance(by: Compositor.helloTimeout - 1)
        try turns(f.compositor)
        #expect(f.compositor.clients.all.count == 1, "closed before its time")
        clock.advance(by: 1)
        #expect(try f.compositor.run(timeoutMilliseconds: 5000) { f.compositor.clients.all.isEmpty })
        _ = silent
    }

    @Test func anAppThatCrashesIsRelaunchedAfterHalfASecondThenASecond() throws {
        let dir = Harness.temporaryDirectory("policy-clock")
        let script = "\(dir)/crash.sh"
        try Files.writeAtomically(script, bytes: Array("#!/bin/sh\nexit 3\n".utf8))
        chmod(script, 0o755)
        var config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23, listen: false)
        config.relaunch = .onFailure
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { c.shutdown() }
        c.policyClock.set(1_000_000)
        try c.launch([Harness.demo, "pattern:#00AA00"], role: .primary, label: "good")
        try c.launch([script], role: .secondary, label: "crash")
        // It exits at once; its relaunch waits 500 ms of the policies' time, however much real
        // time passes.
        try turns(c, milliseconds: 600)
        #expect(c.relaunches == 0)
        c.policyClock.advance(by: 499)
        try turns(c)
        #expect(c.relaunches == 0)
        c.policyClock.advance(by: 1)
        #expect(try c.run(timeoutMilliseconds: 5000) { c.relaunches == 1 })
        // It exits again: the next wait is a second.
        try turns(c, milliseconds: 400)
        c.policyClock.advance(by: 999)
        try turns(c)
        #expect(c.relaunches == 1)
        c.policyClock.advance(by: 1)
        #expect(try c.run(timeoutMilliseconds: 5000) { c.relaunches == 2 })
    }
}

// SPDX-License-Identifier: MIT
// Who comes first for the CPU: the app the user acts on (its whole process tree reniced, read
// back from /proc as the input moves), what `status` says of the scheme as another user with and
// without the unit's limits, and a realtime loop that never starves a process beside it.

import DiptychCore
import DiptychLinux
import DiptychServer
import DiptychTestSupport
import Glibc
import Testing

private let toolsAreThere = ((try? Harness.run(["/bin/sh", "-c", "command -v setpriv && command -v taskset && command -v chrt"]))?.status ?? 1) == 0

struct CPUShareTests {
    /// The nice values of every thread of `pid`'s tree (itself, its descendants, its group).
    static func nices(_ pid: Int32) -> Set<Int32> {
        Set(([pid] + ProcessMemory.tree(of: pid)).flatMap { ProcessPriority.threads(of: $0) }.compactMap { ProcessPriority.nice(of: $0) })
    }

    @Test(.enabled(if: geteuid() == 0, "renicing back up needs CAP_SYS_NICE (the unit gives LimitNICE= instead)"))
    func theAppTheUserActsOnComesFirst() throws {
        let f = try Fixture()
        // The primary starts a process of its own (as a web client starts WebKit's).
        try f.compositor.launch(["/bin/sh", "-c", "sleep 60 & exec \"$0\" \"$@\"", Harness.demo, "pattern:#00AA00"], role: .primary, label: "primary")
        try f.compositor.launch([Harness.demo, "pattern:#0000AA"], role: .secondary, label: "secondary")
        let pids = f.compositor.launchedProcessIDs
        defer { for p in ProcessMemory.tree(of: pids[0]) { kill(p, SIGKILL) } }
        #expect(try f.compositor.run(timeoutMilliseconds: 20_000) {
            f.compositor.hasCommittedForConfigure(.primary) && f.compositor.hasCommittedForConfigure(.secondary) && ProcessMemory.tree(of: pids[0]).count >= 1
        })
        f.compositor.shareCPU()
        #expect(f.compositor.cpuShare.scheme == "nice", "\(f.compositor.cpuShare)")
        let first = ProcessPriority.mine + 5, after = ProcessPriority.mine + 10
        // Before any input both run where the launcher starts apps.
        #expect(Self.nices(pids[0]) == [first] && Self.nices(pids[1]) == [first])

        // A tap in the secondary (the right third): it comes first, the primary's whole tree after.
        f.compositor.touch(id: 1, phase: .down, x: 900, y: 400)
        f.compositor.touch(id: 1, phase: .up, x: 900, y: 400)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { Self.nices(pids[1]) == [first] && Self.nices(pids[0]) == [after] },
                "\(Self.nices(pids[0])) \(Self.nices(pids[1]))")
        #expect(ProcessMemory.tree(of: pids[0]).allSatisfy { ProcessPriority.nice(of: $0) == after })
        let status = f.compositor.controlStatus(uptimeSeconds: 1)
        #expect(status["cpu"]?["favoured"]?.arrayValue?.compactMap(\.stringValue) == ["secondary"], "\(status)")

        // The pen in the primary: back the other way.
        f.compositor.pen(phase: .down, x: 100, y: 400, pressure: 0.5, tiltX: 0, tiltY: 0)
        f.compositor.pen(phase: .up, x: 100, y: 400, pressure: 0, tiltX: 0, tiltY: 0)
        #expect(try f.compositor.run(timeoutMilliseconds: 10_000) { Self.nices(pids[0]) == [first] && Self.nices(pids[1]) == [after] },
                "\(Self.nices(pids[0])) \(Self.nices(pids[1]))")
    }

    /// As the unit runs it (not root): started realtime (the unit's CPUSchedulingPolicy=rr, here
    /// `chrt`) the loop stays realtime and its apps do not (nor may they take it); with
    /// CAP_SYS_NICE the loop takes realtime itself and the apps are reniced; with neither,
    /// `status` says so and names what grants it. (The grant for renicing is CAP_SYS_NICE here:
    /// this machine's root may not raise hard limits; the VM test gives `LimitNICE=` as a limit.)
    @Test(.enabled(if: toolsAreThere && geteuid() == 0, "needs setpriv and chrt, as root"))
    func statusSaysTheSchemeInForceAsAnotherUser() throws {
        for (capabilities, before) in [([String](), [String]()), (["sys_nice"], []), ([], ["chrt", "-r", "10"])] {
            let (k, run) = try AnotherUser.kiosk(
                65534, in: Harness.temporaryDirectory("cpu-share"), flags: ["--primary", "pattern:#123456"], capabilities: capabilities, before: before)
            defer { k.terminate(graceMilliseconds: 5000) }
            var status: JSONValue?
            #expect(try eventually(seconds: 30) {
                let r = try Harness.run(AnotherUser.command(65534, [Harness.diptych, "ctl", "--socket", "\(run)/ctl", "status", "--json"]), timeoutMilliseconds: 10_000)
                status = r.status == 0 ? try? JSONValue.parse(r.stdout.trimmingNewline) : nil
                return status?["panes"]?.arrayValue?.first?["pid"]?.intValue != nil
            })
            let cpu = status?["cpu"]
            switch (capabilities.isEmpty, before.isEmpty) {
            case (true, true):
                #expect(cpu?["loop"]?.stringValue == "normal" && cpu?["loop_why"]?.stringValue?.contains("CPUSchedulingPolicy=rr") == true, "\(cpu ?? .null)")
                #expect(cpu?["apps"]?.stringValue == "none" && cpu?["apps_why"]?.stringValue?.contains("LimitNICE=+5") == true, "\(cpu ?? .null)")
            case (false, _):
                #expect(cpu?["loop"]?.stringValue == "rr" && cpu?["loop_why"] == .null, "\(cpu ?? .null)")
                #expect(cpu?["apps"]?.stringValue == "nice", "\(cpu ?? .null)")
            case (true, false):
                #expect(cpu?["loop"]?.stringValue == "rr", "\(cpu ?? .null)")
                // Its app runs at normal scheduling, and no realtime limit was handed down.
                let pid = Int32(try #require(status?["panes"]?.arrayValue?.first?["pid"]?.intValue))
                #expect(sched_getscheduler(pid) == SCHED_OTHER)
                let limits = String(decoding: try Files.read("/proc/\(pid)/limits", limit: 8192), as: UTF8.self)
                let rtprio = limits.split(separator: "\n").first { $0.hasPrefix("Max realtime priority") }?.split(separator: " ").suffix(2)
                #expect(rtprio.map(Array.init) == ["0", "0"], "\(limits)")
            }
        }
    }

    /// A realtime loop that never waits (each turn 2 ms of work) on one core, beside an ordinary
    /// busy process on the same core: the bound gives the process its share (without it, the
    /// kernel's realtime throttling alone would leave it 5%; resting, the loop waits after each
    /// turn as long as it worked).
    @Test(.enabled(if: toolsAreThere && geteuid() == 0, "needs taskset and realtime priority"))
    func aRealtimeLoopThatNeverWaitsStillLetsAnotherProcessRun() throws {
        let other = try ChildProcess(arguments: ["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
        defer { other.terminate() }
        let seconds = 4.0
        let spin = try Harness.run(["taskset", "-c", "0", Harness.testTools, "spin", "--seconds", "\(seconds)"], timeoutMilliseconds: 30_000)
        let ticks = try #require(try? Files.read("/proc/\(other.pid)/stat", limit: 4096)).withUnsafeBufferPointer { buffer in
            let text = String(decoding: buffer, as: UTF8.self)
            let fields = text[text.index(after: text.lastIndex(of: ")")!)...].split(separator: " ")
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        #expect(spin.status == 0, "\(spin.stderr)")
        let result = try JSONValue.parse(spin.stdout.trimmingNewline)
        #expect((result["rests"]?.intValue ?? 0) >= 2, "\(result)")
        // The process's CPU time against the spin's length (it started before the spin).
        let share = Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds
        #expect(share >= 0.15, "the other process had \(Int(share * 100))% of the core beside the realtime loop")
    }
}

// SPDX-License-Identifier: MIT
// `diptych run` under a service manager (systemd's Type=notify): a datagram socket in the test
// stands in for systemd's, reading what the compositor says: READY=1 once it serves, WATCHDOG=1
// from its loop while it runs, RELOADING=1 then READY=1 around a reload, STOPPING=1 at exit.

import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

struct ServiceManagerTests {
    @Test func readyWatchdogReloadingAndStoppingAreSaid() throws {
        let dir = Harness.temporaryDirectory("notify")
        let notify = try NotifySocket(path: "\(dir)/notify")
        try Files.writeAtomically("\(dir)/k.conf", bytes: Array("[kiosk]\nprimary = notes\n".utf8))
        let run = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--config", "\(dir)/k.conf", "--status-bar", "off"],
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        defer { run.terminate() }
        // WATCHDOG_USEC 1 s: pinged every half second.
        let first = notify.messages(within: 4000)
        #expect(first.contains { $0.hasPrefix("READY=1") }, "\(first)")
        #expect(first.filter { $0 == "WATCHDOG=1" }.count >= 3, "\(first)")
        kill(run.pid, SIGUSR1)
        let reload = notify.messages(within: 1500).filter { $0 != "WATCHDOG=1" }
        #expect(reload.count == 2 && reload[0].hasPrefix("RELOADING=1\nMONOTONIC_USEC=") && reload[1] == "READY=1", "\(reload)")
        kill(run.pid, SIGTERM)
        #expect(run.wait(milliseconds: 20_000) == 0)
        #expect(notify.messages(within: 500).contains("STOPPING=1"))
    }

    /// A watchdog meant for another process (WATCHDOG_PID) is not pinged; READY=1 is still said.
    @Test func anotherProcessesWatchdogIsNotPinged() throws {
        let dir = Harness.temporaryDirectory("notify-pid")
        let notify = try NotifySocket(path: "\(dir)/notify")
        let run = try ChildProcess(
            arguments: [Harness.diptych, "run", "--backend", "headless", "--primary", "notes", "--status-bar", "off"],
            environment: ["DIPTYCH_SOCKET": "\(dir)/sock", "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"])
        defer { run.terminate() }
        let said = notify.messages(within: 2500)
        #expect(said.contains { $0.hasPrefix("READY=1") } && !said.contains("WATCHDOG=1"), "\(said)")
    }
}

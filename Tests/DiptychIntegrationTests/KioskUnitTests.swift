// SPDX-License-Identifier: MIT
// The kiosk unit as systemd reads it: `systemd-analyze verify` accepts it, and `systemd-analyze
// security` rates its sandbox (Debian's systemd package runs both without booting it).

import DiptychLinux
import DiptychTestSupport
import Testing

private let analyzeIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v systemd-analyze"]))?.status ?? 1) == 0

struct KioskUnitTests {
    /// The unit with its programs where this test can point at them.
    func unit(dropIn: String? = nil) throws -> String {
        let dir = Harness.temporaryDirectory("unit")
        var text = String(decoding: try Files.read("\(repositoryRoot)/Assets/kiosk/diptych-kiosk.service"), as: UTF8.self)
        // A drop-in's settings come after the unit's (the same as systemd merging it).
        if let dropIn { text += "\n" + String(decoding: try Files.read("\(repositoryRoot)/Assets/kiosk/\(dropIn)"), as: UTF8.self) }
        #expect(text.contains("ExecStart=/usr/local/bin/diptych "))
        // (Its control socket's unit beside it, as installed.)
        try Files.writeAtomically("\(dir)/diptych-ctl.socket", bytes: try Files.read("\(repositoryRoot)/Assets/kiosk/diptych-ctl.socket"))
        let path = "\(dir)/diptych-kiosk.service"
        try Files.writeAtomically(path, bytes: Array(text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("ExecStart=") || $0.hasPrefix("ExecReload=") ? String($0).replacing("/usr/local/bin/diptych", with: Harness.diptych) : String($0) }.joined(separator: "\n").utf8))
        return path
    }

    /// `systemd-analyze verify` accepts the unit at `path`; its `security` exposure.
    func verifiedExposure(_ path: String) throws -> Double {
        let verify = try Harness.run(["systemd-analyze", "verify", path])
        #expect(verify.status == 0, "\(verify.stderr)")
        let security = try Harness.run(["systemd-analyze", "security", "--offline=yes", path])
        let line = (security.stdout + security.stderr).split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        // "→ Overall exposure level for diptych-kiosk.service: 1.7 OK 🙂"
        let score = line.split(separator: ":").last.flatMap { Double($0.split(separator: " ").first ?? "") }
        return try #require(score, "\(security.stdout)")
    }

    @Test(.enabled(if: analyzeIsThere, "needs systemd-analyze (Debian's systemd package)"))
    func theUnitVerifiesAndItsSandboxRatesOK() throws {
        let path = try unit()
        let exposure = try verifiedExposure(path)
        #expect(exposure <= 2.0, "exposure \(exposure)")
        // What the compositor needs stays allowed: the card, input devices, its VT, sockets.
        for needed in ["DeviceAllow=char-drm rw", "DeviceAllow=char-input rw", "DeviceAllow=/dev/tty7 rw", "RestrictAddressFamilies=AF_UNIX AF_NETLINK"] {
            #expect(String(decoding: try Files.read(path), as: UTF8.self).contains(needed), "\(needed)")
        }
    }

    /// The app-sandbox drop-in (namespaces for bubblewrap) keeps the unit valid and its rating
    /// OK: only the namespace restriction is lifted.
    @Test(.enabled(if: analyzeIsThere, "needs systemd-analyze (Debian's systemd package)"))
    func theAppSandboxDropInKeepsTheUnitOK() throws {
        let exposure = try verifiedExposure(try unit(dropIn: "app-sandbox.conf"))
        #expect(exposure <= 3.0, "exposure \(exposure)")
    }
}

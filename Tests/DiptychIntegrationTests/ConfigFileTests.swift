// SPDX-License-Identifier: MIT
// `diptych run --config FILE`: the kiosk's configuration file. Every `run` flag is a key (and
// the shipped /etc/diptych/kiosk.conf lists every key); a file's keys run a kiosk, flags beat
// them; a wrong file is refused at start naming the file, the line and the key, with exit 2.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

struct ConfigFileTests {
    /// The flags `diptych run --help` lists (without --config and --help).
    func runFlags() throws -> Set<String> {
        let help = try Harness.run([Harness.diptych, "run", "--help"]).stdout
        let flags = help.split(separator: "\n").compactMap { line -> String? in
            let t = line.drop { $0 == " " }
            guard t.hasPrefix("--") else { return nil }
            return String(t.dropFirst(2).prefix { $0 != " " && $0 != "<" })
        }
        return Set(flags).subtracting(["config", "help"])
    }

    @Test func everyRunFlagIsAKeyAndTheShippedFileListsEveryKey() throws {
        let keys = Set(ConfigFile.valueKeys).union(ConfigFile.booleanKeys.keys)
        var flags = try runFlags()
        // A boolean flag's key is what it says, not the flag's spelling.
        flags.remove("no-multitasking")
        flags.insert("multitasking")
        #expect(flags == keys, "flags without a key: \(flags.subtracting(keys)); keys without a flag: \(keys.subtracting(flags))")
        let path = "\(repositoryRoot)/Assets/kiosk/kiosk.conf"
        let text = String(decoding: try Files.read(path), as: UTF8.self)
        let set = try ConfigFile.parse(text, file: path)
        #expect(set.map(\.key) == ["primary", "secondary", "relaunch"] && set.last?.value == "always")
        // The others, commented with their defaults.
        let commented = Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("# "), let eq = line.firstIndex(of: "=") else { return nil }
            let key = line.dropFirst(2)[..<eq].trimmingCharacters()
            return keys.contains(key) ? key : nil
        })
        #expect(commented.union(set.map(\.key)) == keys, "not in kiosk.conf: \(keys.subtracting(commented.union(set.map(\.key))))")
    }

    @Test func aBadFileIsRefusedNamingItsLineAndKey() throws {
        let cases: [(String, String)] = [
            ("[kiosk]\nprimary = notes\nrotat = 90\n", ":3: unknown key 'rotat'"),
            ("[kiosk]\nprimary = notes\n\nprimary = markets\n", ":4: key 'primary' is repeated (first on line 2)"),
            ("[display]\nrotate = 90\n", ":1: unknown section [display]"),
            ("primary = notes\n", ":1: key 'primary' before the [kiosk] section"),
            ("[kiosk]\nmultitasking = no\n", ":2: key 'multitasking': 'no' is not a boolean"),
            ("[kiosk]\nrotate\n", ":2: 'rotate' is not a section"),
            ("[kiosk]\nrotate =\n", ":2: key 'rotate' has no value"),
        ]
        let dir = Harness.temporaryDirectory("config-bad")
        for (k, (text, says)) in cases.enumerated() {
            let path = "\(dir)/k\(k).conf"
            try Files.writeAtomically(path, bytes: Array(text.utf8))
            let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--config", path], timeoutMilliseconds: 20_000)
            #expect(r.status == 2 && r.stderr.contains("\(path)\(says)"), "\(text): \(r.status) \(r.stderr)")
        }
        // A value the flag refuses is named as the flag's error, also before anything starts.
        try Files.writeAtomically("\(dir)/v.conf", bytes: Array("[kiosk]\nrotate = 45\n".utf8))
        let v = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--config", "\(dir)/v.conf"], timeoutMilliseconds: 20_000)
        #expect(v.status == 2 && v.stderr.contains("rotate"), "\(v.stderr)")
        let missing = try Harness.run([Harness.diptych, "run", "--config", "\(dir)/none.conf"], timeoutMilliseconds: 20_000)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the configuration \(dir)/none.conf"), "\(missing.stderr)")
    }

    /// A kiosk from a file: its apps and device, the status bar off; a flag given beats the
    /// file's key; a scenario's apps beat the file's.
    @Test func aKioskRunsFromItsFileAndFlagsBeatIt() throws {
        let dir = Harness.temporaryDirectory("config-run")
        try Files.writeAtomically("\(dir)/kiosk.conf", bytes: Array("""
            # A kiosk
            [kiosk]
            device = ipad
            primary = pattern:#123456
            secondary = pattern:#654321
            arrangement = split-1/2
            status-bar = off
            ; the rest as the defaults
            """.utf8))
        func run(_ extra: [String]) throws -> PixelImage {
            let out = Harness.temporaryDirectory("config-run-out")
            let c = try ChildProcess(
                arguments: [Harness.diptych, "run", "--backend", "headless", "--config", "\(dir)/kiosk.conf", "--out", out] + extra,
                environment: ["DIPTYCH_SOCKET": "\(out)/sock"])
            defer { c.terminate() }
            var drawn = false
            for _ in 0..<2000 where !drawn {
                drawn = ((try? Harness.events("\(out)/events-secondary.jsonl")) ?? []).contains { $0["event"]?.stringValue == "frameDone" }
                usleep(5000)
            }
            #expect(drawn)
            kill(c.pid, SIGTERM)
            #expect(c.wait(milliseconds: 20_000) == 0)
            return try PixelImage.readPNG(from: "\(out)/frame.png")
        }
        let frame = try run([])
        #expect(frame.width == 2048 && frame.height == 1536)
        // No status bar: the primary's colour at the top; the secondary from the middle on.
        #expect(frame.pixel(x: 60, y: 10) & 0xFFFFFF == 0x123456)
        #expect(frame.pixel(x: 1600, y: 700) & 0xFFFFFF == 0x654321)
        // --secondary given: it beats the file.
        let other = try run(["--secondary", "pattern:#00AA00"])
        #expect(other.pixel(x: 1600, y: 700) & 0xFFFFFF == 0x00AA00)
        // With a scenario, its apps and device are its own (the file's status bar still holds).
        try Files.writeAtomically("\(dir)/s.json", bytes: Array(#"{"device":"ipad-mini","primary":"pattern:#AA0000","steps":[{"at":0,"capture":"s.png"}]}"#.utf8))
        let r = try Harness.run([Harness.diptych, "run", "--config", "\(dir)/kiosk.conf", "--scenario", "\(dir)/s.json", "--out", "\(dir)/sc"], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let s = try PixelImage.readPNG(from: "\(dir)/sc/s.png")
        #expect(s.pixel(x: 60, y: 10) & 0xFFFFFF == 0xAA0000 && s.pixel(x: 1600, y: 700) & 0xFFFFFF == 0xAA0000)
    }
}

private extension Substring {
    func trimmingCharacters() -> String { String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

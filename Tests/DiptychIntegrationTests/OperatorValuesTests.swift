// SPDX-License-Identifier: MIT
// The operator's values: a bad value in the configuration file named by file, line and key
// before anything starts; relative paths resolved where the operator meant them (ctl's working
// directory, the file's folder); a page's file that is not there refused at once; every alias a
// message lists accepted.

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

struct OperatorValuesTests {
    /// Each bad value names the file, its line and its key (with the valid values where there
    /// is a list), exit 2, nothing started.
    @Test(arguments: [
        ("arrangement = split-1/3", "arrangement", "split-2/3"), ("memory-limit = 3", "memory-limit", "16"),
        ("rotate = sideways", "rotate", "normal"), ("ctl-group = no-such-group-here", "ctl-group", "no-such-group-here"),
        ("cursor = blinking", "cursor", "auto"),
    ])
    func aBadValueNamesItsFileLineAndKey(line: String, key: String, hint: String) throws {
        let dir = Harness.temporaryDirectory("bad-value")
        let conf = "\(dir)/kiosk.conf"
        try Files.writeAtomically(conf, bytes: Array("[kiosk]\nprimary = pattern:#123456\n\n\(line)\n".utf8))
        let r = try Harness.run([Harness.diptych, "run", "--backend", "headless", "--config", conf], timeoutMilliseconds: 20_000)
        #expect(r.status == 2 && r.stderr.contains("\(conf):4: \(key):") && r.stderr.contains(hint), "\(r.stderr)")
        #expect(!r.stderr.contains("listening on"))
    }

    /// The file's relative paths are its folder's, wherever `run` starts (here from the
    /// package's folder): a program beside the file is the one launched.
    @Test func theFilesRelativePathsAreItsFolders() throws {
        let dir = Harness.temporaryDirectory("relative-file")
        try Files.writeAtomically("\(dir)/app.sh", bytes: Array("#!/bin/sh\nexec \(Harness.demo) pattern:#2468AC\n".utf8))
        #expect(chmod("\(dir)/app.sh", 0o755) == 0)
        try Files.writeAtomically("\(dir)/kiosk.conf", bytes: Array("[kiosk]\nprimary = ./app.sh\n".utf8))
        let k = try Kiosk(apps: false, flags: ["--config", "\(dir)/kiosk.conf"], directory: dir)
        #expect(k.ready)
        #expect(try k.waitUntil { try k.status()["panes"]?.arrayValue?.first?["app"]?.stringValue == "\(dir)/app.sh" })
    }

    /// `ctl set-app` from another folder: a relative program path and a relative page are ctl's,
    /// sent absolute; a page's file that is not there is refused at once (exit 1, the old app
    /// staying).
    @Test func ctlsRelativePathsAreItsWorkingDirectorys() throws {
        let k = try Kiosk()
        #expect(k.ready)
        let dir = Harness.temporaryDirectory("relative-ctl")
        try Files.writeAtomically("\(dir)/app.sh", bytes: Array("#!/bin/sh\nexec \(Harness.demo) pattern:#13579B\n".utf8))
        #expect(chmod("\(dir)/app.sh", 0o755) == 0)
        func ctl(_ words: String) throws -> Harness.Result {
            try Harness.run(["/bin/sh", "-c", "cd \"$1\" && exec \"$0\" ctl --socket \"$2\" \(words)", Harness.diptych, dir, k.control], timeoutMilliseconds: 30_000)
        }
        let set = try ctl("set-app secondary ./app.sh")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try k.status()["panes"]?.arrayValue?.last?["app"]?.stringValue == "\(dir)/app.sh")
        let missing = try ctl("set-app secondary web:no-such-page.html")
        #expect(missing.status == 1 && missing.stderr.contains("\(dir)/no-such-page.html does not exist"), "\(missing.stderr)")
        #expect(try k.status()["panes"]?.arrayValue?.last?["app"]?.stringValue == "\(dir)/app.sh")
    }

    /// Every alternative a refusal lists is accepted: each command with a list of values is given
    /// a wrong one, and every value its message names works.
    @Test func everyAliasAMessageListsIsAccepted() throws {
        let k = try Kiosk()
        #expect(k.ready)
        for command in ["rotate", "orientation", "arrangement"] {
            let wrong = try k.ctl([command, "sideways"])
            #expect(wrong.status == 2, "\(command): \(wrong.stderr)")
            // The words of the message that look like values: after the command's colon, split
            // at commas, "or", parentheses and quotes.
            let listed = wrong.stderr.split(separator: "\n").first.map { line -> [String] in
                let after = line.split(separator: ":", maxSplits: 2).dropFirst(2).joined(separator: ":")
                return after.split(whereSeparator: { " ,()'".contains($0) }).map(String.init).filter { $0 != "or" && $0 != "is" && $0 != "not" && $0 != "one" && $0 != "of" && $0 != "sideways" }
            } ?? []
            #expect(listed.count >= 2, "\(command): nothing listed in \(wrong.stderr)")
            for value in listed {
                let r = try k.ctl([command, value])
                // (An arrangement may need two apps or be busy: refused by the policy, not as usage.)
                #expect(r.status != 2, "ctl \(command) \(value): \(r.stderr) (listed in: \(wrong.stderr))")
            }
        }
    }
}

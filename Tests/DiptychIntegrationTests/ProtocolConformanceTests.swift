// SPDX-License-Identifier: MIT
// The C library and the reference documentation against the one description of the protocol
// (Assets/protocol/diptych-protocol.json; the Swift codec is checked in ProtocolDescriptionTests):
// every request the C library sends reads field by field as described, its header's version and
// event numbers are the described ones, and WireFormat.md lists every message with its opcode and
// every error code with its name.

import DiptychCore
import DiptychLinux
import DiptychTestSupport
import Testing

private let ccIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v cc"]))?.status ?? 1) == 0

struct ProtocolConformanceTests {
    @Test(.enabled(if: ccIsThere, "needs cc"))
    func whatTheCLibrarySendsIsTheDescribedProtocol() throws {
        let d = try ProtocolDescription.load()
        let dir = Harness.temporaryDirectory("c-wire")
        let build = try Harness.run(["/bin/sh", "-c", """
            cc -std=c99 -Wall -Wextra -Werror -I'\(repositoryRoot)/Sources/CDiptychClient/include' '\(repositoryRoot)/Tests/Tools/c-wire-dump.c' \
              '\(repositoryRoot)/Sources/CDiptychClient/diptych-client.c' '\(repositoryRoot)/Sources/CDiptychClient/events.c' -o '\(dir)/dump' 2>&1 && '\(dir)/dump' > '\(dir)/sent.bin'
            """])
        try #require(build.status == 0, "\(build.stdout)")
        let bytes = try Files.read("\(dir)/sent.bin")
        var at = 0, names: [String] = []
        while at + 8 <= bytes.count {
            let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
            let version = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8, opcode = Int(bytes[at + 6]) | Int(bytes[at + 7]) << 8
            #expect(version == d.version)
            guard length >= 8, at + length <= bytes.count, let m = d.requests.first(where: { $0.opcode == opcode }) else {
                Issue.record("a frame the description does not know at byte \(at): opcode \(opcode), length \(length)")
                break
            }
            #expect(d.read(bytes[(at + 8)..<(at + length)], as: m), "the C library's \(m.name) does not read as described")
            names.append(m.name)
            at += length
        }
        #expect(at == bytes.count)
        // Every request the description has, sent by the library.
        #expect(Set(names) == Set(d.requests.map(\.name)), "\(names)")
    }

    @Test func theCHeaderHasTheDescribedVersionAndEvents() throws {
        let d = try ProtocolDescription.load()
        let header = String(decoding: try Files.read("\(repositoryRoot)/Sources/CDiptychClient/include/diptych-protocol.h"), as: UTF8.self)
        #expect(header.contains("#define DC_PROTOCOL_VERSION \(d.version)\n"))
        // DC_CONFIGURE = 100, … DC_PIP_ACTION = 116: the event names in C's spelling.
        for e in d.events {
            var c = ""
            for ch in e.name { c += ch.isUppercase ? "_" + String(ch) : String(ch).uppercased() }
            let constant = "DC_\(c) = \(e.opcode),"
            #expect(header.contains(constant), "\(constant) is not in diptych-protocol.h")
        }
    }

    @Test func theReferenceDocumentationListsEveryMessageAndError() throws {
        let d = try ProtocolDescription.load()
        let doc = String(decoding: try Files.read("\(repositoryRoot)/Sources/DiptychClient/DiptychClient.docc/WireFormat.md"), as: UTF8.self)
        #expect(doc.contains("# The wire format (protocol version \(d.version))"))
        let sections = doc.split(separator: "\n").filter { $0.hasPrefix("### ") }
        for m in d.requests + d.events {
            #expect(doc.contains("| \(m.opcode) | `\(m.name)` |"), "\(m.name) (\(m.opcode)) is not in the message tables")
            #expect(sections.contains { $0.contains("\(m.name) (\(m.opcode))") } || m.fields.count <= 1, "no section for \(m.name)")
        }
        for e in d.errors { #expect(doc.contains("| \(e.code) | `\(e.name)` |"), "error \(e.code) \(e.name)") }
    }
}

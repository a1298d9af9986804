// SPDX-License-Identifier: MIT
// One golden message a request and an event (Assets/protocol/golden/NAME.bin, written by
// Assets/protocol/gen.py from the description's examples), read by all three decoders: the
// Swift codec takes every one and writes it back byte for byte; the C library and the Python
// module (over it) decode every event to exactly the example's fields. The generated C and
// Python tables are what the description generates.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import DiptychWire
import Testing

private let ccIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v cc"]))?.status ?? 1) == 0
private let glibIsThere = ((try? Harness.run(["/bin/sh", "-c", "pkg-config --exists glib-2.0"]))?.status ?? 1) == 0
private let golden = "\(repositoryRoot)/Assets/protocol/golden"

/// Each message of the description with its example.
private func examples() throws -> [(name: String, opcode: Int, isEvent: Bool, example: [(String, JSONValue)])] {
    let json = try JSONValue.parse(String(decoding: try Files.read(ProtocolDescription.path), as: UTF8.self))
    return ["requests", "events"].flatMap { key in
        (json[key]?.arrayValue ?? []).map {
            ($0["name"]?.stringValue ?? "", $0["opcode"]?.intValue ?? -1, key == "events", $0["example"]?.objectValue ?? [])
        }
    }
}

struct GoldenMessageTests {
    @Test func theGeneratedTablesAreWhatTheDescriptionGenerates() throws {
        let r = try Harness.run(["python3", "\(repositoryRoot)/Assets/protocol/gen.py", "--check"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func swiftReadsEveryGoldenMessageAndWritesItBackTheSame() throws {
        let all = try examples()
        #expect(all.count == 42)
        for m in all {
            let bytes = try Files.read("\(golden)/\(m.name).bin")
            let header = try #require(try Wire.header(bytes[...]), "\(m.name)")
            #expect(header.length == bytes.count && Int(header.opcode) == m.opcode, "\(m.name)")
            let body = bytes[8...]
            if m.isEvent {
                #expect(try ServerEvent.decode(opcode: header.opcode, body: body).encoded() == bytes, "\(m.name)")
            } else {
                #expect(try ClientMessage.decode(opcode: header.opcode, body: body).encoded() == bytes, "\(m.name)")
            }
        }
    }

    /// A message whose layout differs in an older served version has that version's golden
    /// too (golden/vN/NAME.bin): the Swift codec reads it as the compositor does from (or
    /// writes it to) an app of that version, byte for byte, and its fields are the example's but
    /// those newer than N.
    @Test func swiftReadsAndWritesTheOlderVersionsLayouts() throws {
        let json = try JSONValue.parse(String(decoding: try Files.read(ProtocolDescription.path), as: UTF8.self))
        var read = 0
        for version in Int(Wire.oldestServedVersion)..<Int(Wire.version) {
            for m in try examples() {
                let path = "\(golden)/v\(version)/\(m.name).bin"
                let described = (json[m.isEvent ? "events" : "requests"]?.arrayValue ?? []).first { $0["name"]?.stringValue == m.name }
                let fields = described?["fields"]?.arrayValue ?? []
                let since = described?["since"]?.intValue ?? 0
                let newer = fields.contains { ($0.arrayValue?.count ?? 0) > 2 && ($0.arrayValue?[2].intValue ?? 0) > version }
                #expect(Files.exists(path) == (newer && since <= version), "\(path)")
                guard Files.exists(path) else { continue }
                let bytes = try Files.read(path)
                let header = try #require(try Wire.header(bytes[...], versions: Wire.servedVersions))
                #expect(Int(header.version) == version)
                let v = UInt16(version)
                if m.isEvent {
                    #expect(try ServerEvent.decode(opcode: header.opcode, body: bytes[8...], version: v).encoded(version: v) == bytes, "\(path)")
                } else {
                    #expect(try ClientMessage.decode(opcode: header.opcode, body: bytes[8...], version: v).encoded(version: v) == bytes, "\(path)")
                }
                read += 1
            }
        }
        #expect(read == 19, "touch, pen, key and pointer in versions 5 to 8, textInput in 6 to 8")
    }

    /// The lines a decoder printed (one JSON object an event, "_name" and the wire's fields),
    /// each compared with its example field by field.
    func expectExamples(_ output: String, from decoder: String) throws {
        let events = try examples().filter(\.isEvent)
        let lines = output.split(separator: "\n")
        #expect(lines.count == events.count, "\(decoder): \(output)")
        for (line, m) in zip(lines, events) {
            let got = Dictionary(try JSONValue.parse(String(line)).objectValue ?? [], uniquingKeysWith: { a, _ in a })
            #expect(got["_name"]?.stringValue == m.name, "\(decoder): \(line)")
            for (field, want) in m.example {
                #expect(got[field] == want, "\(decoder) read \(m.name).\(field) as \(got[field].map { "\($0)" } ?? "nothing"), not \(want)")
            }
            #expect(got.count == m.example.count + 1, "\(decoder): \(m.name) has fields the description lacks: \(line)")
        }
    }

    @Test(.enabled(if: ccIsThere, "needs cc"))
    func cAndPythonDecodeEveryGoldenEventToItsExample() throws {
        let dir = Harness.temporaryDirectory("golden-c")
        let read = try CLibraryBuild.program("c-golden-read", in: dir), library = try CLibraryBuild.sharedLibrary(in: dir)
        // dc_event is the library's ABI (soname 1): its size never changes; new events fit its
        // union (the largest member: an error's or a key's 4097-byte text).
        #expect(try Harness.run([read, "--size"]).stdout == "4136\n")
        let files = try examples().filter(\.isEvent).map { "\(golden)/\($0.name).bin" }
        let c = try Harness.run([read] + files)
        #expect(c.status == 0, "\(c.stderr)")
        try expectExamples(c.stdout, from: "C")
        let python = try Harness.run(
            ["python3", "\(repositoryRoot)/Tests/Tools/py-golden-read.py"] + files,
            environment: ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library])
        #expect(python.status == 0, "\(python.stderr)")
        try expectExamples(python.stdout, from: "Python")
        let mirror = try Harness.run(
            ["python3", "\(repositoryRoot)/Tests/Tools/py-golden-read.py", "--size"],
            environment: ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python"])
        #expect(mirror.stdout == "4136\n", "the Python module's dc_event: \(mirror.stdout)\(mirror.stderr)")
    }

    /// Every enumerated byte of every golden event set out of its range (255): the C library
    /// refuses the event as malformed (as the Swift codec does), never hands the app a value
    /// outside its enumeration.
    @Test(.enabled(if: ccIsThere, "needs cc"))
    func cRefusesEveryEnumerationOutOfRange() throws {
        let dir = Harness.temporaryDirectory("golden-enums")
        let read = try CLibraryBuild.program("c-golden-read", in: dir)
        let json = try JSONValue.parse(String(decoding: try Files.read(ProtocolDescription.path), as: UTF8.self))
        let enumerated = Set((json["fields"]?.objectValue ?? []).map(\.0))
        let d = try ProtocolDescription.load()
        let sizes = ["u8": 1, "u16": 2, "u32": 4, "i32": 4, "u64": 8, "f64": 8, "rect": 16, "layout": 20]
        var patched = 0
        for m in d.events {
            let bytes = try Files.read("\(golden)/\(m.name).bin")
            var at = 8
            for (field, type) in m.fields {
                if type == "u8", enumerated.contains(field) || enumerated.contains("\(m.name).\(field)") {
                    var bad = bytes
                    bad[at] = 255
                    let path = "\(dir)/\(m.name)-\(field).bin"
                    try Files.writeAtomically(path, bytes: bad)
                    let r = try Harness.run([read, path])
                    #expect(r.status != 0 && r.stderr.contains("malformed"), "C took \(m.name).\(field) = 255: \(r.stdout)")
                    #expect(throws: ProtocolError.self, "Swift took \(m.name).\(field) = 255") {
                        _ = try ServerEvent.decode(opcode: UInt16(m.opcode), body: bad[8...])
                    }
                    patched += 1
                }
                guard let size = sizes[type] else { break }  // strings and lists end the fixed part
                at += size
            }
        }
        #expect(patched == 17, "the enumerated bytes before any string or list")
    }
}

/// Whether Debian's Python has Debian's Pillow (python3-pil, which make installs).
private let debianPillow = ((try? Harness.run(["/usr/bin/python3", "-c", "import PIL"]))?.status ?? 1) == 0

struct PythonModuleTests {
    /// The module's Pillow recipe works with Debian 12's Pillow 9.4: an app draws into an Image
    /// and puts it into its buffer in one copy (`put_image`); its pane shows what it drew.
    @Test(.enabled(if: ccIsThere && debianPillow, "needs cc and Debian's python3-pil"))
    func pillowDrawsThroughPutImage() throws {
        let dir = Harness.temporaryDirectory("pillow")
        let library = try CLibraryBuild.sharedLibrary(in: dir)
        let r = try Harness.run(
            [Harness.diptych, "render", "--device", "ipad", "--arrangement", "full", "--primary", "/usr/bin/python3 \(repositoryRoot)/Tests/Tools/pillow-app.py",
             "--out", "\(dir)/pillow.png"],
            environment: ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library],
            timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let png = try PixelImage.readPNG(from: "\(dir)/pillow.png")
        #expect(png.pixel(x: 200, y: 200) & 0xFFFFFF == 0xE01010)
        #expect(png.pixel(x: 600, y: 600) & 0xFFFFFF == 0x2040C0)
    }

    /// A buffer the library let go (a size no longer kept, or a closed connection) refuses use:
    /// its pixels raise, fill and commit raise, where they wrote into unmapped memory before.
    @Test(.enabled(if: ccIsThere, "needs cc"))
    func aBufferLetGoRefusesUse() throws {
        let dir = Harness.temporaryDirectory("py-lifetime")
        let library = try CLibraryBuild.sharedLibrary(in: dir)
        let r = try Harness.run(
            ["python3", "\(repositoryRoot)/Tests/Tools/py-buffer-lifetime.py"],
            environment: ["PYTHONPATH": "\(repositoryRoot)/Sources/diptych-python", "DIPTYCH_CLIENT_LIBRARY": library])
        #expect(r.status == 0 && r.stdout == "ok\n", "\(r.stdout)\(r.stderr)")
    }

    /// A dc_buffer* the C library let go stays busy without pixels and cannot be committed, and
    /// its place is not handed out again as another buffer soon.
    @Test(.enabled(if: ccIsThere, "needs cc"))
    func aCBufferLetGoIsNotRecycled() throws {
        let dir = Harness.temporaryDirectory("c-lifetime")
        let r = try Harness.run([try CLibraryBuild.program("c-buffer-lifetime", in: dir)])
        #expect(r.status == 0 && r.stdout == "ok\n", "\(r.stdout)")
    }

    /// The C library queues what a slow compositor has not read and never waits while the
    /// queue has room: `dc_flush` says EAGAIN until the peer reads, then writes the rest in
    /// order, the buffer's descriptor with its message.
    @Test(.enabled(if: ccIsThere, "needs cc"))
    func theCLibraryQueuesForASlowCompositor() throws {
        let dir = Harness.temporaryDirectory("c-queue")
        let r = try Harness.run([try CLibraryBuild.program("c-send-queue", in: dir)])
        #expect(r.status == 0 && r.stdout == "ok\n", "\(r.stdout)")
    }
}

/// The Swift side of the one description: its enumerations (numbers and the names its event
/// logs write) and its events' names are the description's, checked as the C and Python tables
/// are generated.
struct SwiftTablesTests {
    /// The description's values of enumeration `key`: number → name.
    func values(_ key: String) throws -> [Int: String] {
        let json = try JSONValue.parse(String(decoding: try Files.read(ProtocolDescription.path), as: UTF8.self))
        let pairs = json["enums"]?[key]?["values"]?.arrayValue ?? []
        return Dictionary(uniqueKeysWithValues: pairs.map { ($0.arrayValue?[0].intValue ?? -1, $0.arrayValue?[1].stringValue ?? "") })
    }

    @Test func swiftsEnumerationsAreTheDescribedOnes() throws {
        func expect(_ key: String, _ swift: [(Int, String)]) throws {
            let described = try values(key)
            #expect(Dictionary(uniqueKeysWithValues: swift) == described, "\(key): Swift \(swift), described \(described)")
        }
        try expect("touchPhase", TouchPhase.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("penPhase", PenPhase.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("penTool", PenTool.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("keyState", KeyState.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("pointerPhase", PointerPhase.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("scrollSource", ScrollSource.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("lifecycle", LifecycleEvent.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("pipAction", PiPAction.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("modifier", (0..<7).map { bit in (1 << bit, KeyModifiers(rawValue: 1 << bit).names.first ?? "?") })
        try expect("textPurpose", TextPurpose.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("returnKey", ReturnKey.allCases.map { (Int($0.rawValue), $0.name) })
        try expect("textHint", (0..<7).map { bit in (1 << bit, TextHints(rawValue: 1 << bit).names.first ?? "?") })
        // The string-valued ones: their order is their number on the wire.
        try expect("role", Role.allCases.enumerated().map { ($0.offset, $0.element.rawValue) })
        try expect("sizeClass", SizeClass.allCases.enumerated().map { ($0.offset, $0.element.rawValue) })
        try expect("orientation", Orientation.allCases.enumerated().map { ($0.offset, $0.element.rawValue) })
        try expect("arrangement", Arrangement.allCases.enumerated().map { ($0.offset, $0.element.rawValue) })
        try expect("statusBarStyle", StatusBarStyle.allCases.enumerated().map { ($0.offset, $0.element.rawValue) })
    }

    /// The web client's C encoder logs every golden event (but sync, which no log has) as the
    /// Swift one does: the same keys, names and values, so a log reads the same whichever
    /// library the app used.
    @Test(.enabled(if: ccIsThere && glibIsThere, "needs cc and GLib"))
    func theWebClientLogsEveryEventAsSwiftDoes() throws {
        let dir = Harness.temporaryDirectory("web-log")
        let tool = try CLibraryBuild.webLogProgram("c-web-log", in: dir)
        let events = try ProtocolDescription.load().events.filter { $0.name != "sync" }
        let log = "\(dir)/events.jsonl"
        let r = try Harness.run([tool, log] + events.map { "\(golden)/\($0.name).bin" })
        try #require(r.status == 0, "\(r.stderr)")
        let lines = String(decoding: try Files.read(log), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == events.count)
        for (line, m) in zip(lines, events) {
            let bytes = try Files.read("\(golden)/\(m.name).bin")
            let e = try ServerEvent.decode(opcode: UInt16(m.opcode), body: bytes[8...])
            let swift = JSONValue.object([("app", .string("golden")), ("event", .string(e.name))] + e.jsonFields)
            let web = try JSONValue.parse(String(line))
            #expect(web == swift, "\(m.name): the web client logs \(line), Swift \(swift.serialized)")
        }
    }

    /// Every golden event decoded by Swift is logged under the description's name (an error as
    /// protocolError, a lifecycle event under its own name, as the C and Python logs have it).
    @Test func swiftsEventNamesAreTheDescribedOnes() throws {
        let d = try ProtocolDescription.load()
        for m in d.events {
            let bytes = try Files.read("\(golden)/\(m.name).bin")
            let e = try ServerEvent.decode(opcode: UInt16(m.opcode), body: bytes[8...])
            switch e {
            case .error: #expect(e.name == "protocolError")
            case .lifecycle(let l): #expect(e.name == l.name)
            default: #expect(e.name == m.name, "\(m.name) is logged as \(e.name)")
            }
        }
    }
}

/// The C client library built from its sources for the cross-language tests: a test program of
/// Tests/Tools linked with it, or the shared library the Python module loads.
enum CLibraryBuild {
    static let sources = "\(repositoryRoot)/Sources/CDiptychClient"

    /// `Tests/Tools/<tool>.c` with the library, as `dir/<tool>`; its path.
    static func program(_ tool: String, in dir: String) throws -> String {
        let out = "\(dir)/\(tool)"
        let r = try Harness.run(["/bin/sh", "-c", """
            cc -std=c99 -Wall -Wextra -Werror -I'\(sources)/include' '\(repositoryRoot)/Tests/Tools/\(tool).c' \
              '\(sources)/diptych-client.c' '\(sources)/events.c' -o '\(out)' 2>&1
            """])
        try #require(r.status == 0, "\(r.stdout)")
        return out
    }

    /// `Tests/Tools/<tool>.c` with the library, diptych-web's event log and GLib, as `dir/<tool>`.
    static func webLogProgram(_ tool: String, in dir: String) throws -> String {
        let out = "\(dir)/\(tool)"
        let r = try Harness.run(["/bin/sh", "-c", """
            cc -std=gnu99 -Wall -Werror -I'\(sources)/include' '\(repositoryRoot)/Tests/Tools/\(tool).c' \
              '\(repositoryRoot)/Sources/diptych-web/event-log.c' '\(sources)/diptych-client.c' '\(sources)/events.c' \
              $(pkg-config --cflags --libs glib-2.0) -lm -o '\(out)' 2>&1
            """])
        try #require(r.status == 0, "\(r.stdout)")
        return out
    }

    /// libdiptych-client.so.1 in `dir`; its path.
    static func sharedLibrary(in dir: String) throws -> String {
        let out = "\(dir)/libdiptych-client.so.1"
        let r = try Harness.run(["/bin/sh", "-c", "cc -shared -fPIC -I'\(sources)/include' '\(sources)/diptych-client.c' '\(sources)/events.c' -o '\(out)' 2>&1"])
        try #require(r.status == 0, "\(r.stdout)")
        return out
    }
}

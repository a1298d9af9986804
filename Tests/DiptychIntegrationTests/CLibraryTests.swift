// SPDX-License-Identifier: MIT
// libdiptych-client as a C developer meets it: installed with `make install-lib` into a scratch
// root (versioned shared library, static one, header, pkg-config file), the example built with
// `cc hello.c $(pkg-config --cflags --libs diptych-client)` against the installed files, needing
// nothing of Swift at run time, and played in a divider drag and typing into its text field on
// the on-screen keyboard beside the Swift example: the same events and the same pixels.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychTestSupport
import Testing

private let pythonIsThere = ((try? Harness.run(["/bin/sh", "-c", "python3 -m pip --version"]))?.status ?? 1) == 0
private let ccIsThere = ((try? Harness.run(["/bin/sh", "-c", "command -v cc && command -v pkg-config && command -v make"]))?.status ?? 1) == 0

struct CLibraryTests {
    /// The scratch root with the library installed and the example built against it (once:
    /// the tests share it).
    static func installed() throws -> (root: String, hello: String) { try setUp.get() }
    private static let setUp = Result { try install() }

    private static func install() throws -> (root: String, hello: String) {
        let root = Harness.temporaryDirectory("c-root")
        let install = try Harness.run(["/bin/sh", "-c", "cd '\(repositoryRoot)' && make --no-print-directory install-lib PREFIX=/usr DESTDIR='\(root)' 2>&1"], timeoutMilliseconds: 120_000)
        try #require(install.status == 0, "\(install.stdout)")
        let env = "PKG_CONFIG_PATH='\(root)/usr/lib/pkgconfig' PKG_CONFIG_SYSROOT_DIR='\(root)'"
        let hello = "\(root)/hello-c"
        let build = try Harness.run(["/bin/sh", "-c", "cc -std=c99 -Wall -Wextra -Werror '\(root)/usr/share/doc/diptych/examples/hello.c' $(\(env) pkg-config --cflags --libs diptych-client) -o '\(hello)' 2>&1"])
        try #require(build.status == 0, "\(build.stdout)")
        return (root, hello)
    }

    @Test(.enabled(if: ccIsThere, "needs cc, pkg-config and make"))
    func theInstalledLibraryHasAVersionedSonameAndNeedsNoSwift() throws {
        let (root, hello) = try Self.installed()
        let lib = "\(root)/usr/lib"
        for file in ["libdiptych-client.so.1.1.0", "libdiptych-client.so.1", "libdiptych-client.so", "libdiptych-client.a", "pkgconfig/diptych-client.pc"] {
            #expect(Files.exists("\(lib)/\(file)"), "\(file)")
        }
        #expect(Files.exists("\(root)/usr/include/diptych-client.h"))
        let soname = try Harness.run(["/bin/sh", "-c", "readelf -d '\(lib)/libdiptych-client.so.1.1.0'"])
        #expect(soname.stdout.contains("[libdiptych-client.so.1]"))
        let pc = try Harness.run(["/bin/sh", "-c", "PKG_CONFIG_PATH='\(lib)/pkgconfig' pkg-config --modversion diptych-client; PKG_CONFIG_PATH='\(lib)/pkgconfig' pkg-config --libs diptych-client"])
        #expect(pc.stdout.hasPrefix("1.1.0\n") && pc.stdout.contains("-ldiptych-client"), "\(pc.stdout)")
        // At run time: libc and the library, nothing of Swift.
        let ldd = try Harness.run(["/bin/sh", "-c", "LD_LIBRARY_PATH='\(lib)' ldd '\(hello)'"])
        #expect(ldd.stdout.contains("libdiptych-client.so.1 => \(lib)/libdiptych-client.so.1"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("swift") && !ldd.stdout.contains("not found"), "\(ldd.stdout)")
        // Statically linked, it needs only libc.
        let staticHello = "\(root)/hello-static"
        let s = try Harness.run(["/bin/sh", "-c", "cc -std=c99 -I'\(root)/usr/include' '\(repositoryRoot)/Assets/examples/hello.c' '\(lib)/libdiptych-client.a' -o '\(staticHello)' && ldd '\(staticHello)'"])
        #expect(s.status == 0 && !s.stdout.contains("diptych-client"), "\(s.stdout)")
    }

    @Test(.enabled(if: ccIsThere, "needs cc, pkg-config and make"))
    func theCExamplePlaysADividerDragAsTheSwiftOneDoes() throws {
        let (root, hello) = try Self.installed()
        try Self.expectSameAsSwift(hello, root: root, environment: [:])
    }

    /// The C example drawing a frame per `frameDone` under a moving pen, full screen: from the
    /// second second on it allocates nothing on the heap (counted by a preloaded counter, not
    /// timed), and the frames it draws reach the screen.
    @Test(.enabled(if: ccIsThere, "needs cc, pkg-config and make"))
    func theCExampleAllocatesNothingPerFrame() throws {
        let (root, hello) = try Self.installed()
        let counter = "\(root)/malloc-count.so", count = "\(root)/allocations"
        let cc = try Harness.run(["/bin/sh", "-c", "cc -shared -fPIC -O2 -o '\(counter)' '\(repositoryRoot)/Tests/Tools/malloc-count.c' && : > '\(count)'"])
        try #require(cc.status == 0, "\(cc.stdout)")
        let r = try Harness.run(
            ["/usr/bin/env", "LD_LIBRARY_PATH=\(root)/usr/lib", Harness.diptych, "profile", "--workload", "client", "--seconds", "1", "--json",
             "--allocation-counter", count, "--app", "env LD_PRELOAD=\(counter) MALLOC_COUNT_FILE=\(count) \(hello)"], timeoutMilliseconds: 60_000)
        try #require(r.status == 0, "\(r.stderr)")
        // (The app logs its lifecycle to the same output.)
        let report = r.stdout.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let json = try JSONValue.parse(report)
        #expect((json["app_frames"]?.intValue ?? 0) > 10, "\(r.stdout)")
        #expect(json["allocations_per_frame"]?.doubleValue == 0, "\(r.stdout)")
    }

    /// The `diptych` Python module, installed with pip into a scratch folder: the example in
    /// Python plays the same divider drag as the Swift one, event for event, pixel for pixel.
    @Test(.enabled(if: ccIsThere && pythonIsThere, "needs cc, pkg-config, make and python3 with pip"))
    func thePythonExamplePlaysADividerDragAsTheSwiftOneDoes() throws {
        let (root, _) = try Self.installed()
        let site = Harness.temporaryDirectory("python-site")
        // Offline with the distribution's setuptools and wheel; else pip fetches them.
        let pip = try Harness.run(["/bin/sh", "-c", """
            cd '\(repositoryRoot)' && { python3 -m pip install -q --no-build-isolation --target '\(site)' ./Sources/diptych-python 2>&1 \
              || python3 -m pip install -q --target '\(site)' ./Sources/diptych-python 2>&1; }
            """], timeoutMilliseconds: 300_000)
        try #require(Files.exists("\(site)/diptych/__init__.py"), "pip install: \(pip.stdout.suffix(2000))")
        try Self.expectSameAsSwift("\(repositoryRoot)/Assets/examples/hello.py", root: root, environment: ["PYTHONPATH": site])
    }

    /// Its text field tapped, "Hi 42!" typed on the keyboard's keys, one deleted, then return.
    static let typing = """
        {"device":"ipad","arrangement":"full","primary":"notes",
         "steps":[{"at":0,"wait":true},{"at":100,"touch":{"id":1,"phase":"down","x":400,"y":112}},{"at":140,"touch":{"id":1,"phase":"up","x":400,"y":112}},
                  {"at":600,"type":"Hi 42!"},{"at":600,"wait":true},{"at":600,"capture":"after.png"},
                  {"at":3000,"type":"\\n"},{"at":3000,"wait":true},{"at":3000,"capture":"mid-drag.png"}]}
        """

    /// Plays drag-ipad.json, then the typing, with `app` and with the Swift example; their
    /// events and captures match.
    static func expectSameAsSwift(_ app: String, root: String, environment: [String: String]) throws {
        let typing = Harness.temporaryDirectory("typing") + "/typing.json"
        try Files.writeAtomically(typing, bytes: Array(Self.typing.utf8))
        try expectSameAsSwift(app, root: root, environment: environment, scenario: "\(repositoryRoot)/Assets/scenarios/drag-ipad.json", typed: false)
        try expectSameAsSwift(app, root: root, environment: environment, scenario: typing, typed: true)
    }

    static func expectSameAsSwift(_ app: String, root: String, environment: [String: String], scenario: String, typed: Bool) throws {
        let swiftHello = Harness.binDirectory + "/diptych-hello"
        var logs: [[String]] = [], afters: [PixelImage] = [], mids: [PixelImage] = []
        for app in [app, swiftHello] {
            let dir = Harness.temporaryDirectory("c-drag")
            let env = environment.map { "\($0.key)=\($0.value)" }
            let r = try Harness.run(
                ["/usr/bin/env", "LD_LIBRARY_PATH=\(root)/usr/lib"] + env + [Harness.diptych, "run", "--scenario", scenario,
                 "--primary", app, "--out", dir], timeoutMilliseconds: 120_000)
            #expect(r.status == 0, "\(r.stderr)")
            // What the compositor sent the app and when (its name aside).
            let events = try Harness.events("\(dir)/events-primary.jsonl").map { e in
                (e.objectValue ?? []).filter { $0.0 != "app" }.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            }
            logs.append(events)
            afters.append(try PixelImage.readPNG(from: "\(dir)/after.png"))
            mids.append(try PixelImage.readPNG(from: "\(dir)/mid-drag.png"))
        }
        #expect(logs[0] == logs[1], "\(app)'s events differ from the Swift app's")
        if typed {
            #expect(logs[0].filter { $0.contains("textCommit") }.count == 6, "\(logs[0])")
            // The field's text is drawn dark on white, the caret blue after it.
            #expect(afters[0].pixel(x: 40, y: 130) & 0xFFFFFF == 0xFFFFFF)
        } else {
            #expect(logs[0].contains { $0.contains("snapshotRequest") })
            #expect(afters[0].pixel(x: 500, y: 700) & 0xFFFFFF == 0xE08A1E, "compact after the drag: orange")
        }
        #expect(afters[0].compare(to: afters[1], tolerance: 0).matches && mids[0].compare(to: mids[1], tolerance: 0).matches, "the same pixels as the Swift example")
    }
}

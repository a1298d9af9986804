// swift-tools-version: 6.2
// Diptych: a two-app, iPad-style multitasking compositor for Linux consoles and kiosks.
import PackageDescription

let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "Diptych",
    products: [
        .executable(name: "diptych", targets: ["diptych"]),
        .executable(name: "diptych-demo", targets: ["diptych-demo"]),
        .executable(name: "diptych-hello", targets: ["diptych-hello"]),
        .library(name: "DiptychClient", targets: ["DiptychClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: C tier: headers only, no logic.
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(name: "CLibinput", pkgConfig: "libinput", providers: [.apt(["libinput-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CSeat", pkgConfig: "libseat", providers: [.apt(["libseat-dev"])]),
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        .systemLibrary(name: "CNeatVNC", pkgConfig: "neatvnc", providers: [.apt(["libneatvnc-dev", "libaml-dev"])]),
        .target(name: "CLinuxShims", cSettings: [.define("_GNU_SOURCE")]),
        // The area-average downscale kernel for resolution emulation (SIMD with a portable
        // fallback). Optimised in debug builds too: tests render emulated frames.
        .target(name: "CRenderKernels", cSettings: [.unsafeFlags(["-O2"])]),

        // MARK: Pure tier: no C module, no Glibc, no Foundation.
        .target(name: "DiptychCore"),
        .target(name: "DiptychWire", dependencies: ["DiptychCore"]),

        // MARK: Platform tier.
        .target(name: "DiptychLinux", dependencies: ["CLinuxShims"]),
        // Pixel images over pixman, PNG, and the buffer a frame is drawn into.
        .target(name: "DiptychImage", dependencies: ["CPixman", "CPNG", "DiptychCore", "DiptychLinux"]),
        // Where frames go: the output interface, the headless output, buffers shown in turn.
        .target(name: "DiptychOutput", dependencies: ["DiptychCore", "DiptychImage", "DiptychLinux"]),
        // Real type: FreeType glyphs in pixman's glyph cache.
        .target(name: "DiptychText", dependencies: ["CFreeType", "CPixman", "DiptychCore", "DiptychImage"]),
        // The scene renderer: plans and replays pixman operations for a scene.
        .target(name: "DiptychRender", dependencies: ["CPixman", "CRenderKernels", "DiptychCore", "DiptychImage", "DiptychText"]),
        .target(name: "DiptychDRM", dependencies: ["CDRM", "CUdev", "DiptychCore", "DiptychImage", "DiptychOutput", "DiptychLinux", logging]),
        .target(name: "DiptychInput", dependencies: ["CLibinput", "CUdev", "CLinuxShims", "DiptychCore", "DiptychLinux"]),
        // Keymaps, modifiers and compose sequences: xkbcommon.
        .target(name: "DiptychKeyboard", dependencies: ["CXKBCommon", "DiptychCore"]),
        // The session: devices opened through libseat, VT switches.
        .target(name: "DiptychSeat", dependencies: ["CSeat", "DiptychLinux"]),

        // MARK: Mechanism and clients.
        // Remote support: a VNC server (neatvnc) fed the composited frames.
        .target(name: "DiptychVNC", dependencies: ["CNeatVNC", "CPixman", "CLinuxShims", "DiptychCore", "DiptychImage", "DiptychLinux", logging]),
        .target(name: "DiptychServer", dependencies: ["DiptychCore", "DiptychWire", "DiptychLinux", "DiptychImage", "DiptychOutput", "DiptychRender", "DiptychText", "DiptychKeyboard", "DiptychVNC", logging]),
        // The scenario player, the frame driver and the profilers: tools around the server.
        .target(name: "DiptychHarness", dependencies: ["DiptychServer", "DiptychCore", "DiptychImage", "DiptychOutput", "DiptychRender", "DiptychLinux", logging]),
        .target(name: "DiptychClient", dependencies: ["DiptychCore", "DiptychWire", "DiptychLinux"]),
        .target(name: "DiptychDemoKit", dependencies: ["DiptychCore", "DiptychWire", "DiptychLinux", "DiptychImage", "DiptychClient", "DiptychText"]),

        // MARK: Executables.
        .executableTarget(
            name: "diptych",
            dependencies: [
                "DiptychCore", "DiptychServer", "DiptychHarness", "DiptychImage", "DiptychOutput", "DiptychDRM", "DiptychInput", "DiptychLinux", "DiptychClient", "DiptychSeat", "DiptychKeyboard", "DiptychRender", "DiptychVNC",
                argumentParser, logging,
            ]),
        // The client library in C (libc only): the web client's, and any C app's.
        .target(name: "CDiptychClient"),
        // The client guide's example: an app that needs nothing but the client library.
        .executableTarget(name: "diptych-hello", dependencies: ["DiptychClient"]),
        .executableTarget(
            name: "diptych-demo",
            dependencies: ["DiptychDemoKit", "DiptychClient", "DiptychCore", "DiptychLinux", argumentParser]),
        // Deliberately broken clients, for the tests of the compositor's defences only.
        .executableTarget(
            name: "diptych-misbehave",
            dependencies: ["DiptychDemoKit", "DiptychClient", "DiptychCore", "DiptychWire", "DiptychLinux", "DiptychImage"],
            path: "Tests/Misbehave"),

        // What the tests and the VM test need beside the compositor: KMS state, image comparison,
        // a uinput touchscreen, the soak run.
        .executableTarget(
            name: "diptych-test-tools",
            dependencies: [
                "DiptychCore", "DiptychServer", "DiptychHarness", "DiptychImage", "DiptychDRM", "DiptychInput", "DiptychLinux", "DiptychClient", "DiptychOutput",
                "DiptychTestSupport", "CUinput", argumentParser, logging,
            ],
            path: "Tests/TestTools"),
        // uinput devices for the test tools (no shipped module links it).
        .target(name: "CUinput", path: "Tests/CUinput", cSettings: [.define("_GNU_SOURCE")]),

        // MARK: Tests.
        .target(name: "DiptychTestSupport", dependencies: ["DiptychImage", "DiptychLinux", "DiptychCore"], path: "Tests/TestSupport"),
        .testTarget(name: "DiptychCoreTests", dependencies: ["DiptychCore"]),
        .testTarget(name: "DiptychWireTests", dependencies: ["DiptychWire", "DiptychCore", "DiptychTestSupport"]),
        .testTarget(name: "DiptychLinuxTests", dependencies: ["DiptychLinux", "DiptychTestSupport"]),
        .testTarget(
            name: "DiptychPlatformTests",
            dependencies: ["DiptychDRM", "DiptychInput", "DiptychKeyboard", "DiptychCore", "DiptychImage", "DiptychOutput", "DiptychLinux", "DiptychTestSupport", logging]),
        .testTarget(
            name: "DiptychRenderTests",
            dependencies: ["DiptychRender", "DiptychImage", "DiptychOutput", "DiptychDemoKit", "DiptychCore", "DiptychTestSupport", "DiptychLinux", "DiptychText"],
            exclude: ["Reference"]),
        .testTarget(
            name: "DiptychIntegrationTests",
            dependencies: [
                "DiptychServer", "DiptychHarness", "DiptychRender", "DiptychImage", "DiptychOutput", "DiptychCore", "DiptychLinux", "DiptychWire", "DiptychClient",
                "DiptychTestSupport", "DiptychDRM", logging,
            ],
            exclude: ["Reference"]),
    ],
    swiftLanguageModes: [.v6]
)

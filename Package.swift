// swift-tools-version: 6.2
// Diptych: a two-app, iPad-style multitasking compositor for Linux consoles and kiosks.
import PackageDescription

let platformSettings: [SwiftSetting] = []

let package = Package(
    name: "Diptych",
    products: [
        .executable(name: "diptych", targets: ["diptych"]),
        .executable(name: "diptych-demo", targets: ["diptych-demo"]),
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
        .target(name: "CLinuxShims", cSettings: [.define("_GNU_SOURCE")]),

        // MARK: Pure tier: no C module, no Glibc, no Foundation.
        .target(name: "DiptychCore"),
        .target(name: "DiptychWire", dependencies: ["DiptychCore"]),

        // MARK: Platform tier.
        .target(name: "DiptychLinux", dependencies: ["CLinuxShims"], swiftSettings: platformSettings),
        .target(name: "DiptychRender", dependencies: ["CPixman", "CPNG", "DiptychCore", "DiptychLinux"], swiftSettings: platformSettings),
        .target(name: "DiptychDRM", dependencies: ["CDRM", "CUdev", "DiptychCore", "DiptychLinux", "DiptychRender", .product(name: "Logging", package: "swift-log")], swiftSettings: platformSettings),
        .target(name: "DiptychInput", dependencies: ["CLibinput", "CUdev", "DiptychCore", "DiptychLinux"], swiftSettings: platformSettings),

        // MARK: Mechanism and clients.
        .target(
            name: "DiptychServer",
            dependencies: [
                "DiptychCore", "DiptychWire", "DiptychLinux", "DiptychRender",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "DiptychClient", dependencies: ["DiptychCore", "DiptychWire", "DiptychLinux"]),
        .target(name: "DiptychDemoKit", dependencies: ["DiptychCore", "DiptychRender", "DiptychClient"]),

        // MARK: Executables.
        .executableTarget(
            name: "diptych",
            dependencies: [
                "DiptychCore", "DiptychServer", "DiptychRender", "DiptychDRM", "DiptychInput", "DiptychLinux", "DiptychClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "diptych-demo",
            dependencies: [
                "DiptychDemoKit", "DiptychClient", "DiptychCore", "DiptychLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // MARK: Tests.
        .target(name: "DiptychTestSupport", dependencies: ["DiptychRender", "DiptychLinux", "DiptychCore"], path: "Tests/TestSupport"),
        .testTarget(name: "DiptychCoreTests", dependencies: ["DiptychCore"]),
        .testTarget(name: "DiptychWireTests", dependencies: ["DiptychWire", "DiptychCore"]),
        .testTarget(name: "DiptychLinuxTests", dependencies: ["DiptychLinux"]),
        .testTarget(
            name: "DiptychPlatformTests",
            dependencies: ["DiptychDRM", "DiptychInput", "DiptychCore", "DiptychRender", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "DiptychRenderTests",
            dependencies: ["DiptychRender", "DiptychDemoKit", "DiptychCore", "DiptychTestSupport", "DiptychLinux"],
            exclude: ["Reference"]),
        .testTarget(
            name: "DiptychIntegrationTests",
            dependencies: ["DiptychServer", "DiptychRender", "DiptychCore", "DiptychLinux", "DiptychWire", "DiptychClient", "DiptychDemoKit", "DiptychTestSupport", "DiptychDRM"],
            exclude: ["Reference"]),
    ],
    swiftLanguageModes: [.v6]
)

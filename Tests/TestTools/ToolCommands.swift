// SPDX-License-Identifier: MIT
// Tools for the VM test: KMS state, image comparison, a uinput touchscreen.

import ArgumentParser
import DiptychCore
import DiptychDRM
import DiptychLinux
import DiptychImage
import DiptychTestSupport
import DiptychInput
import Glibc

struct KMSStateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kms-state", abstract: "Print each CRTC's framebuffer and mode state as JSON lines.")

    @Option(help: "The DRM card.")
    var card: String = "/dev/dri/card0"

    func run() throws {
        try reportingErrors {
            let device: LibdrmDevice
            do { device = try LibdrmDevice(path: card) } catch { throw RuntimeFailure("\(error)") }
            for crtc in try device.resources().crtcs {
                let s = try device.saveCRTC(crtc)
                print("{\"crtc\":\(s.id),\"fb\":\(s.framebuffer),\"x\":\(s.x),\"y\":\(s.y),\"modeValid\":\(s.modeValid)}")
            }
        }
    }
}

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Compare two images (PNG or PPM) per channel; exit 1 if they differ.")

    @Argument var first: String
    @Argument var second: String
    @Option var tolerance: Int = 0
    @Option(help: "Write a diff PNG here when they differ.")
    var diff: String?

    @Option(help: "Compare only this region X,Y,W,H.")
    var region: String?

    func run() throws {
        try reportingErrors {
            func load(_ p: String) throws -> PixelImage {
                do { return p.hasSuffix(".ppm") ? try PixelImage.readPPM(from: p) : try PixelImage.readPNG(from: p) } catch { throw UsageError("\(error)") }
            }
            var a = try load(first), b = try load(second)
            if let region {
                let v = region.split(separator: ",").compactMap { Int($0) }
                guard v.count == 4 else { throw UsageError("bad --region '\(region)': expected X,Y,W,H") }
                let r = DiptychCore.Rect(x: v[0], y: v[1], width: v[2], height: v[3])
                a = a.cropped(r)
                b = b.cropped(r)
            }
            let r = a.compare(to: b, tolerance: tolerance)
            guard r.sameSize else { throw RuntimeFailure("sizes differ: \(a.width)x\(a.height) and \(b.width)x\(b.height)") }
            if r.matches {
                print("same: \(a.width)x\(a.height), max channel difference \(r.maxChannelDifference)")
                return
            }
            if let diff { try? r.diff?.writePNG(to: diff) }
            throw RuntimeFailure("\(r.differingPixels) pixels differ by more than \(tolerance) (max \(r.maxChannelDifference)), first at \(r.firstDifference.map { "(\($0.x), \($0.y))" } ?? "-")")
        }
    }
}

/// For the VM test: creates a uinput touchscreen (root only), writes its node to a file, and
/// after a delay taps it, so an ordinary user's compositor can be shown to read input through
/// the seat.
struct UinputTapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uinput-tap", abstract: "Create a uinput touchscreen, name it in FILE, tap it after a delay (tests).")

    @Option(help: "Write the touchscreen's device node here.")
    var nodeFile: String
    @Option(help: "The panel size WxH the touchscreen spans.")
    var panel: String = "1024x768"
    @Option(help: "Tap after this many milliseconds.")
    var delayMs: Int = 5000
    @Option(help: "Where to tap, X,Y in panel pixels.")
    var at: String = "900,300"

    func run() throws {
        try reportingErrors {
            guard let size = Size(parsing: panel) else { throw UsageError("bad --panel '\(panel)'") }
            let xy = at.split(separator: ",").compactMap { Double($0) }
            guard xy.count == 2 else { throw UsageError("bad --at '\(at)': expected X,Y") }
            let device: UinputInjector
            do { device = try UinputInjector(panel: size) } catch { throw RuntimeFailure("\(error)") }
            do { try Files.writeAtomically(nodeFile, bytes: Array(device.touchNode.utf8)) } catch { throw RuntimeFailure("\(error)") }
            usleep(useconds_t(max(0, delayMs)) * 1000)
            device.inject(.touch(id: 1, phase: .down, x: xy[0], y: xy[1]))
            usleep(50_000)
            device.inject(.touch(id: 1, phase: .motion, x: xy[0] - 20, y: xy[1] + 10))
            usleep(50_000)
            device.inject(.touch(id: 1, phase: .up, x: xy[0] - 20, y: xy[1] + 10))
            usleep(2_000_000)
        }
    }
}

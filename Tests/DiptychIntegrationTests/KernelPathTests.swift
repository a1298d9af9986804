// SPDX-License-Identifier: MIT
// The area-average kernel's code paths: every path this CPU runs draws the same emulated frame,
// DIPTYCH_KERNEL forces one (and refuses one this CPU cannot run, naming those it can), and
// `profile --workload emulated` reports every path against pixman's bilinear in one run.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychRender
import DiptychTestSupport
import Testing

struct KernelPathTests {
    /// Pixels whose colour differs (alpha aside).
    func differingPixels(_ a: PixelImage, _ b: PixelImage) -> Int {
        guard a.width == b.width && a.height == b.height else { return Int.max }
        var n = 0
        for y in 0..<a.height { for x in 0..<a.width where (a.pixel(x: x, y: y) ^ b.pixel(x: x, y: y)) & 0xFF_FFFF != 0 { n += 1 } }
        return n
    }

    @Test func theCPURunsScalarAndItsBestAndRefusesWhatItCannot() throws {
        let available = BoxKernel.available
        #expect(available.contains(.scalar) && available.contains(BoxKernel.best), "\(available)")
        #expect(try BoxKernel.named("SCALAR") == .scalar)
        let unknown = #expect(throws: KernelError.self) { try BoxKernel.named("mmx") }
        #expect(unknown?.description.contains("names no kernel") == true && unknown?.description.contains("scalar") == true)
        // On every CPU some path is out of reach: NEON on x86, the x86 paths on ARM.
        let foreign = try #require(BoxKernel.allCases.first { !$0.isAvailable })
        let refused = #expect(throws: KernelError.self) { try BoxKernel.named(foreign.rawValue) }
        #expect(refused?.description.contains("cannot run") == true && available.allSatisfy { refused?.description.contains($0.rawValue) == true }, "\(refused?.description ?? "")")
    }

    /// A scaled composite drawn on every path is the same picture, byte for byte.
    @Test func everyPathDrawsTheSameScaledPicture() throws {
        let source = PixelImage(width: 683, height: 512)
        var seed: UInt32 = 7
        for y in 0..<source.height {
            for x in 0..<source.width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                source.bytes.storeBytes(of: 0xFF00_0000 | seed >> 8, toByteOffset: y * source.stride + 4 * x, as: UInt32.self)
            }
        }
        let scale = AffineTransform(a: 683.0 / 512, b: 0, c: 0, d: 512.0 / 384, tx: 0.3, ty: -0.2)
        let op = RenderOperation.composite(
            image: source, opaque: true, transform: scale, filter: .box, rects: [Rect(x: 0, y: 0, width: 512, height: 384)], sourceOffset: (0, 0), mask: nil)
        var pictures: [(BoxKernel, PixelImage)] = []
        for kernel in BoxKernel.available {
            let target = PixelImage(width: 512, height: 384)
            PixmanRenderer.replay([op], into: target, kernel: kernel)
            pictures.append((kernel, target))
        }
        let bilinear = PixelImage(width: 512, height: 384)
        PixmanRenderer.replay([op], into: bilinear, pixmanOnly: true)
        let (first, reference) = try #require(pictures.first)
        #expect(differingPixels(reference, bilinear) > 0, "the box filter is not pixman's bilinear")
        for (kernel, picture) in pictures.dropFirst() {
            #expect(differingPixels(picture, reference) == 0, "\(kernel) differs from \(first)")
        }
    }

    @Test func diptychKernelForcesAPathWithTheSamePicture() throws {
        let dir = Harness.temporaryDirectory("kernel-env")
        let args = ["render", "--device", "ipad-pro", "--arrangement", "split-2/3", "--emulate-on", "2048x1536", "--primary", "pattern:#336699", "--secondary", "pattern:#993366"]
        let auto = try Harness.run([Harness.diptych] + args + ["--out", "\(dir)/auto.png"])
        #expect(auto.status == 0, "\(auto.stderr)")
        let forced = try Harness.run([Harness.diptych] + args + ["--out", "\(dir)/scalar.png"], environment: ["DIPTYCH_KERNEL": "scalar"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let a = try PixelImage.readPNG(from: "\(dir)/auto.png"), s = try PixelImage.readPNG(from: "\(dir)/scalar.png")
        #expect(differingPixels(a, s) == 0)

        let foreign = try #require(BoxKernel.allCases.first { !$0.isAvailable })
        for value in ["turbo", foreign.rawValue] {
            let bad = try Harness.run([Harness.diptych] + args + ["--out", "\(dir)/bad.png"], environment: ["DIPTYCH_KERNEL": value])
            #expect(bad.status == 2 && bad.stderr.contains("DIPTYCH_KERNEL=\(value)") && bad.stderr.contains("scalar"), "\(bad.stderr)")
            #expect(!Files.exists("\(dir)/bad.png"))
        }
    }

    /// One profiling run times every path the CPU runs against pixman's bilinear, with the
    /// quality of each, and names the path the frames used.
    @Test func theEmulatedProfileReportsEveryPath() throws {
        let r = try Harness.run(
            [Harness.diptych, "profile", "--workload", "emulated", "--frames", "6", "--json"], environment: ["DIPTYCH_KERNEL": "scalar"], timeoutMilliseconds: 120_000)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect(json["kernel"]?.stringValue == "scalar")
        let kernels = try #require(json["kernels"]?.arrayValue)
        #expect(kernels.compactMap { $0["kernel"]?.stringValue } == BoxKernel.available.map(\.rawValue))
        let psnr = try #require(json["quality"]?["psnr_db"]?.doubleValue)
        for k in kernels {
            #expect((k["p50_ms"]?.doubleValue ?? 0) > 0 && (k["vs_pixman"]?.doubleValue ?? 0) > 0 && (k["vs_source_copy"]?.doubleValue ?? 0) > 0, "\(k)")
            // Bit-identical paths: the same quality as the frame drawn.
            #expect(abs((k["psnr_db"]?.doubleValue ?? 0) - psnr) < 0.001, "\(k)")
        }
        #expect((json["source_copy_p50_ms"]?.doubleValue ?? 0) > 0 && json["ratio"]?["total_vs_pixman"]?.doubleValue != nil)
    }
}

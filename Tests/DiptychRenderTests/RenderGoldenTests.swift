// SPDX-License-Identifier: MIT
// Golden images of every arrangement × orientation of ipad and ipad-pro, drawn by the pixman
// renderer from surfaces painted exactly as the pattern app paints them.

import DiptychCore
import DiptychDemoKit
import DiptychImage
import DiptychOutput
import DiptychRender
import DiptychTestSupport
import DiptychLinux
import Testing

let referenceDirectory = Golden.directory(of: #filePath) + "/Reference"
let primaryColour = RGB(hex: "#336699")!
let secondaryColour = RGB(hex: "#993366")!

/// The frame the compositor shows for a layout when each app has drawn its configure.
func renderPatterns(_ layout: Layout) -> (PixelImage, RenderStats) {
    var surfaces: [Role: PixelImage] = [:]
    for pane in layout.panes {
        let image = PixelImage(width: pane.pixelWidth, height: pane.pixelHeight)
        PatternPainter.paint(image, color: pane.role == .primary ? primaryColour : secondaryColour)
        surfaces[pane.role] = image
    }
    let scene = Scene(layout: layout, surfaces: surfaces)
    let output = PixelImage(width: scene.size.width, height: scene.size.height)
    let stats = PixmanRenderer().render(scene, into: output)
    return (output, stats)
}


struct RenderGoldenTests {
    static let cases: [(String, Orientation, Arrangement)] = ["ipad", "ipad-pro"].flatMap { d in
        Orientation.allCases.flatMap { o in
            Arrangement.allCases.filter { !(o == .portrait && $0 == .split12) }.map { (d, o, $0) }
        }
    }

    @Test("golden frame", arguments: cases)
    func golden(device: String, orientation: Orientation, arrangement: Arrangement) throws {
        let layout = try LayoutEngine.layout(profile: try DeviceProfile.named(device), orientation: orientation, arrangement: arrangement)
        let (frame, stats) = renderPatterns(layout)
        let failure = Golden.check(frame, name: Golden.name(device, orientation.rawValue, arrangement.rawValue), referenceDirectory: referenceDirectory, tolerance: 0)
        #expect(failure == nil, "\(failure ?? "")")
        // Every output pixel is written exactly once, composited from a surface or filled (black,
        // the divider), and chrome is blended over that: the handle, a Slide Over's shadow,
        // grabber and corners.
        #expect(stats.compositedPixels + stats.filledPixels - stats.blendedPixels == frame.width * frame.height)
        #expect((stats.blendedPixels > 0) == (arrangement != .full))
    }

    @Test func paneColoursDividerAndOcclusion() throws {
        let layout = try LayoutEngine.layout(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23)
        let (frame, _) = renderPatterns(layout)
        // Inside the primary (away from border and label), the divider, the secondary.
        #expect(frame.pixel(x: 100, y: 100) & 0xFFFFFF == 0x336699)
        for x in 1388..<1408 { #expect(frame.pixel(x: x, y: 300) & 0xFFFFFF == 0x1C1C1E, "divider column \(x)") }
        #expect(frame.pixel(x: 1387, y: 700) & 0xFFFFFF == 0xFFFFFF)  // the primary's right border
        #expect(frame.pixel(x: 1408, y: 700) & 0xFFFFFF == 0xFFFFFF)  // the secondary's left border
        #expect(frame.pixel(x: 1500, y: 100) & 0xFFFFFF == 0x993366)

        // Slide Over: the primary is not drawn under the floating secondary, but for its
        // rounded corners (10 pt radius), where the primary shows.
        let over = try LayoutEngine.layout(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .slideOver)
        let (slide, stats) = renderPatterns(over)
        #expect(stats.compositedPixels - stats.blendedPixels == 2048 * 1536)
        #expect(stats.filledPixels == 0)
        #expect(slide.pixel(x: 1410, y: 2) & 0xFFFFFF == 0x336699 && slide.pixel(x: 2045, y: 1533) & 0xFFFFFF == 0x336699)
        #expect(slide.pixel(x: 1428, y: 60) & 0xFFFFFF == 0x993366)
        // The shadow darkens the primary towards the Slide Over's edge.
        let near = slide.pixel(x: 1405, y: 300) & 0xFF, far = slide.pixel(x: 1380, y: 300) & 0xFF
        #expect(near < far && far <= 0x99)
    }
}

struct RendererTests {
    @Test func surfacesAreClippedToTheirPaneAndGapsAreBlack() {
        let red = PixelImage(width: 30, height: 30)
        red.fill(Rect(x: 0, y: 0, width: 30, height: 30), color: RGB(red: 255, green: 0, blue: 0))
        let green = PixelImage(width: 10, height: 10)
        green.fill(Rect(x: 0, y: 0, width: 10, height: 10), color: RGB(red: 0, green: 255, blue: 0))
        let scene = Scene(size: Size(width: 40, height: 20), surfaces: [
            SceneSurface(image: red, origin: (0, 0), clip: Rect(x: 0, y: 0, width: 20, height: 20)),  // too big: clipped
            SceneSurface(image: green, origin: (25, 0), clip: Rect(x: 25, y: 0, width: 15, height: 20)),  // too small
        ])
        let out = PixelImage(width: 40, height: 20)
        out.fill(Rect(x: 0, y: 0, width: 40, height: 20), color: RGB(red: 1, green: 2, blue: 3))
        let stats = PixmanRenderer().render(scene, into: out)
        #expect(out.pixel(x: 19, y: 19) & 0xFFFFFF == 0xFF0000)
        #expect(out.pixel(x: 20, y: 5) & 0xFFFFFF == 0)  // the gap between panes
        #expect(out.pixel(x: 25, y: 9) & 0xFFFFFF == 0x00FF00)
        #expect(out.pixel(x: 35, y: 5) & 0xFFFFFF == 0)  // inside the pane, beyond the buffer
        #expect(out.pixel(x: 26, y: 15) & 0xFFFFFF == 0)
        #expect(stats.compositedPixels == 400 + 100)
        #expect(stats.filledPixels == 800 - 500)
    }

    @Test func fillsAreClippedToTheImage() {
        let image = PixelImage(width: 8, height: 8)
        image.fill([Rect(x: -100, y: -100, width: 104, height: 104), Rect(x: 6, y: 6, width: 1000, height: 1000), Rect(x: 50, y: 50, width: 5, height: 5)], color: RGB(red: 9, green: 9, blue: 9))
        #expect(image.pixel(x: 3, y: 3) & 0xFFFFFF == 0x090909 && image.pixel(x: 4, y: 4) & 0xFFFFFF == 0)
        #expect(image.pixel(x: 7, y: 7) & 0xFFFFFF == 0x090909)
    }

    @Test func translucentSurfacesBlendOverWhatIsBelow() {
        let base = PixelImage(width: 4, height: 4)
        base.fill(Rect(x: 0, y: 0, width: 4, height: 4), color: RGB(red: 0, green: 0, blue: 200))
        let glass = PixelImage(width: 4, height: 4, format: .argb8888)  // zeroed: fully transparent
        let scene = Scene(size: Size(width: 4, height: 4), surfaces: [
            SceneSurface(image: base, origin: (0, 0), clip: Rect(x: 0, y: 0, width: 4, height: 4)),
            SceneSurface(image: glass, origin: (2, 0), clip: Rect(x: 2, y: 0, width: 2, height: 4)),
        ])
        let out = PixelImage(width: 4, height: 4)
        PixmanRenderer().render(scene, into: out)
        #expect(out.pixel(x: 3, y: 3) & 0xFFFFFF == 0x0000C8)
    }
}

struct PNGTests {
    @Test func roundTripAndDiff() throws {
        let image = PixelImage(width: 7, height: 5)
        image.fill(Rect(x: 0, y: 0, width: 7, height: 5), color: RGB(red: 0x12, green: 0x34, blue: 0x56))
        image.fill(Rect(x: 3, y: 2, width: 1, height: 1), color: RGB(red: 0xFE, green: 0x01, blue: 0x80))
        let path = Harness.temporaryDirectory("png") + "/round-trip.png"
        try image.writePNG(to: path)
        let back = try PixelImage.readPNG(from: path)
        #expect(back.width == 7 && back.height == 5)
        #expect(back.compare(to: image, tolerance: 0).matches)
        #expect(back.pixel(x: 3, y: 2) == 0xFFFE_0180)

        image.fill(Rect(x: 0, y: 0, width: 2, height: 1), color: RGB(red: 0x14, green: 0x34, blue: 0x56))
        let loose = image.compare(to: back, tolerance: 2), strict = image.compare(to: back, tolerance: 1)
        #expect(loose.matches)
        #expect(strict.differingPixels == 2 && strict.maxChannelDifference == 2)
        #expect(strict.firstDifference?.x == 0 && strict.firstDifference?.y == 0)
        #expect(strict.diff?.pixel(x: 1, y: 0) == 0xFFFF_0000)
        #expect(strict.diff?.pixel(x: 5, y: 4) != 0xFFFF_0000)
    }

    @Test func badFilesNameThePath() {
        do {
            _ = try PixelImage.readPNG(from: "/nonexistent/x.png")
            Issue.record("read a missing file")
        } catch {
            #expect(error.path == "/nonexistent/x.png")
        }
        #expect(throws: PNGError.self) { try PixelImage(width: 1, height: 1).writePNG(to: "/nonexistent/dir/x.png") }
    }
}

struct GoldenHarnessTests {
    @Test func missingReferenceIsRecordedAndFailsThenMismatchWritesADiff() throws {
        let dir = Harness.temporaryDirectory("harness")
        let image = PixelImage(width: 16, height: 8)
        image.fill(Rect(x: 0, y: 0, width: 16, height: 8), color: RGB(red: 10, green: 20, blue: 30))
        let first = Golden.check(image, name: "h", referenceDirectory: dir)
        #expect(first?.contains("recorded a new reference") == true)
        #expect(Files.exists("\(dir)/h.png"))
        #expect(Golden.check(image, name: "h", referenceDirectory: dir) == nil)

        image.fill(Rect(x: 3, y: 3, width: 2, height: 2), color: RGB(red: 200, green: 20, blue: 30))
        let failure = try #require(Golden.check(image, name: "h", referenceDirectory: dir, tolerance: 1))
        #expect(failure.contains("4 pixels differ"))
        // The message names the diff image it wrote.
        let named = try #require(failure.split(separator: " ").last.map(String.init))
        #expect(named.hasSuffix("/h-diff.png"))
        let diff = try PixelImage.readPNG(from: named)
        #expect(diff.pixel(x: 3, y: 3) & 0xFFFFFF == 0xFF0000)
        #expect(diff.pixel(x: 0, y: 0) & 0xFFFFFF != 0xFF0000)
        Files.removeTree(String(named[..<(named.lastIndex(of: "/") ?? named.endIndex)]))  // failures are kept; this one was on purpose
    }
}

struct IndependentPNGDecodeTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { Files.exists($0) }

    /// Decodes our PNG with Python's zlib (no libpng), so a channel-order mistake that our own
    /// reader would mirror cannot hide.
    @Test(.enabled(if: python != nil)) func pngBytesAreRGBInOrder() throws {
        let image = PixelImage(width: 3, height: 2)
        image.fill(Rect(x: 0, y: 0, width: 3, height: 2), color: RGB(red: 0x33, green: 0x66, blue: 0x99))
        image.fill(Rect(x: 2, y: 1, width: 1, height: 1), color: RGB(red: 0xAA, green: 0xBB, blue: 0xCC))
        let path = Harness.temporaryDirectory("indep") + "/rgb.png"
        try image.writePNG(to: path)
        let script = """
            import sys, zlib, struct
            d = open(sys.argv[1], 'rb').read()
            assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            i, idat, ihdr = 8, b'', None
            while i < len(d):
                n, t = struct.unpack('>I4s', d[i:i+8]); body = d[i+8:i+8+n]; i += 12 + n
                if t == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
                if t == b'IDAT': idat += body
            w, h, depth, ctype = ihdr[:4]
            assert (depth, ctype) == (8, 2), ihdr
            raw = zlib.decompress(idat); stride = w * 3; rows = []; prev = bytes(stride)
            for y in range(h):
                f = raw[y*(stride+1)]; line = bytearray(raw[y*(stride+1)+1:(y+1)*(stride+1)])
                for x in range(stride):
                    a = line[x-3] if x >= 3 else 0; b = prev[x]; c = prev[x-3] if x >= 3 else 0
                    if f == 1: line[x] = (line[x] + a) & 255
                    elif f == 2: line[x] = (line[x] + b) & 255
                    elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                    elif f == 4:
                        p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
                        line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                rows.append(bytes(line)); prev = bytes(line)
            print(rows[0][0:3].hex(), rows[1][6:9].hex())
            """
        let scriptPath = path + ".py"
        try Files.writeAtomically(scriptPath, bytes: Array(script.utf8))
        let outPath = path + ".out"
        let child = try ChildProcess(arguments: ["sh", "-c", "\(Self.python!) \(scriptPath) \(path) > \(outPath)"])
        #expect(child.wait(milliseconds: 20000) == 0)
        let printed = String(decoding: try Files.read(outPath), as: UTF8.self)
        #expect(printed == "336699 aabbcc\n")
    }
}

struct SwapChainTests {
    /// Random scenes with opaque and blending surfaces drawn into a chain whose buffers are
    /// treated as scanout (blending composed in the shadow): after every present the shown
    /// buffer equals the whole scene drawn from scratch, though each frame repainted only what
    /// its buffer's age required.
    @Test func framesDrawnByBufferAgeEqualWholeFrames() {
        var g = UInt64(12345)
        func next(_ n: Int) -> Int {
            g = g &* 6364136223846793005 &+ 1442695040888963407
            return Int((g >> 33) % UInt64(n))
        }
        let size = Size(width: 64, height: 48)
        let chain = SwapChain(size: size)
        let opaque = PixelImage(width: 40, height: 30)
        let glass = PixelImage(width: 30, height: 20, format: .argb8888)
        glass.fill(Rect(x: 0, y: 0, width: 30, height: 20), color: RGB(red: 0x80, green: 0x20, blue: 0x40))
        var history: [Region?] = []
        var repainted = 0
        var was = (x: 0, y: 0)
        for frame in 0..<40 {
            // The opaque surface changes somewhere; the translucent one moves.
            let change = Rect(x: next(36), y: next(26), width: 1 + next(4), height: 1 + next(4))
            opaque.fill(change, color: RGB(red: UInt8(next(256)), green: UInt8(next(256)), blue: UInt8(next(256))))
            let at = (x: next(34), y: next(28))
            let scene = { (damage: Region?) in
                Scene(size: size, surfaces: [
                    SceneSurface(image: opaque, origin: (4, 6), clip: Rect(x: 4, y: 6, width: 40, height: 30)),
                    SceneSurface(image: glass, origin: at, clip: Rect(x: at.x, y: at.y, width: 30, height: 20)),
                ], damage: damage)
            }
            // This frame's damage: everything at first, then the change and both positions of
            // the translucent surface.
            var d = Region(Rect(x: change.x + 4, y: change.y + 6, width: change.width, height: change.height))
            d.formUnion(Rect(x: was.x, y: was.y, width: 30, height: 20))
            d.formUnion(Rect(x: at.x, y: at.y, width: 30, height: 20))
            was = at
            let damage: Region? = frame == 0 ? nil : d
            let target = chain.target()
            let repaint = target.repaintRegion(damage, history: history)
            repainted += repaint?.area ?? 64 * 48
            let (ops, _) = PixmanRenderer().plan(scene(repaint))
            PixmanRenderer.replay(ops, into: target)
            chain.presented()
            history.append(damage)
            let whole = PixelImage(width: 64, height: 48)
            PixmanRenderer().render(scene(nil), into: whole)
            #expect(chain.buffers[chain.front].compare(to: whole, tolerance: 0).matches, "frame \(frame)")
        }
        // Less than every pixel of every frame was repainted.
        #expect(repainted < 40 * 64 * 48 / 2)
    }

    /// Ages: unknown at first, two frames for a double buffer, unknown again after a failed
    /// present or an invalidation; and what an old buffer repaints.
    @Test func agesAndRepaintRegions() {
        let chain = SwapChain(size: Size(width: 8, height: 8))
        #expect(chain.target().age == 0)
        chain.presented()
        #expect(chain.target().age == 0)
        chain.presented()
        #expect(chain.target().age == 2)
        chain.presentFailed()
        #expect(chain.target().age == 0)
        chain.presented()
        chain.presented()
        #expect(chain.target().age == 2)
        chain.invalidate()
        #expect(chain.target().age == 0)
        let a = Rect(x: 0, y: 0, width: 2, height: 2), b = Rect(x: 4, y: 4, width: 2, height: 2)
        let two = FrameTarget(image: chain.shadow, age: 2)
        #expect(two.repaintRegion(Region(a), history: [Region(b)])?.area == 8)
        #expect(two.repaintRegion(Region(a), history: [nil]) == nil)
        #expect(two.repaintRegion(Region(a), history: []) == nil)
        #expect(FrameTarget(image: chain.shadow, age: 1).repaintRegion(Region(a), history: [nil])?.area == 4)
        #expect(FrameTarget(image: chain.shadow, age: 0).repaintRegion(Region(a), history: []) == nil)
    }
}

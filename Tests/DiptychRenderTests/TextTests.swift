// SPDX-License-Identifier: MIT
// Real type: FreeType glyphs through pixman's glyph cache, and the status bar's place
// in the scene and its damage.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychRender
import DiptychText
import DiptychTestSupport
import Testing

private let fontInstalled = FontFiles.candidates.contains { Files.exists($0) }

@Suite(.enabled(if: fontInstalled, "no packaged font (fonts-inter or fonts-dejavu-core) is installed"))
struct TypesetterTests {
    @Test func textIsAntialiasedTypeNotTheBitmapFont() throws {
        let t = try Typesetter.standard(override: nil)
        let size = t.size(of: "09:41", pixelSize: 24)
        #expect(size.width > 30 && size.width < 120 && size.height >= 24 && size.height < 40)
        // Wider text measures wider; proportional, not fixed-width like the bitmap font.
        #expect(t.size(of: "WWWW", pixelSize: 24).width > t.size(of: "iiii", pixelSize: 24).width * 2)
        let picture = t.draw("09:41", color: RGB(red: 0, green: 0, blue: 0), pixelSize: 24, size: Size(width: size.width + 8, height: size.height))
        var solid = 0, partial = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let a = picture.pixel(x: x, y: y) >> 24
                if a == 255 { solid += 1 } else if a > 0 { partial += 1 }
            }
        }
        // Ink where the digits are, and anti-aliased edges around it.
        #expect(solid > 50 && partial > 50, "solid \(solid), partial \(partial)")
        // Centred: the ink's left and right margins differ by at most a couple of pixels.
        let columns = (0..<picture.width).filter { x in (0..<picture.height).contains { picture.pixel(x: x, y: $0) >> 24 > 0 } }
        let left = columns.first ?? 0, right = picture.width - 1 - (columns.last ?? 0)
        #expect(abs(left - right) <= 3, "left \(left), right \(right)")
    }

    /// Apps' names reach the glyph cache: however many characters come by, it stays bounded,
    /// and a string drawn as the cache starts over is drawn whole (the cache never starts over
    /// in the middle of a string: its first glyphs would be gone when it is drawn).
    @Test func theGlyphCacheIsBoundedAndStartsOverBetweenStrings() throws {
        let t = try Typesetter.standard(override: nil)
        // White ink: premultiplied, its coverage shows in the colour channels that are compared.
        let ink = RGB(red: 255, green: 255, blue: 255), size = Size(width: 900, height: 40)
        for base in stride(from: 0x21, to: 0x21 + 1200, by: 40) {
            let text = String(String.UnicodeScalarView((base..<base + 40).compactMap { Unicode.Scalar($0) }))
            let drawn = t.draw(text, color: ink, pixelSize: 20, size: size)
            #expect(t.glyphCount <= Typesetter.glyphLimit)
            // As a typesetter with an empty cache draws it.
            let fresh = try Typesetter.standard(override: nil).draw(text, color: ink, pixelSize: 20, size: size)
            #expect(drawn.compare(to: fresh, tolerance: 0).matches, "characters from U+\(String(base, radix: 16))")
        }
        #expect(t.size(of: "iPad", pixelSize: 20).width > 0)
    }

    @Test func aMissingFontIsAClearError() {
        #expect(throws: TextError.self) { try Typesetter.standard(override: "/nonexistent/font.otf") }
        do {
            _ = try Typesetter.standard(override: "/nonexistent/font.otf")
        } catch {
            #expect(error.description.contains("/nonexistent/font.otf"))
        }
    }
}

struct StatusBarSceneTests {
    let profile = try! DeviceProfile.named("ipad-pro")

    func graph(_ bar: StatusBar?) -> SceneGraph {
        let panes = PresentedPane.panes(of: LayoutEngine.shownLayout(profile: profile, orientation: .landscape, arrangement: .split23)) {
            $0 == .primary ? AppID(1) : AppID(2)
        }
        return SceneBuilder.build(panes: panes, profile: profile, orientation: .landscape, statusBar: bar) { app in
            AppContent(live: ImageRef(id: app.rawValue, width: 4000, height: 4000))
        }
    }

    /// The bar lies over the apps (their frames unchanged) in the top 20 pt, and a new minute
    /// repaints the clock, not the screen.
    @Test func theClockRepaintsOnlyItself() {
        let before = graph(StatusBar(style: .dark, time: "09:41", title: "iPad", battery: 80))
        let bar = before.nodes.filter { if case .status = $0.key { true } else { false } }
        #expect(bar.count >= 4 && bar.allSatisfy { $0.clip.maxY <= StatusBar.height * profile.scale })
        // Above every app's node.
        let lastApp = before.nodes.lastIndex { $0.app != nil } ?? 0
        #expect(before.nodes.firstIndex { if case .status = $0.key { true } else { false } }! > lastApp)
        #expect(graph(nil).surfaces.map(\.clip) == before.surfaces.map(\.clip))

        let geometry = OutputGeometry.native(logical: profile.pixelSize(.landscape))
        var damage = DamageTracker(geometry: geometry)
        _ = damage.take(before)
        let after = graph(StatusBar(style: .dark, time: "09:42", title: "iPad", battery: 80))
        let region = damage.take(after)!
        var both = Region(before.nodes.first { $0.key == .status(.time) }!.clip)
        both.formUnion(after.nodes.first { $0.key == .status(.time) }!.clip)
        let clock = both.bounds
        #expect(!region.isEmpty && region.rects.allSatisfy { clock.contains($0) })
        // Hidden: no bar at all.
        #expect(!graph(StatusBar(style: .hidden, time: "09:41")).nodes.contains { if case .status = $0.key { true } else { false } })
    }

    @Test func theVirtualClockStartsAt0941() {
        #expect(StatusBar.clock(milliseconds: 0) == "09:41")
        #expect(StatusBar.clock(milliseconds: 59_999) == "09:41")
        #expect(StatusBar.clock(milliseconds: 60_000) == "09:42")
        #expect(StatusBar.clock(milliseconds: 19 * 60_000) == "10:00")
        #expect(StatusBar.clock(milliseconds: 0, startMinutes: 23 * 60 + 59) == "23:59")
        #expect(StatusBar.clock(milliseconds: 60_000, startMinutes: 23 * 60 + 59) == "00:00")
    }
}

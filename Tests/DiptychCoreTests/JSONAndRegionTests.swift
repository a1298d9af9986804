// SPDX-License-Identifier: MIT
// JSON round trips and refusals, colour and app names, and region arithmetic.

import DiptychCore
import Testing

struct JSONTests {
    @Test func roundTrip() throws {
        let v = JSONValue.object([
            ("s", .string("quote \" back \\ nl \n tab \t é 😀 \u{01}")), ("i", .int(-42)), ("d", .double(1.5)),
            ("b", .bool(true)), ("n", .null), ("a", .array([.int(1), .object([])])),
        ])
        let text = v.serialized
        #expect(text.contains(#""i":-42"#))
        #expect(text.contains(#"\u0001"#))
        #expect(try JSONValue.parse(text) == v)
        #expect(try JSONValue.parse(" {\"k\" : [1, 2.5e3, \"\\u00e9\\ud83d\\ude00\"]} ")["k"] == .array([.int(1), .double(2500), .string("é😀")]))
    }

    @Test(arguments: ["8E88888", "-1e999", "", "{", "[1,]", "{\"a\" 1}", "tru", "01x", "\"abc", "{\"a\":1} x", "[\"\\x\"]", "-", "1.", "\"\\ud800\""])
    func refusesMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }
}

struct NameTests {
    @Test func colours() throws {
        #expect(RGB(hex: "#336699") == RGB(red: 0x33, green: 0x66, blue: 0x99))
        #expect(RGB(hex: "#aBcDeF")?.description == "#ABCDEF")
        #expect(RGB(hex: "#336699")?.argb == 0xFF33_6699)
        for bad in ["336699", "#33669", "#3366999", "#33669G", "#"] { #expect(RGB(hex: bad) == nil, "\(bad)") }
    }

    @Test func apps() throws {
        #expect(try DemoApp.named("pattern:#993366") == .pattern(RGB(red: 0x99, green: 0x33, blue: 0x66)))
        #expect(try DemoApp.named("notes") == .notes)
        #expect(throws: DemoAppError.unknownApp("photos")) { try DemoApp.named("photos") }
        #expect(throws: DemoAppError.badColour("pattern:#12345Z", "#12345Z")) { try DemoApp.named("pattern:#12345Z") }
        #expect(DemoAppError.unknownApp("x").description.contains("pattern:#RRGGBB"))
    }
}

struct RegionTests {
    @Test func subtractAndUnion() {
        var r = Region(Rect(x: 0, y: 0, width: 100, height: 50))
        r.subtract(Rect(x: 40, y: 10, width: 20, height: 20))
        #expect(r.area == 5000 - 400)
        #expect(!r.contains(x: 45, y: 15) && r.contains(x: 39, y: 15) && r.contains(x: 60, y: 29))
        r.formUnion(Rect(x: 0, y: 0, width: 100, height: 50))
        #expect(r.area == 5000)
        r.formUnion(Rect(x: 90, y: 40, width: 20, height: 20))
        #expect(r.area == 5000 + 400 - 100)
        #expect(r.intersection(Rect(x: 95, y: 45, width: 100, height: 100)).area == 15 * 15 - 0)
    }

    /// Damage is conservative and bounded: past its limit a region becomes its bounding box,
    /// holding every pixel it held (more repainted, never fewer).
    @Test func damageCollapsesToItsBoundsPastTheLimitAndLosesNoPixel() {
        var region = Region()
        var dots: [Rect] = []
        for i in 0..<1000 { dots.append(Rect(x: (i % 40) * 3, y: (i / 40) * 3, width: 1, height: 1)) }
        for d in dots {
            region.formUnion(d, collapsingPast: Region.damageRectangleLimit)
            #expect(region.rects.count <= 64)
        }
        for d in dots { #expect(region.contains(x: d.x, y: d.y)) }
        // Below the limit it is exact.
        var few = Region()
        for d in dots.prefix(10) { few.formUnion(d, collapsingPast: Region.damageRectangleLimit) }
        #expect(few.area == 10)
        // A commit's 256 rectangles become one box holding them all; 16 stay as sent.
        let box = Region.bounded(Array(dots.prefix(256)))
        #expect(box == [Rect(x: 0, y: 0, width: 118, height: 19)])
        #expect(Region.bounded(Array(dots.prefix(16))) == Array(dots.prefix(16)))
        #expect(Region.bounded([Rect(x: 0, y: 0, width: 0, height: 0)] + Array(repeating: Rect(x: 5, y: 5, width: 0, height: 3), count: 20)).isEmpty)
    }

    @Test func randomRegionsMatchAPixelModel() {
        var g = SplitMix(state: 7)
        for _ in 0..<200 {
            var region = Region()
            var model = [[Bool]](repeating: [Bool](repeating: false, count: 40), count: 40)
            for _ in 0..<6 {
                let x = Int.random(in: 0..<40, using: &g), y = Int.random(in: 0..<40, using: &g)
                let rect = Rect(x: x, y: y, width: Int.random(in: 0...min(20, 40 - x), using: &g), height: Int.random(in: 0...min(20, 40 - y), using: &g))
                let add = Bool.random(using: &g)
                if add { region.formUnion(rect) } else { region.subtract(rect) }
                for y in 0..<40 { for x in 0..<40 where x >= rect.minX && x < rect.maxX && y >= rect.minY && y < rect.maxY { model[y][x] = add } }
            }
            var count = 0
            for y in 0..<40 { for x in 0..<40 { #expect(region.contains(x: x, y: y) == model[y][x]); if model[y][x] { count += 1 } } }
            #expect(region.area == count)  // disjoint rectangles: no pixel counted twice
        }
    }

    /// `remove` (what a frame's plan does for an opaque surface) splits a region in two: the
    /// part inside the rectangle, as `intersection` gives it, and the rest, each pixel once.
    @Test func removeSplitsARegionAsIntersectionAndSubtractDo() {
        var g = SplitMix(state: 11)
        func random() -> Rect {
            let x = Int.random(in: 0..<40, using: &g), y = Int.random(in: 0..<40, using: &g)
            return Rect(x: x, y: y, width: Int.random(in: 0...min(20, 40 - x), using: &g), height: Int.random(in: 0...min(20, 40 - y), using: &g))
        }
        for _ in 0..<200 {
            var region = Region()
            for _ in 0..<5 { region.formUnion(random()) }
            let clip = random()
            var rest = region
            let inside = rest.remove(clip)
            let expected = region.intersection(clip)
            var count = 0
            for y in 0..<40 {
                for x in 0..<40 {
                    let inClip = x >= clip.minX && x < clip.maxX && y >= clip.minY && y < clip.maxY
                    let held = region.contains(x: x, y: y)
                    #expect(inside.contains(x: x, y: y) == (held && inClip))
                    #expect(expected.contains(x: x, y: y) == (held && inClip))
                    #expect(rest.contains(x: x, y: y) == (held && !inClip))
                    if held { count += 1 }
                }
            }
            #expect(inside.area + rest.area == count)
            #expect(inside.area == expected.area)
        }
    }
}

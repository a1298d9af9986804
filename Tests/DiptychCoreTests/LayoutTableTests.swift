// SPDX-License-Identifier: MIT
// Table-driven layout tests: every profile × orientation × arrangement against the contract.

import DiptychCore
import Testing

struct Expected {
    var primary: (x: Int, w: Int)
    var secondary: (x: Int, w: Int)?
    var divider: Int?
    var primaryClass: SizeClass
    var secondaryClass: SizeClass?
}

/// The contract's numbers, written out by hand from the contract (not computed by the engine).
let table: [String: Expected] = [
    // ipad landscape: W 1024, c 320, d 10.
    "ipad landscape full": Expected(primary: (0, 1024), primaryClass: .regular),
    "ipad landscape slide-over": Expected(primary: (0, 1024), secondary: (704, 320), primaryClass: .regular, secondaryClass: .compact),
    "ipad landscape split-2/3": Expected(primary: (0, 694), secondary: (704, 320), divider: 694, primaryClass: .regular, secondaryClass: .compact),
    "ipad landscape split-1/2": Expected(primary: (0, 507), secondary: (517, 507), divider: 507, primaryClass: .compact, secondaryClass: .compact),
    // ipad portrait: W 768.
    "ipad portrait full": Expected(primary: (0, 768), primaryClass: .regular),
    "ipad portrait slide-over": Expected(primary: (0, 768), secondary: (448, 320), primaryClass: .regular, secondaryClass: .compact),
    "ipad portrait split-2/3": Expected(primary: (0, 438), secondary: (448, 320), divider: 438, primaryClass: .compact, secondaryClass: .compact),
    // ipad-pro landscape: W 1366, c 375.
    "ipad-pro landscape full": Expected(primary: (0, 1366), primaryClass: .regular),
    "ipad-pro landscape slide-over": Expected(primary: (0, 1366), secondary: (991, 375), primaryClass: .regular, secondaryClass: .compact),
    "ipad-pro landscape split-2/3": Expected(primary: (0, 981), secondary: (991, 375), divider: 981, primaryClass: .regular, secondaryClass: .compact),
    "ipad-pro landscape split-1/2": Expected(primary: (0, 678), secondary: (688, 678), divider: 678, primaryClass: .regular, secondaryClass: .regular),
    // ipad-pro portrait: W 1024.
    "ipad-pro portrait full": Expected(primary: (0, 1024), primaryClass: .regular),
    "ipad-pro portrait slide-over": Expected(primary: (0, 1024), secondary: (649, 375), primaryClass: .regular, secondaryClass: .compact),
    "ipad-pro portrait split-2/3": Expected(primary: (0, 639), secondary: (649, 375), divider: 639, primaryClass: .compact, secondaryClass: .compact),
]

struct LayoutTableTests {
    static let cases: [(String, Orientation, Arrangement)] = ["ipad", "ipad-mini", "ipad-pro"].flatMap { d in
        Orientation.allCases.flatMap { o in Arrangement.allCases.map { (d, o, $0) } }
    }

    @Test("every profile × orientation × arrangement", arguments: cases)
    func layout(device: String, orientation: Orientation, arrangement: Arrangement) throws {
        let profile = try DeviceProfile.named(device)
        if orientation == .portrait && arrangement == .split12 {
            #expect(throws: LayoutError.splitHalfInPortrait) {
                try LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: arrangement)
            }
            return
        }
        let key = "\(device == "ipad-mini" ? "ipad" : device) \(orientation.rawValue) \(arrangement.rawValue)"
        let e = try #require(table[key])
        let l = try LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: arrangement)
        let h = orientation == .landscape ? profile.landscapeSize.height : profile.landscapeSize.width

        let p = try #require(l.pane(.primary))
        #expect(p.frame == Rect(x: e.primary.x, y: 0, width: e.primary.w, height: h))
        #expect(p.pixelWidth == e.primary.w * 2 && p.pixelHeight == h * 2)
        #expect(p.horizontalSizeClass == e.primaryClass)
        #expect(p.verticalSizeClass == .regular)  // every iPad pane is at least 678 pt tall
        if let s = e.secondary {
            let sp = try #require(l.pane(.secondary))
            // A Slide Over floats 20 pt below the top and above the bottom of the screen.
            let inset = arrangement == .slideOver ? LayoutEngine.slideOverInset : 0
            #expect(sp.frame == Rect(x: s.x, y: inset, width: s.w, height: h - 2 * inset))
            #expect(sp.pixelHeight == (h - 2 * inset) * 2)
            #expect(sp.horizontalSizeClass == e.secondaryClass)
        } else {
            #expect(l.pane(.secondary) == nil)
            #expect(l.panes.count == 1)
        }
        #expect(l.divider?.x == e.divider)
        #expect(l.divider.map(\.width) == (e.divider == nil ? nil : 10))
    }

    @Test func jsonKeysForTheAcceptanceExample() throws {
        let l = try LayoutEngine.layout(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23)
        let text = l.json.serialized
        #expect(text.hasPrefix(#"{"device":"ipad","orientation":"landscape","screen":{"width":1024,"height":768,"scale":2},"arrangement":"split-2/3","divider":{"x":694,"width":10},"panes":[{"role":"primary","frame":{"x":0,"y":0,"width":694,"height":768},"pixelWidth":1388,"pixelHeight":1536,"horizontalSizeClass":"regular","verticalSizeClass":"regular"}"#))
        let parsed = try JSONValue.parse(text)
        let secondary = try #require(parsed["panes"]?.arrayValue?.last)
        #expect(secondary["role"]?.stringValue == "secondary")
        #expect(secondary["frame"]?["x"]?.intValue == 704)
        #expect(secondary["frame"]?["width"]?.intValue == 320)
        #expect(secondary["horizontalSizeClass"]?.stringValue == "compact")
    }

    @Test func fullHasNullDividerAndOnePane() throws {
        let l = try LayoutEngine.layout(profile: try DeviceProfile.named("ipad-pro"), orientation: .portrait, arrangement: .full)
        let json = try JSONValue.parse(l.json.serialized)
        #expect(json["divider"] == .null)
        #expect(json["panes"]?.arrayValue?.count == 1)
        #expect(json["screen"]?["width"]?.intValue == 1024)
    }

    @Test func rememberedHalfSplitShowsAsTwoThirdsInPortrait() {
        #expect(Arrangement.split12.shown(in: .portrait) == .split23)
        #expect(Arrangement.split12.shown(in: .landscape) == .split12)
        #expect(Arrangement.slideOver.shown(in: .portrait) == .slideOver)
    }
}

struct ProfileTests {
    @Test func customProfiles() throws {
        let p = try DeviceProfile.named("2732x2048@2")
        #expect(p.landscapeSize == Size(width: 1366, height: 1024) && p.scale == 2 && p.compactWidth == 375)
        let q = try DeviceProfile.named("1536x2048@2")  // given portrait: taken as landscape
        #expect(q.landscapeSize == Size(width: 1024, height: 768) && q.compactWidth == 320)
        let r = try DeviceProfile.named("1920x1080@1")
        #expect(r.compactWidth == 375 && r.screenSize(.portrait) == Size(width: 1080, height: 1920))
        // An 11-inch iPad Pro: 1194 pt wide, so the narrow column is 375 pt, as iPadOS's 809 | 375.
        let eleven = try DeviceProfile.named("2388x1668@2")
        #expect(eleven.compactWidth == 375)
        let split = try LayoutEngine.layout(profile: eleven, orientation: .landscape, arrangement: .split23)
        #expect(split.pane(.primary)?.frame.width == 809 && split.pane(.secondary)?.frame.width == 375)
        // Below 1180 pt (a 10.5-inch iPad, 1112 pt): 320 pt.
        #expect(try DeviceProfile.named("2224x1668@2").compactWidth == 320)
    }

    @Test(arguments: ["ipad-air", "", "1024x768", "x@2", "1024x768@0", "1025x768@2", "99999x768@1", "10x10@1", "axb@2"])
    func badDevicesAreRefusedWithTheChoices(name: String) {
        do {
            _ = try DeviceProfile.named(name)
            Issue.record("accepted \(name)")
        } catch {
            if case .unknownDevice = error { #expect(error.description.contains("ipad, ipad-mini, ipad-pro")) }
            #expect(error.description.contains(name.isEmpty ? "''" : name))
        }
    }

    @Test func overrides() throws {
        let p = try DeviceProfile.named("ipad").overriding(compactWidth: 300, dividerWidth: 20, regularMinWidth: 500)
        let l = try LayoutEngine.layout(profile: p, orientation: .landscape, arrangement: .split23)
        #expect(l.pane(.primary)?.frame.width == 1024 - 20 - 300)
        #expect(l.pane(.secondary)?.frame.x == 724)
        #expect(l.divider == Divider(x: 704, width: 20))
        // 507 pt halves are regular once the threshold is 500 pt.
        let half = try LayoutEngine.layout(profile: p, orientation: .landscape, arrangement: .split12)
        #expect(half.panes.allSatisfy { $0.horizontalSizeClass == .regular })
        #expect(throws: ProfileError.self) { try DeviceProfile.named("ipad").overriding(dividerWidth: 0) }
        #expect(throws: ProfileError.self) { try DeviceProfile.named("ipad").overriding(compactWidth: -5) }
    }

    @Test func names() throws {
        #expect(try Arrangement.named("split-1/2") == .split12)
        #expect(throws: LayoutError.unknownArrangement("split")) { try Arrangement.named("split") }
        #expect(LayoutError.unknownArrangement("x").description.contains("full, slide-over, split-2/3, split-1/2"))
        #expect(throws: LayoutError.unknownOrientation("up")) { try Orientation.named("up") }
    }
}

// SPDX-License-Identifier: MIT
// The output transform: round trips, fitting, filtering decisions, damage growth, and input
// that lands where the user sees it in every rotation and emulation.

import DiptychCore
import Testing

struct TransformTests {
    static let geometries: [(String, Size)] = [
        ("ipad-pro", Size(width: 2048, height: 1536)),  // the non-integer 2732 -> 2048 scale
        ("ipad", Size(width: 1920, height: 1080)),  // letterboxed
        ("ipad", Size(width: 0, height: 0)),  // native (no emulation)
    ]

    static func geometry(_ device: String, _ panel: Size, _ o: Orientation, _ r: OutputRotation) throws -> OutputGeometry {
        let logical = try DeviceProfile.named(device).pixelSize(o)
        return panel.width == 0 ? .native(logical: logical, rotation: r) : OutputGeometry(logical: logical, panel: panel, rotation: r)
    }

    @Test(arguments: OutputRotation.allCases)
    func panelToLogicalToPanelWithinHalfAPixel(rotation: OutputRotation) throws {
        var g = SplitMix(state: UInt64(rotation.rawValue))
        for (device, panel) in Self.geometries {
            for o in Orientation.allCases {
                let geo = try Self.geometry(device, panel, o, rotation)
                for _ in 0..<500 {
                    let x = Double.random(in: 0..<Double(geo.panel.width), using: &g), y = Double.random(in: 0..<Double(geo.panel.height), using: &g)
                    let l = geo.toLogical(x: x, y: y)
                    let back = geo.toPanel(x: l.x, y: l.y)
                    #expect(abs(back.x - x) <= 0.5 && abs(back.y - y) <= 0.5, "\(device) \(o) \(rotation): \(x),\(y)")
                    // Whole logical pixels land within half a panel pixel of where they are drawn.
                    let px = l.x.rounded(.down) + 0.5, py = l.y.rounded(.down) + 0.5
                    let drawn = geo.toPanel(x: px, y: py)
                    #expect(abs(geo.toLogical(x: drawn.x, y: drawn.y).x - px) < 0.5)
                }
                // The picture fits the panel, centred, touching two opposite edges.
                let image = geo.transform.apply(Rect(x: 0, y: 0, width: geo.logical.width, height: geo.logical.height))
                #expect(Rect(x: 0, y: 0, width: geo.panel.width, height: geo.panel.height).contains(image), "\(device) \(o) \(rotation): \(image)")
                #expect(image.width == geo.panel.width || image.height == geo.panel.height)
                #expect(abs((geo.panel.width - image.maxX) - image.minX) <= 1 && abs((geo.panel.height - image.maxY) - image.minY) <= 1)
            }
        }
    }

    @Test func theIPadProScaleAndFiltering() throws {
        let g = OutputGeometry(logical: Size(width: 2732, height: 2048), panel: Size(width: 2048, height: 1536))
        #expect(g.scale == 2048.0 / 2732.0)
        #expect(g.transform.needsFiltering)
        #expect(!OutputGeometry.native(logical: Size(width: 2048, height: 1536), rotation: .quarter).transform.needsFiltering)
        #expect(!AffineTransform.translation(3, -7).needsFiltering && AffineTransform.translation(0.5, 0).needsFiltering)
        // A damaged logical box grows by the bilinear footprint on the panel; not when native.
        let d = try #require(g.damage(Rect(x: 100, y: 100, width: 40, height: 40)))
        #expect(d == Rect(x: 74, y: 74, width: 32, height: 32))
        #expect(OutputGeometry.native(logical: Size(width: 100, height: 100)).damage(Rect(x: 10, y: 10, width: 5, height: 5)) == Rect(x: 10, y: 10, width: 5, height: 5))
    }

    /// A touch at the panel position of the divider's centre starts a divider drag in every
    /// rotation and emulation.
    @Test(arguments: OutputRotation.allCases)
    func aTouchOnTheDrawnDividerDragsIt(rotation: OutputRotation) throws {
        for (device, panel) in Self.geometries {
            let profile = try DeviceProfile.named(device)
            var shell = Shell(profile: profile, orientation: .landscape, arrangement: .split23)
            _ = shell.add(AppID(1), preferring: .primary, requiresFullScreen: false)
            _ = shell.add(AppID(2), preferring: .secondary, requiresFullScreen: false)
            let geo = try Self.geometry(device, panel, .landscape, rotation)
            let d = try #require(shell.layout.divider)
            let centre = geo.toPanel(x: (Double(d.x) + Double(d.width) / 2) * Double(profile.scale), y: 300 * Double(profile.scale))
            let back = geo.toLogical(x: centre.x, y: centre.y)
            _ = shell.handleTouch(id: 1, phase: .down, x: back.x / Double(profile.scale), y: back.y / Double(profile.scale), now: 0)
            #expect(shell.drag != nil, "\(device) \(panel) \(rotation)")
        }
    }
}

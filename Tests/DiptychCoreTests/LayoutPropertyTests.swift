// SPDX-License-Identifier: MIT
// Property tests: layout invariants over many random screens and overrides.

import DiptychCore
import Testing

/// A small deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct LayoutPropertyTests {
    /// A random profile: custom sizes and scales, with random overrides half the time.
    static func randomProfile(_ g: inout SplitMix) throws -> DeviceProfile {
        let scale = Int.random(in: 1...3, using: &g)
        let w = Int.random(in: 100...3000, using: &g) * scale
        let h = Int.random(in: 100...2200, using: &g) * scale
        var p = try DeviceProfile.named("\(w)x\(h)@\(scale)")
        if Bool.random(using: &g) {
            p = try p.overriding(
                compactWidth: Int.random(in: 1...800, using: &g), dividerWidth: Int.random(in: 1...40, using: &g),
                regularMinWidth: Int.random(in: 1...1500, using: &g))
        }
        return p
    }

    @Test(arguments: 0..<8)
    func invariantsHold(seed: UInt64) throws {
        var g = SplitMix(state: seed)
        for _ in 0..<500 {
            let profile = try Self.randomProfile(&g)
            for orientation in Orientation.allCases {
                for arrangement in Arrangement.allCases where !(arrangement == .split12 && orientation == .portrait) {
                    let l = try LayoutEngine.layout(profile: profile, orientation: orientation, arrangement: arrangement)
                    let screen = Rect(x: 0, y: 0, width: l.screen.width, height: l.screen.height)
                    let context = "\(profile.name) c=\(profile.compactWidth) d=\(profile.dividerWidth) \(orientation) \(arrangement) seed \(seed)"
                    // Panes lie inside the screen, full height (a Slide Over floats inset from the
                    // top and the bottom), with pixel sizes = points × scale.
                    for p in l.panes {
                        #expect(screen.contains(p.frame), "\(context)")
                        let inset = arrangement == .slideOver && p.role == .secondary ? LayoutEngine.slideOverInset : 0
                        #expect(p.frame.height == l.screen.height - 2 * inset && p.frame.y == inset, "\(context)")
                        #expect(p.frame.width > 0, "\(context)")
                        #expect(p.pixelWidth == p.frame.width * profile.scale && p.pixelHeight == p.frame.height * profile.scale, "\(context)")
                        #expect((p.horizontalSizeClass == .regular) == (p.frame.width >= profile.regularMinWidth), "\(context)")
                        #expect((p.verticalSizeClass == .regular) == (p.frame.height >= profile.regularMinHeight), "\(context)")
                    }
                    #expect(l.panes.first?.role == .primary)
                    #expect(l.panes.count == (arrangement.showsSecondary ? 2 : 1))
                    guard let s = l.pane(.secondary), let p = l.pane(.primary) else { continue }
                    // The secondary never gets more than half of the screen.
                    #expect(2 * s.frame.width <= l.screen.width, "\(context)")
                    // It sits at the right edge.
                    #expect(s.frame.maxX == l.screen.width, "\(context)")
                    if arrangement.isSplit {
                        let d = try #require(l.divider)
                        // No overlap, and the widths add up with the divider.
                        #expect(p.frame.intersection(s.frame) == nil, "\(context)")
                        #expect(p.frame.maxX == d.x && d.x + d.width == s.frame.minX, "\(context)")
                        #expect(p.frame.width + d.width + s.frame.width == l.screen.width, "\(context)")
                        // Only the primary may take two thirds: it is never narrower (a half split
                        // gives the odd point after the divider to the secondary, per the contract).
                        #expect(p.frame.width + (arrangement == .split12 ? 1 : 0) >= s.frame.width, "\(context)")
                    } else {
                        #expect(l.divider == nil)
                        #expect(p.frame.width == l.screen.width, "\(context)")
                    }
                }
            }
        }
    }

    @Test func halfSplitHalvesWhatTheDividerLeaves() throws {
        var g = SplitMix(state: 42)
        for _ in 0..<2000 {
            let p = try Self.randomProfile(&g)
            let l = try LayoutEngine.layout(profile: p, orientation: .landscape, arrangement: .split12)
            let left = try #require(l.pane(.primary)).frame.width, right = try #require(l.pane(.secondary)).frame.width
            #expect(left == (l.screen.width - p.dividerWidth) / 2)
            #expect(right - left == (l.screen.width - p.dividerWidth) % 2)
        }
    }
}

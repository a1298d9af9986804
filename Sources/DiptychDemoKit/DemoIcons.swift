// SPDX-License-Identifier: MIT
// The demo apps' icons, drawn once at launch and given to the compositor with `setIcon`: each
// distinct at a glance (the compositor rounds the corners).

import DiptychCore

extension DemoApp {
    /// Draws the app's icon: `side` × `side` opaque premultiplied ARGB pixels, rows `words`
    /// words apart.
    public func drawIcon(_ pixels: UnsafeMutableBufferPointer<UInt32>, words: Int, side: Int) {
        func argb(_ c: RGB) -> UInt32 { 0xFF00_0000 | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue) }
        let s = Double(side)
        func paint(_ color: (Double, Double) -> RGB) {
            for y in 0..<side {
                for x in 0..<side { pixels[y * words + x] = argb(color((Double(x) + 0.5) / s, (Double(y) + 0.5) / s)) }
            }
        }
        switch self {
        case .notes:
            // Paper with ruled lines under a yellow band.
            let yellow = RGB(red: 0xFF, green: 0xCC, blue: 0x00), paper = RGB(red: 0xFB, green: 0xFA, blue: 0xF5)
            let rule = RGB(red: 0xC7, green: 0xC7, blue: 0xCC)
            paint { x, y in
                if y < 0.28 { return yellow }
                let line = (y - 0.28).truncatingRemainder(dividingBy: 0.14)
                return line > 0.125 && x > 0.12 && x < 0.88 ? rule : paper
            }
        case .markets:
            // A rising green line on black.
            let ink = RGB(red: 0x30, green: 0xD1, blue: 0x58), ground = RGB(red: 0x1C, green: 0x1C, blue: 0x1E)
            let points: [(Double, Double)] = [(0.12, 0.72), (0.35, 0.55), (0.52, 0.64), (0.7, 0.38), (0.88, 0.26)]
            paint { x, y in
                for i in 1..<points.count {
                    let (x0, y0) = points[i - 1], (x1, y1) = points[i]
                    guard x >= x0, x <= x1 else { continue }
                    let t = (x - x0) / (x1 - x0), ly = y0 + (y1 - y0) * t
                    if abs(y - ly) < 0.045 { return ink }
                }
                return ground
            }
        case .tv:
            // A white play triangle on black.
            paint { x, y in
                let inside = x > 0.36 && x < 0.7 && abs(y - 0.5) < (0.7 - x) * 0.62
                return inside ? RGB(red: 0xFF, green: 0xFF, blue: 0xFF) : RGB(red: 0x0A, green: 0x0A, blue: 0x0C)
            }
        case .pattern(let c):
            // Its colour with a white ring.
            paint { x, y in
                let r = ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)).squareRoot()
                return r > 0.22 && r < 0.3 ? RGB(red: 0xFF, green: 0xFF, blue: 0xFF) : c
            }
        }
    }
}

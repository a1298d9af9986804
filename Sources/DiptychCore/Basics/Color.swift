// SPDX-License-Identifier: MIT
// Colours and the demo-app names accepted on the command line (`pattern:#RRGGBB`, `notes`, `markets`).

/// An opaque 24-bit colour.
public struct RGB: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#RRGGBB` (the `#` is required; hex digits in either case).
    public init?(hex: String) {
        let u = Array(hex.utf8)
        guard u.count == 7, u[0] == UInt8(ascii: "#") else { return nil }
        var v: UInt32 = 0
        for b in u[1...] {
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: return nil
            }
            v = v << 4 | d
        }
        self.init(red: UInt8(v >> 16), green: UInt8((v >> 8) & 0xFF), blue: UInt8(v & 0xFF))
    }

    /// The colour as a 32-bit XRGB8888 / ARGB8888 word with full alpha.
    public var argb: UInt32 { 0xFF00_0000 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    /// This colour darkened to `share` (0…1) of its brightness (as drawn over black at that
    /// opacity).
    public func scaled(_ share: Double) -> RGB {
        func c(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, (Double(v) * share).rounded()))) }
        return RGB(red: c(red), green: c(green), blue: c(blue))
    }

    public var description: String {
        let digits = Array("0123456789ABCDEF")
        return "#" + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

/// A built-in demo app, as named by `APP` on the command line.
public enum DemoApp: Hashable, Sendable, CustomStringConvertible {
    case pattern(RGB)
    case notes
    case markets
    /// A video player: an animated picture, Picture in Picture when it goes to the background.
    case tv

    /// The text listing every valid app, for error messages.
    public static let validChoices = "pattern:#RRGGBB (e.g. pattern:#336699), notes, markets, tv"

    /// Parses an app name.
    public static func named(_ name: String) throws(DemoAppError) -> DemoApp {
        switch name {
        case "notes": return .notes
        case "markets": return .markets
        case "tv": return .tv
        default:
            guard name.hasPrefix("pattern:") else { throw .unknownApp(name) }
            let hex = String(name.dropFirst("pattern:".count))
            guard let rgb = RGB(hex: hex) else { throw .badColour(name, hex) }
            return .pattern(rgb)
        }
    }

    public var description: String {
        switch self {
        case .pattern(let c): "pattern:\(c)"
        case .notes: "notes"
        case .markets: "markets"
        case .tv: "tv"
        }
    }
}

/// Why an app name was refused. `description` is the message for the user.
public enum DemoAppError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownApp(String)
    case badColour(String, String)
    public var description: String {
        switch self {
        case .unknownApp(let n): "unknown app '\(n)'; valid apps: \(DemoApp.validChoices)"
        case .badColour(let n, let hex): "bad colour '\(hex)' in app '\(n)': expected pattern:#RRGGBB with six hex digits, e.g. pattern:#336699"
        }
    }
}

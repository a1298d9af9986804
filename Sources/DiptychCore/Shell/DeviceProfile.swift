// SPDX-License-Identifier: MIT
// Device profiles: screen size in points, scale, compact pane width, divider width.

/// The orientation of the logical screen.
public enum Orientation: String, Sendable, CaseIterable, Hashable {
    case landscape
    case portrait
}

/// A device the compositor lays out for: its landscape size in points and its scale.
///
/// `px = pt × scale`. Portrait swaps width and height.
public struct DeviceProfile: Hashable, Sendable {
    /// The name as given on the command line (`ipad`, `ipad-pro`, or `WxH@S`).
    public var name: String
    /// The screen size in points in landscape.
    public var landscapeSize: Size
    /// Pixels per point.
    public var scale: Int
    /// The width in points of a compact pane (Slide Over, the narrow side of a 2/3 split).
    public var compactWidth: Int
    /// The width in points of the Split View divider.
    public var dividerWidth: Int
    /// The narrowest pane, in points, that gets a regular horizontal size class.
    public var regularMinWidth: Int
    /// The shortest pane, in points, that gets a regular vertical size class.
    public var regularMinHeight: Int
    /// What the status bar calls the device (nil: nothing, as for a `WxH@S` screen).
    public var title: String? {
        switch name {
        case "ipad": "iPad"
        case "ipad-mini": "iPad mini"
        case "ipad-pro": "iPad Pro"
        default: nil
        }
    }

    public init(
        name: String, landscapeSize: Size, scale: Int, compactWidth: Int, dividerWidth: Int = 10,
        regularMinWidth: Int = 678, regularMinHeight: Int = 678
    ) {
        self.name = name
        self.landscapeSize = landscapeSize
        self.scale = scale
        self.compactWidth = compactWidth
        self.dividerWidth = dividerWidth
        self.regularMinWidth = regularMinWidth
        self.regularMinHeight = regularMinHeight
    }

    /// The built-in profiles, in the order they are listed to users.
    public static let builtIn: [DeviceProfile] = [
        DeviceProfile(name: "ipad", landscapeSize: Size(width: 1024, height: 768), scale: 2, compactWidth: 320),
        DeviceProfile(name: "ipad-mini", landscapeSize: Size(width: 1024, height: 768), scale: 2, compactWidth: 320),
        DeviceProfile(name: "ipad-pro", landscapeSize: Size(width: 1366, height: 1024), scale: 2, compactWidth: 375),
    ]

    /// The text listing every valid device, for error messages and help.
    public static let validChoices = "ipad, ipad-mini, ipad-pro, or WxH@S (pixels at an integer scale, e.g. 2732x2048@2)"

    /// Looks up a built-in profile or parses a custom `WxH@S` (pixels at scale S).
    ///
    /// A custom profile's size is taken as landscape (the longer side is the width); its compact
    /// width is 375 pt when the landscape width is at least 1180 pt (iPad Air 10.9″, iPad Pro 11″
    /// and 12.9″), else 320 pt (iPad, iPad mini, 10.5″).
    public static func named(_ name: String) throws(ProfileError) -> DeviceProfile {
        if let profile = builtIn.first(where: { $0.name == name }) { return profile }
        guard let at = name.firstIndex(of: "@"), name[..<at].contains("x") else { throw .unknownDevice(name) }
        guard let s = Int(name[name.index(after: at)...]) else { throw .unknownDevice(name) }
        guard let pixels = Size(parsing: name[..<at]) else { throw .badCustom(name, "each side must be from 1 to 16384 pixels") }
        let w = pixels.width, h = pixels.height
        guard s >= 1, s <= 8 else { throw .badCustom(name, "the scale must be a whole number from 1 to 8") }
        guard w % s == 0, h % s == 0 else {
            throw .badCustom(name, "each side must be a whole number of points (divisible by the scale \(s))")
        }
        let size = Size(width: max(w, h) / s, height: min(w, h) / s)
        guard size.height >= 100 else { throw .badCustom(name, "the screen must be at least 100 points on each side") }
        return DeviceProfile(
            name: name, landscapeSize: size, scale: s, compactWidth: size.width >= 1180 ? 375 : 320)
    }

    /// `native`: a panel of `panel` pixels as it is, and the orientation that fills it. Scale 2
    /// when the connector's physical size says at least 190 dpi and the panel is then still at
    /// least 1024 points wide (its longer side), else 1.
    public static func native(panel: Size, millimetres: Size?) -> (DeviceProfile, Orientation) {
        let long = max(panel.width, panel.height), short = min(panel.width, panel.height)
        var scale = 1
        if let mm = millimetres, mm.width > 0, Double(panel.width) / (Double(mm.width) / 25.4) >= 190, long / 2 >= 1024, long % 2 == 0, short % 2 == 0 {
            scale = 2
        }
        var profile = (try? named("\(long)x\(short)@\(scale)")) ?? builtIn[0]
        profile.name = "native"
        return (profile, panel.width >= panel.height ? .landscape : .portrait)
    }

    /// The screen size in points in the given orientation.
    public func screenSize(_ orientation: Orientation) -> Size {
        switch orientation {
        case .landscape: landscapeSize
        case .portrait: Size(width: landscapeSize.height, height: landscapeSize.width)
        }
    }

    /// The screen size in pixels in the given orientation (the logical screen).
    public func pixelSize(_ orientation: Orientation) -> Size {
        let pt = screenSize(orientation)
        return Size(width: pt.width * scale, height: pt.height * scale)
    }

    /// This profile with the user's overrides applied and checked.
    ///
    /// - Throws: `ProfileError.badOverride` when a value is out of range.
    public func overriding(
        compactWidth: Int? = nil, dividerWidth: Int? = nil, regularMinWidth: Int? = nil
    ) throws(ProfileError) -> DeviceProfile {
        var p = self
        if let d = dividerWidth {
            guard (1...200).contains(d) else { throw .badOverride("--divider-width", d, "must be from 1 to 200 pt") }
            p.dividerWidth = d
        }
        if let c = compactWidth {
            guard c >= 1 else { throw .badOverride("--compact-width", c, "must be at least 1 pt") }
            p.compactWidth = c
        }
        if let r = regularMinWidth {
            guard r >= 1 else { throw .badOverride("--regular-min-width", r, "must be at least 1 pt") }
            p.regularMinWidth = r
        }
        return p
    }
}

/// Why a device name or override was refused. `description` is the message for the user.
public enum ProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownDevice(String)
    case badCustom(String, String)
    case badOverride(String, Int, String)

    public var description: String {
        switch self {
        case .unknownDevice(let name):
            "unknown device '\(name)'; valid devices: \(DeviceProfile.validChoices)"
        case .badCustom(let name, let why):
            "bad custom device '\(name)': \(why)"
        case .badOverride(let flag, let value, let why):
            "bad \(flag) \(value): \(why)"
        }
    }
}

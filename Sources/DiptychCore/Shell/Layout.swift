// SPDX-License-Identifier: MIT
// The layout engine: arrangements, pane frames, the divider and size classes.
// This is the "shell" in Weston's sense: policy only, no mechanism.

/// How the two apps share the screen.
public enum Arrangement: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    /// As the command line and the JSON spell it (`split-2/3`, not the case name).
    public var description: String { rawValue }
    /// The primary alone, full screen.
    case full
    /// The primary full screen, the secondary floating over its right edge at the compact width.
    case slideOver = "slide-over"
    /// Split View: the primary takes what the compact secondary leaves.
    case split23 = "split-2/3"
    /// Split View, half and half (landscape only).
    case split12 = "split-1/2"

    /// Whether the secondary pane is shown.
    public var showsSecondary: Bool { self != .full }
    /// Whether there is a divider between the panes.
    public var isSplit: Bool { self == .split23 || self == .split12 }

    /// The text listing every valid arrangement, for error messages.
    public static let validChoices = allCases.map(\.rawValue).joined(separator: ", ")

    /// Parses an arrangement name, naming the valid choices on failure.
    public static func named(_ name: String) throws(LayoutError) -> Arrangement {
        guard let a = Arrangement(rawValue: name) else { throw .unknownArrangement(name) }
        return a
    }

    /// What is actually shown in an orientation: a remembered `split-1/2` shows as `split-2/3`
    /// in portrait, and comes back when rotated to landscape.
    public func shown(in orientation: Orientation) -> Arrangement {
        self == .split12 && orientation == .portrait ? .split23 : self
    }
}

/// A size class, as iPadOS reports it per axis.
public enum SizeClass: String, Sendable, CaseIterable, Hashable {
    case compact
    case regular
}

/// Which app a pane holds.
public enum Role: String, Sendable, CaseIterable, Hashable {
    case primary
    case secondary
}

/// The divider of a Split View, in points.
public struct Divider: Hashable, Sendable {
    public var x: Int
    public var width: Int
    public init(x: Int, width: Int) {
        self.x = x
        self.width = width
    }
    public var json: JSONValue { .object([("x", .int(x)), ("width", .int(width))]) }
}

/// One shown pane: its frame in points, its pixel size and its size classes.
public struct Pane: Hashable, Sendable {
    public var role: Role
    /// The frame in points, origin at the top-left of the logical screen.
    public var frame: Rect
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var horizontalSizeClass: SizeClass
    public var verticalSizeClass: SizeClass

    public init(role: Role, frame: Rect, pixelWidth: Int, pixelHeight: Int, horizontalSizeClass: SizeClass, verticalSizeClass: SizeClass) {
        self.role = role
        self.frame = frame
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.horizontalSizeClass = horizontalSizeClass
        self.verticalSizeClass = verticalSizeClass
    }

    public var json: JSONValue {
        .object([
            ("role", .string(role.rawValue)), ("frame", frame.json),
            ("pixelWidth", .int(pixelWidth)), ("pixelHeight", .int(pixelHeight)),
            ("horizontalSizeClass", .string(horizontalSizeClass.rawValue)),
            ("verticalSizeClass", .string(verticalSizeClass.rawValue)),
        ])
    }
}

/// A complete layout of the logical screen.
public struct Layout: Hashable, Sendable {
    public var profile: DeviceProfile
    public var orientation: Orientation
    public var arrangement: Arrangement
    /// The screen in points in this orientation.
    public var screen: Size
    public var divider: Divider?
    /// The shown panes, primary first.
    public var panes: [Pane]

    /// The pane with the given role, if shown.
    public func pane(_ role: Role) -> Pane? { panes.first { $0.role == role } }

    /// The JSON form printed by `diptych layout --json` (keys binding).
    public var json: JSONValue {
        .object([
            ("device", .string(profile.name)),
            ("orientation", .string(orientation.rawValue)),
            ("screen", .object([("width", .int(screen.width)), ("height", .int(screen.height)), ("scale", .int(profile.scale))])),
            ("arrangement", .string(arrangement.rawValue)),
            ("divider", divider?.json ?? .null),
            ("panes", .array(panes.map(\.json))),
        ])
    }

    /// A short human-readable table, as `diptych layout` prints without `--json`.
    public var text: String {
        var lines = [
            "\(profile.name) \(orientation.rawValue) \(screen.width)x\(screen.height) pt @\(profile.scale)x, \(arrangement.rawValue)"
        ]
        for p in panes {
            lines.append(
                "  \(p.role.rawValue): x \(p.frame.x) pt, \(p.frame.width)x\(p.frame.height) pt (\(p.pixelWidth)x\(p.pixelHeight) px), \(p.horizontalSizeClass.rawValue) x \(p.verticalSizeClass.rawValue)"
            )
        }
        if let d = divider { lines.append("  divider: x \(d.x) pt, \(d.width) pt wide") }
        return lines.joined(separator: "\n")
    }
}

/// Why a layout was refused. `description` is the message for the user.
public enum LayoutError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownArrangement(String)
    case unknownOrientation(String)
    case splitHalfInPortrait

    public var description: String {
        switch self {
        case .unknownArrangement(let a):
            "unknown arrangement '\(a)'; valid arrangements: \(Arrangement.validChoices)"
        case .unknownOrientation(let o):
            "unknown orientation '\(o)'; valid orientations: landscape, portrait"
        case .splitHalfInPortrait:
            "arrangement 'split-1/2' exists in landscape only; in portrait use full, slide-over or split-2/3"
        }
    }
}

/// Computes layouts. Pure: the same inputs always give the same layout.
public enum LayoutEngine {
    /// The size classes of a pane of the given size in points.
    public static func sizeClasses(width: Int, height: Int, profile: DeviceProfile) -> (SizeClass, SizeClass) {
        (width >= profile.regularMinWidth ? .regular : .compact,
         height >= profile.regularMinHeight ? .regular : .compact)
    }

    /// How far a Slide Over is inset from the top and the bottom of the screen, in points (the
    /// status bar's height: the bar is never drawn over it).
    public static let slideOverInset = 20

    /// The width of the secondary's compact pane on a screen `screenWidth` points wide: the
    /// profile's compact width, but never more than half of what the divider leaves.
    public static func compactWidth(screenWidth: Int, profile: DeviceProfile) -> Int {
        min(profile.compactWidth, (screenWidth - profile.dividerWidth) / 2)
    }

    /// Lays out `arrangement` exactly as requested.
    ///
    /// - Throws: `LayoutError.splitHalfInPortrait` for `split-1/2` in portrait. A live session
    ///   that rotates uses `Arrangement.shown(in:)` first, so it never throws.
    public static func layout(
        profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement
    ) throws(LayoutError) -> Layout {
        if arrangement == .split12 && orientation == .portrait { throw .splitHalfInPortrait }
        return build(profile: profile, orientation: orientation, arrangement: arrangement)
    }

    /// Lays out what `arrangement` shows in `orientation` (`Arrangement.shown(in:)`): a
    /// remembered `split-1/2` lays out as `split-2/3` in portrait. Never fails.
    public static func shownLayout(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement) -> Layout {
        build(profile: profile, orientation: orientation, arrangement: arrangement.shown(in: orientation))
    }

    /// `split-1/2` here is landscape (or the caller's explicit choice), so nothing can fail.
    private static func build(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement) -> Layout {
        let screen = profile.screenSize(orientation)
        let w = screen.width, h = screen.height, d = profile.dividerWidth
        let c = compactWidth(screenWidth: w, profile: profile)

        func pane(_ role: Role, x: Int, width: Int, inset: Int = 0) -> Pane {
            let height = h - 2 * inset
            let (hc, vc) = sizeClasses(width: width, height: height, profile: profile)
            return Pane(
                role: role, frame: Rect(x: x, y: inset, width: width, height: height),
                pixelWidth: width * profile.scale, pixelHeight: height * profile.scale,
                horizontalSizeClass: hc, verticalSizeClass: vc)
        }

        var panes: [Pane] = []
        var divider: Divider?
        switch arrangement {
        case .full:
            panes = [pane(.primary, x: 0, width: w)]
        case .slideOver:
            // The Slide Over floats below the status bar: inset from the top and the bottom.
            panes = [pane(.primary, x: 0, width: w), pane(.secondary, x: w - c, width: c, inset: slideOverInset)]
        case .split23:
            let pw = w - d - c
            panes = [pane(.primary, x: 0, width: pw), pane(.secondary, x: w - c, width: c)]
            divider = Divider(x: pw, width: d)
        case .split12:
            let pw = (w - d) / 2
            panes = [pane(.primary, x: 0, width: pw), pane(.secondary, x: pw + d, width: w - pw - d)]
            divider = Divider(x: pw, width: d)
        }
        return Layout(
            profile: profile, orientation: orientation, arrangement: arrangement, screen: screen,
            divider: divider, panes: panes)
    }
}

extension Orientation {
    /// Parses an orientation name, naming the valid choices on failure.
    public static func named(_ name: String) throws(LayoutError) -> Orientation {
        guard let o = Orientation(rawValue: name) else { throw .unknownOrientation(name) }
        return o
    }
}

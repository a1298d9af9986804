// SPDX-License-Identifier: MIT
// The chrome's look: the colours and sizes of the divider, a Slide Over's edges, the grabber
// and the cursor, in points unless said otherwise.

/// The chrome's look, in points unless said otherwise.
public enum ChromeStyle {
    /// The divider: dark, with a light rounded handle centred on it.
    public static let dividerColor = RGB(red: 0x1C, green: 0x1C, blue: 0x1E)
    public static let handleColor = RGB(red: 0xD1, green: 0xD1, blue: 0xD6)
    public static let handleSize = Size(width: 4, height: 40)
    /// A Slide Over's corner radius, shadow width and darkest shadow (at its edge).
    public static let cornerRadius = 10
    public static let shadowWidth = 16
    public static let shadowAlpha = 0.32
    /// The dark bar along a Slide Over's left edge, and its handle's height.
    public static let edgeBarWidth = 6
    public static let edgeHandleHeight = 36
    /// The grabber: a small pill at the Slide Over's top centre.
    public static let grabberSize = Size(width: 36, height: 5)
    public static let grabberTop = 6
    public static let grabberColor = RGB(red: 0x8E, green: 0x8E, blue: 0x93)
    /// The pointer: a translucent grey disc, as iPadOS's.
    public static let cursorColor = RGB(red: 0x3C, green: 0x3C, blue: 0x43)
    public static let cursorAlpha: UInt8 = 0x8C
    public static let grabberAlpha = 0.9
    /// A placeholder's tile when the app's colour is unknown, and its name's size.
    public static let neutralTile = RGB(red: 0x8E, green: 0x8E, blue: 0x93)
    public static let labelPoints = 17
    /// An app's icon on its placeholder or its blurred picture: its side, the least margin
    /// around it, and its corners' radius (iOS's home-screen icon proportions).
    public static let iconPoints = 60
    public static let iconMargin = 8
    public static let iconCornerRadius = 13
    /// A Picture in Picture window's corner radius, and its shadow's reach and darkness.
    public static let pipCornerRadius = 10
    public static let pipShadowRadius = 14
    public static let pipShadowAlpha = 0.35
    /// How dark a window gets under its controls, and a stashed window's tab.
    public static let pipScrimAlpha = 0.35
    public static let pipTabAlpha = 0.6
    /// The tab's chevron (points).
    public static let pipChevron = 14
}

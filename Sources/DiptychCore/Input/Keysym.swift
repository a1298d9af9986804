// SPDX-License-Identifier: MIT
// The keysyms the compositor itself acts on (xkbcommon's values, as `xkbcommon-keysyms.h`
// defines them): its shortcuts and the VT switches.

/// Keysyms by name.
public enum Keysym {
    public static let backslash: UInt32 = 0x5C
    public static let left: UInt32 = 0xFF51
    public static let right: UInt32 = 0xFF53
    /// XF86Switch_VT_1…12: what Ctrl+Alt+F1…F12 give in the standard keymaps.
    public static let switchVT = UInt32(0x1008_FE01)...UInt32(0x1008_FE0C)
}

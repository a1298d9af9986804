// SPDX-License-Identifier: MIT
// The keysyms the compositor itself acts on (xkbcommon's values, as `xkbcommon-keysyms.h`
// defines them): its shortcuts and the VT switches.

/// Keysyms by name.
public enum Keysym {
    public static let space: UInt32 = 0x20
    public static let backslash: UInt32 = 0x5C
    public static let backSpace: UInt32 = 0xFF08
    public static let tab: UInt32 = 0xFF09
    public static let `return`: UInt32 = 0xFF0D
    public static let left: UInt32 = 0xFF51
    public static let up: UInt32 = 0xFF52
    public static let right: UInt32 = 0xFF53
    public static let down: UInt32 = 0xFF54
    public static let keypadEnter: UInt32 = 0xFF8D
    public static let delete: UInt32 = 0xFFFF
    /// The keys that edit text without typing it (a hardware keyboard's, for the shortcut bar).
    public static let editing: Set<UInt32> = [backSpace, tab, `return`, keypadEnter, delete, left, up, right, down]
    /// XF86Switch_VT_1…12: what Ctrl+Alt+F1…F12 give in the standard keymaps.
    public static let switchVT = UInt32(0x1008_FE01)...UInt32(0x1008_FE0C)
}

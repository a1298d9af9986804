// SPDX-License-Identifier: MIT
// What an app needs with `import DiptychClient` alone: the protocol's messages and events, and
// the geometry, traits and input types they carry.

@_exported import DiptychWire
@_exported import enum DiptychCore.Arrangement
@_exported import enum DiptychCore.LifecycleEvent
@_exported import enum DiptychCore.Orientation
@_exported import enum DiptychCore.PenPhase
@_exported import enum DiptychCore.PenTool
@_exported import enum DiptychCore.ReturnKey
@_exported import enum DiptychCore.Role
@_exported import enum DiptychCore.SizeClass
@_exported import enum DiptychCore.StatusBarStyle
@_exported import enum DiptychCore.TextPurpose
@_exported import enum DiptychCore.TouchPhase
@_exported import struct DiptychCore.EdgeInsets
@_exported import struct DiptychCore.KeyboardFrame
@_exported import struct DiptychCore.Pane
@_exported import struct DiptychCore.PenButtons
@_exported import struct DiptychCore.Rect
@_exported import struct DiptychCore.Size
@_exported import struct DiptychCore.TextHints
@_exported import struct DiptychCore.TextInputState

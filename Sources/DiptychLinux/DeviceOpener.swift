// SPDX-License-Identifier: MIT
// Who opens device nodes (the card, input devices): a seat manager for an ordinary user, or
// plain `open` as root.

/// Opens and closes device nodes for the DRM and input backends.
public protocol DeviceOpener: AnyObject {
    /// Opens `path` (read-write), close-on-exec; the descriptor, or a negated errno.
    func openDevice(_ path: String) -> Int32
    /// Closes a descriptor `openDevice` returned.
    func closeDevice(_ fd: Int32)
}

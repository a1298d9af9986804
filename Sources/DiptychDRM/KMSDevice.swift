// SPDX-License-Identifier: MIT
// The seam between the KMS backend and the kernel: a small protocol, implemented by libdrm
// (`LibdrmDevice`) and by a fake in tests that records the call sequence.

import DiptychCore
import DiptychImage

/// A dumb buffer mapped for drawing, with its framebuffer.
public struct ScanoutBuffer {
    public var handle: UInt32
    public var framebuffer: UInt32
    /// The mapped pixels (XRGB8888, the buffer's pitch).
    public var image: PixelImage
    public init(handle: UInt32, framebuffer: UInt32, image: PixelImage) {
        self.handle = handle
        self.framebuffer = framebuffer
        self.image = image
    }
}

/// What the KMS backend needs from a card. Call on the compositor's thread.
public protocol KMSDevice: AnyObject {
    /// The descriptor to poll for page-flip events.
    var descriptor: Int32 { get }
    /// Takes DRM master; fails when another compositor or display manager holds it.
    func becomeMaster() throws
    func dropMaster()
    func resources() throws -> KMSResources
    func connector(_ id: UInt32) throws -> ConnectorInfo
    /// Whether the connector is connected now, from the kernel's current state (no probe, so
    /// cheap enough to poll).
    func isConnected(_ id: UInt32) -> Bool
    func encoder(_ id: UInt32) throws -> EncoderInfo
    /// The CRTC's current state, kept to restore on exit.
    func saveCRTC(_ id: UInt32) throws -> CRTCState
    /// A mapped XRGB8888 dumb buffer with a framebuffer on it.
    func createScanoutBuffer(width: Int, height: Int) throws -> ScanoutBuffer
    func destroyScanoutBuffer(_ buffer: ScanoutBuffer)
    /// Sets the mode (by index in the connector's list) and shows `framebuffer`.
    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, connector: UInt32, modeIndex: Int) throws
    /// Puts back a saved CRTC state (the mode saved with it).
    func restoreCRTC(_ state: CRTCState, connector: UInt32) throws
    /// Queues a flip to `framebuffer` at the next vblank, with an event carrying `token`.
    func pageFlip(_ crtc: UInt32, framebuffer: UInt32, token: UInt64) throws
    /// Reads pending events; returns the tokens of completed flips with their times (monotonic ns).
    func readEvents() -> [(token: UInt64, time: UInt64)]

    // MARK: The cursor plane (optional: a driver without one says false)

    /// A mapped ARGB8888 dumb buffer of `size` × `size` pixels for the cursor: its handle and
    /// its pixels (premultiplied).
    func createCursorBuffer(size: Int) throws -> (handle: UInt32, image: PixelImage)
    /// Shows the cursor buffer `handle` (nil: hides the cursor) on `crtc` with its hotspot;
    /// false when the driver has no cursor plane.
    func setCursor(_ crtc: UInt32, handle: UInt32?, size: Int, hotspot: (x: Int, y: Int)) -> Bool
    /// Moves the cursor's hotspot to `x`, `y` of the CRTC: no frame is drawn.
    func moveCursor(_ crtc: UInt32, x: Int, y: Int) -> Bool

    // MARK: Atomic modesetting (optional: `enableAtomic` false means legacy only)

    /// Asks for atomic modesetting and universal planes; false when the driver has neither.
    func enableAtomic() -> Bool
    /// The primary plane that can scan out on `crtc`, if any.
    func primaryPlane(for crtc: UInt32) throws -> UInt32?
    /// An atomic modeset: connector → CRTC with the mode, the plane showing `framebuffer`
    /// full screen. With `testOnly` the kernel only checks it.
    func atomicModeset(crtc: UInt32, connector: UInt32, plane: UInt32, framebuffer: UInt32, modeIndex: Int, size: Size, testOnly: Bool) throws
    /// An atomic flip of the plane to `framebuffer`, with damage clips if the plane takes them,
    /// and an event carrying `token`.
    func atomicFlip(plane: UInt32, framebuffer: UInt32, damage: [Rect]?, token: UInt64) throws
    /// Turns `crtc` off keeping its mode (DPMS off: atomic `ACTIVE` 0 when `atomic`, else the
    /// connector's legacy `DPMS` property); it comes back on with the next modeset.
    func powerOff(crtc: UInt32, connector: UInt32, atomic: Bool) throws
}

extension KMSDevice {
    public func powerOff(crtc: UInt32, connector: UInt32, atomic: Bool) throws { throw KMSError("this device cannot turn a CRTC off") }
}

/// Why the KMS backend could not start or continue. `description` says what it looked for.
public struct KMSError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

// SPDX-License-Identifier: MIT
// Where frames go: the output backend interface and the headless backend.

import DiptychCore
import DiptychLinux

/// An output the compositor draws frames for. The renderer never knows which backend it draws
/// for (Weston's backend/renderer split); the compositor only asks for a buffer and presents it.
public protocol OutputBackend: AnyObject {
    /// The output's size in pixels.
    var size: Size { get }
    /// The buffer to draw the next frame into. Valid until `present`.
    func beginFrame() -> PixelImage
    /// Shows the frame drawn into the buffer from `beginFrame`, of which `damage` (nil: all)
    /// changed; returns when it was shown or queued (milliseconds on the monotonic clock).
    func present(damage: Region?) -> UInt64
    /// Whether a new frame can be presented now (false while a page flip is pending).
    var readyForFrame: Bool { get }
    /// The last frame presented, for captures.
    var lastFrame: PixelImage { get }
    /// A descriptor to poll for the backend's events (page flips), if it has one.
    var eventDescriptor: Int32? { get }
    /// Handles the backend's events; called when `eventDescriptor` is readable.
    func dispatch()
}

extension OutputBackend {
    public var eventDescriptor: Int32? { nil }
    public func dispatch() {}
}

/// An output in memory: frames are kept, and written to PNG on request. Presents at once
/// (refresh on demand, as Weston's headless backend with refresh 0).
public final class HeadlessBackend: OutputBackend {
    public let size: Size
    private let image: PixelImage

    /// An output of `size` pixels, black until the first frame.
    public init(size: Size) {
        self.size = size
        image = PixelImage(width: size.width, height: size.height)
    }

    public func beginFrame() -> PixelImage { image }
    public func present(damage: Region?) -> UInt64 { MonotonicClock.milliseconds }
    public var readyForFrame: Bool { true }
    public var lastFrame: PixelImage { image }

    /// Writes the last frame as PNG, atomically.
    public func capture(to path: String) throws(PNGError) { try image.writePNG(to: path) }
}

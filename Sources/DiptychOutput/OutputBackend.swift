// SPDX-License-Identifier: MIT
// Where frames go: the output backend interface and the headless backend.

import DiptychCore
import DiptychImage
import DiptychLinux

/// What became of a frame given to `present`.
public enum PresentResult: Equatable, Sendable {
    /// Shown, or queued to be shown at the next refresh (milliseconds, monotonic clock).
    case presented(time: UInt64)
    /// Not shown (the output is away, or the flip failed): its damage must be repainted.
    case dropped
}

/// Something an output reports from its descriptors or its periodic check.
public enum OutputEvent: Equatable, Sendable {
    /// The last frame reached the screen at the vblank `nanoseconds` (a page flip completed,
    /// with the kernel's timestamp; or the simulated vblank of a headless output; monotonic
    /// clock): the output takes another.
    case frameDone(nanoseconds: UInt64)
    /// The output went away: frames are dropped until it returns.
    case disconnected
    /// The output came back with what it shows lost: the next frame repaints everything.
    case reconnected
    /// The card's connectors may have changed (a hotplug uevent): another output may have come.
    case connectorsChanged
}

/// An output the compositor draws frames for. The renderer never knows which backend it draws
/// for (Weston's backend/renderer split); the server asks for a buffer, presents it, and
/// learns from the backend's events when it may draw the next one.
public protocol OutputBackend: AnyObject {
    /// The output's size in pixels.
    var size: Size { get }
    /// The buffer to draw the next frame into, with its age. Valid until `present`; draw into
    /// it only once `readyForFrame`.
    func beginFrame() -> FrameTarget
    /// Shows the frame drawn into the buffer from `beginFrame`, of which `damage` (nil: all)
    /// changed since the frame on screen.
    func present(damage: Region?) -> PresentResult
    /// Whether a new frame can be presented now (false while a page flip is pending or the
    /// output is away).
    var readyForFrame: Bool { get }
    /// Whether the output is there at all (a panel can be unplugged).
    var isConnected: Bool { get }
    /// The last frame drawn, for captures.
    var lastFrame: PixelImage { get }
    /// Descriptors to poll for the backend's events (page flips, hotplug).
    var eventDescriptors: [Int32] { get }
    /// Handles what `descriptor` has to say; called when it is readable.
    func dispatch(_ descriptor: Int32) -> [OutputEvent]
    /// How often (milliseconds) `poll` wants to run, if at all.
    var pollInterval: UInt64? { get }
    /// A periodic check for what raises no event (a connector that changed silently).
    func poll() -> [OutputEvent]
    /// Gives the output a new size; false when its size is not the compositor's to choose (a
    /// panel). A headless output follows the logical screen when it is not emulating a panel.
    func resize(to size: Size) -> Bool
    /// The refresh rate in millihertz (a panel's mode; 60 Hz for an output in memory).
    var refreshMillihertz: Int { get }
    /// Whether a presented frame reaches the screen later, told by a `frameDone` event with
    /// its time (a page flip); false when `present` shows it at once.
    var reportsPresentation: Bool { get }
    /// Shows `image` (premultiplied ARGB, at most `cursorSize` square) as the cursor, its
    /// `hotspot` at the point `moveCursor` gives; nil hides it. False when the output has no
    /// cursor plane (the compositor then draws the cursor into its frames).
    func setCursor(_ image: PixelImage?, hotspot: (x: Int, y: Int)) -> Bool
    /// Moves the cursor's hotspot to `x`, `y` of the output: nothing is drawn.
    func moveCursor(x: Int, y: Int)
    /// The side of the square a cursor image may have (0: no cursor plane).
    var cursorSize: Int { get }
    /// Turns the output off (the panel sleeps; no frames are shown until it is on again) or
    /// on (the last frame shows, and the next repaints everything); false when it cannot be
    /// turned off (a blank screen then shows black frames).
    func setPowered(_ on: Bool) -> Bool
}

extension OutputBackend {
    public func setCursor(_ image: PixelImage?, hotspot: (x: Int, y: Int)) -> Bool { false }
    public func moveCursor(x: Int, y: Int) {}
    public var cursorSize: Int { 0 }
    public func setPowered(_ on: Bool) -> Bool { false }
    public var isConnected: Bool { true }
    public var eventDescriptors: [Int32] { [] }
    public func dispatch(_ descriptor: Int32) -> [OutputEvent] { [] }
    public var pollInterval: UInt64? { nil }
    public func poll() -> [OutputEvent] { [] }
    public func resize(to size: Size) -> Bool { false }
    public var refreshMillihertz: Int { 60_000 }
    public var reportsPresentation: Bool { false }
}

/// An output in memory: frames are kept, and written to PNG on request. Presents at once
/// (refresh on demand, as Weston's headless backend with refresh 0), or, with a refresh rate,
/// at a simulated vblank on the monotonic clock: a frame presented is shown at the next vblank,
/// told by a `frameDone` event then, and the output takes no other frame before it (as a page
/// flip). With `scanout`, frames go into two buffers shown in turn through a `SwapChain`, as on
/// a KMS output (what `profile --present scanout` measures).
public final class HeadlessBackend: OutputBackend {
    public private(set) var size: Size
    /// The simulated vblank, if any, and the vblank the frame presented last waits for.
    private let vblank: SimulatedVblank?
    private var flipAt: UInt64?
    public let refreshMillihertz: Int
    /// One image that always holds the last frame, or buffers shown in turn.
    private enum Buffers {
        case single(PixelImage)
        case chain(SwapChain)
    }
    private var buffers: Buffers

    /// An output of `size` pixels that presents at once, black until the first frame.
    public init(size: Size, scanout: Bool = false) {
        self.size = size
        buffers = Self.buffers(size, scanout: scanout)
        refreshMillihertz = 60_000
        vblank = nil
    }

    /// An output of `size` pixels whose frames are shown at a simulated vblank of
    /// `refreshMillihertz`, the first at the time it is made.
    public init(size: Size, scanout: Bool = false, refreshMillihertz: Int) throws(SystemError) {
        self.size = size
        buffers = Self.buffers(size, scanout: scanout)
        self.refreshMillihertz = max(1, refreshMillihertz)
        vblank = try SimulatedVblank(period: 1_000_000_000_000 / UInt64(self.refreshMillihertz))
    }

    /// The next simulated vblank after `time` (nanoseconds), if there is a simulated vblank.
    public func nextVblank(after time: UInt64) -> UInt64? {
        guard let v = vblank, time >= v.origin else { return vblank?.origin }
        return v.origin + ((time - v.origin) / v.period + 1) * v.period
    }

    public var eventDescriptors: [Int32] { vblank.map { [$0.timer.fd.rawValue] } ?? [] }
    public var reportsPresentation: Bool { vblank != nil }

    /// The simulated vblank came: the frame waiting for it is on screen.
    public func dispatch(_ descriptor: Int32) -> [OutputEvent] {
        guard let v = vblank, descriptor == v.timer.fd.rawValue else { return [] }
        _ = v.timer.acknowledge()
        guard let at = flipAt, MonotonicClock.nanoseconds >= at else { return [] }
        flipAt = nil
        return [.frameDone(nanoseconds: at)]
    }

    private static func buffers(_ size: Size, scanout: Bool) -> Buffers {
        scanout ? .chain(SwapChain(size: size)) : .single(PixelImage(width: size.width, height: size.height))
    }

    /// The one image (always one frame old), or the chain's back buffer.
    public func beginFrame() -> FrameTarget {
        switch buffers {
        case .single(let image): FrameTarget(image: image, age: 1)
        case .chain(let chain): chain.target()
        }
    }

    public func present(damage: Region?) -> PresentResult {
        if case .chain(let chain) = buffers { chain.presented() }
        let now = MonotonicClock.nanoseconds
        guard let v = vblank, let at = nextVblank(after: now) else { return .presented(time: now / 1_000_000) }
        flipAt = at
        do { try v.timer.arm(atNanoseconds: at) } catch { flipAt = nil }
        return .presented(time: at / 1_000_000)
    }
    public var readyForFrame: Bool { flipAt == nil }
    public var lastFrame: PixelImage {
        switch buffers {
        case .single(let image): image
        case .chain(let chain): chain.buffers[chain.front]
        }
    }

    /// New black buffers of `size`.
    public func resize(to size: Size) -> Bool {
        self.size = size
        switch buffers {
        case .chain:
            buffers = Self.buffers(size, scanout: true)
        case .single(let image):
            // Turned (as many pixels): the same memory, its pages already faulted in.
            buffers = image.reshaped(width: size.width, height: size.height).map { .single($0) } ?? Self.buffers(size, scanout: false)
        }
        return true
    }

    /// Writes the last frame as PNG, atomically.
    public func capture(to path: String) throws(PNGError) { try lastFrame.writePNG(to: path) }
}

/// A vblank on the monotonic clock: every `period` nanoseconds from when it was made, with a
/// timer to wake the loop at the one a frame waits for.
final class SimulatedVblank {
    let period: UInt64
    let origin = MonotonicClock.nanoseconds
    let timer: TimerDescriptor

    init(period: UInt64) throws(SystemError) {
        self.period = period
        timer = try TimerDescriptor()
    }
}

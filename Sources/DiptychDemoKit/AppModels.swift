// SPDX-License-Identifier: MIT
// The demo apps' state and drawing: what every model answers, and pattern (stateless); notes and
// markets have files of their own.

import DiptychCore
import DiptychImage
import DiptychWire

/// What an app knows about the surface it draws: pixel size, points-to-pixels scale and the
/// horizontal size class.
public struct Canvas: Sendable, Equatable {
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var scale: Int
    public var horizontalSizeClass: SizeClass

    public init(pixelWidth: Int, pixelHeight: Int, scale: Int, horizontalSizeClass: SizeClass) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = max(1, scale)
        self.horizontalSizeClass = horizontalSizeClass
    }

    var widthPoints: Double { Double(pixelWidth) / Double(scale) }

    /// The canvas of a pane: its pixel size, with the scale derived from its width in points.
    public init(frame: Rect, pixelWidth: Int, pixelHeight: Int, horizontalSizeClass: SizeClass) {
        self.init(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: frame.width > 0 ? pixelWidth / frame.width : 1, horizontalSizeClass: horizontalSizeClass)
    }

    /// The canvas a configure asks for.
    public init(_ c: Configure) {
        self.init(frame: c.frame, pixelWidth: c.pixelWidth, pixelHeight: c.pixelHeight, horizontalSizeClass: c.horizontalSizeClass)
    }
}

/// A demo app: input in pane-local points changes its state; it draws any canvas from that
/// state, so a snapshot at another size shows the same content.
public protocol DemoModel {
    /// Handles a touch; returns whether the app must redraw.
    mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool
    /// Handles a pen sample; returns whether the app must redraw.
    mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool
    /// The live canvas changed (a configure).
    mutating func resized(to canvas: Canvas)
    func draw(_ image: PixelImage, canvas: Canvas)
    /// A digest of everything the user made or chose, logged with `didBecomeActive`.
    var stateDigest: String { get }
    /// The status bar text it reads best under (asked for while it is the primary).
    var preferredStatusBarStyle: StatusBarStyle { get }
    /// Whether it plays a moving picture (then `play(at:)` moves it on the compositor's clock).
    var plays: Bool { get }
    /// Moves the picture to `time` (ms); returns whether it changed.
    mutating func play(at time: UInt64) -> Bool
    /// Whether the picture plays in a Picture in Picture window.
    var inPictureInPicture: Bool { get set }
    /// Draws the Picture in Picture window's buffer (or the second screen's).
    func drawPictureInPicture(_ image: PixelImage)
    /// Whether the picture plays on the second screen.
    var onSecondScreen: Bool { get set }
    /// Whether the picture is paused (from the Picture in Picture window's controls).
    var paused: Bool { get set }
    /// Handles a key of the app's (it has the keyboard focus): the keysym, the text it types,
    /// and whether it went down, came up or repeated; returns whether the app must redraw.
    mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool
    /// Handles the pointer in pane points beyond what the runner makes of it (its left button
    /// is a finger to every app): `button` (`pressed`) for a button, `dx`, `dy` for a scroll;
    /// returns whether the app must redraw.
    mutating func pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, canvas: Canvas) -> Bool
    /// The text field taking text now, if any (the runner tells the compositor when it changes).
    var textField: TextInputState? { get }
    /// Text the on-screen keyboard typed into the field; returns whether the app must redraw.
    mutating func commit(text: String) -> Bool
    /// The app lost the keyboard focus (its field stops taking text).
    mutating func lostKeyboardFocus() -> Bool
    /// Where the on-screen keyboard will be (`keyboardFrame`); returns whether the app must redraw.
    mutating func keyboard(_ frame: KeyboardFrame) -> Bool
}

/// The keysyms the demo apps read (xkbcommon's values).
enum Keysym {
    static let backSpace: UInt32 = 0xFF08
    static let returnKey: UInt32 = 0xFF0D
    static let escape: UInt32 = 0xFF1B
    static let up: UInt32 = 0xFF52
    static let down: UInt32 = 0xFF54
}

extension DemoModel {
    public var preferredStatusBarStyle: StatusBarStyle { .dark }
    public var plays: Bool { false }
    public mutating func play(at time: UInt64) -> Bool { false }
    public var inPictureInPicture: Bool {
        get { false }
        set {}
    }
    public func drawPictureInPicture(_ image: PixelImage) {}
    public var onSecondScreen: Bool {
        get { false }
        set {}
    }
    public var paused: Bool {
        get { false }
        set {}
    }
    public mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool { false }
    public var textField: TextInputState? { nil }
    public mutating func commit(text: String) -> Bool { false }
    public mutating func lostKeyboardFocus() -> Bool { false }
    public mutating func keyboard(_ frame: KeyboardFrame) -> Bool { false }
    public mutating func pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, canvas: Canvas) -> Bool {
        false
    }
}

/// FNV-1a, 64-bit: a stable digest across runs and processes.
struct Digest {
    var value: UInt64 = 0xCBF2_9CE4_8422_2325
    mutating func add(_ v: Int) {
        var x = UInt64(bitPattern: Int64(v))
        for _ in 0..<8 {
            value = (value ^ (x & 0xFF)) &* 0x0000_0100_0000_01B3
            x >>= 8
        }
    }
    var hex: String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Draws `text` at (x, y) in image pixels (its capitals' top), as tall as the bitmap font's
/// capitals at `size` (7 × size pixels), in Inter (bold for titles).
func drawText(_ image: PixelImage, _ text: String, x: Int, y: Int, size: Int, color: RGB, bold: Bool = false) {
    DemoType.shared.draw(image, text, x: x, y: y, scale: max(1, size), color: color, bold: bold)
}

// MARK: - pattern

public struct PatternModel: DemoModel {
    public let color: RGB
    public init(color: RGB) { self.color = color }
    public mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool { false }
    public mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool { false }
    public mutating func resized(to canvas: Canvas) {}
    public func draw(_ image: PixelImage, canvas: Canvas) { PatternPainter.paint(image, color: color) }
    public var stateDigest: String { Digest().hex }
}

// MARK: - notes

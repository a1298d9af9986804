// SPDX-License-Identifier: MIT
// The `tv` demo app: plays an animated picture (a sun crossing an evening sky over hills, with
// colour bars, a progress bar and a time code) at 30 frames a second of the compositor's
// clock. It opens Picture in Picture by itself when it goes to the background and closes it
// when it comes back, as an iOS video app does with automatic invocation.

import DiptychCore
import DiptychImage
import DiptychWire

public struct TvModel: DemoModel {
    /// Milliseconds per picture: 30 frames a second.
    public static let frameMilliseconds: UInt64 = 33
    /// A loop of the programme, in pictures (20 s).
    static let loopFrames = 600

    /// The picture being shown (pictures since the start of the compositor's clock).
    public private(set) var frame = 0
    /// Whether the picture plays in the Picture in Picture window (the main surface then shows
    /// where it went).
    public var inPictureInPicture = false
    /// Whether the picture plays on the second screen (as a video app sends it to an
    /// external display).
    public var onSecondScreen = false
    /// Paused from the Picture in Picture window's controls (or closed there: iOS stops the
    /// video then); the picture stays.
    public var paused = false

    public init() {}

    public mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool { false }
    public mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool { false }
    public mutating func resized(to canvas: Canvas) {}
    public var stateDigest: String {
        var d = Digest()
        d.add(inPictureInPicture ? 1 : 0)
        d.add(paused ? 1 : 0)
        return d.hex
    }
    public var preferredStatusBarStyle: StatusBarStyle { .light }
    public var plays: Bool { true }
    public func drawPictureInPicture(_ image: PixelImage) { Self.drawPicture(image, frame: frame, scale: max(1, image.height / 540)) }

    /// Moves the programme to `time` (ms of the compositor's clock); returns whether the
    /// picture changed.
    public mutating func play(at time: UInt64) -> Bool {
        let f = Int(time / Self.frameMilliseconds)
        guard f != frame, !paused else { return false }
        frame = f
        return true
    }

    public func draw(_ image: PixelImage, canvas: Canvas) {
        if inPictureInPicture || onSecondScreen {
            Self.drawAway(image, scale: canvas.scale, text: onSecondScreen ? "PLAYING ON THE SECOND SCREEN" : "PLAYING IN PICTURE IN PICTURE")
        } else {
            Self.drawPicture(image, frame: frame, scale: canvas.scale)
        }
    }

    static let sky: [RGB] = [
        RGB(red: 0x1B, green: 0x26, blue: 0x4F), RGB(red: 0x27, green: 0x34, blue: 0x68), RGB(red: 0x3A, green: 0x3F, blue: 0x7A),
        RGB(red: 0x5B, green: 0x4B, blue: 0x86), RGB(red: 0x86, green: 0x55, blue: 0x87), RGB(red: 0xB4, green: 0x62, blue: 0x7A),
        RGB(red: 0xDC, green: 0x7B, blue: 0x68), RGB(red: 0xF2, green: 0x9E, blue: 0x5C),
    ]
    static let sun = RGB(red: 0xFF, green: 0xD8, blue: 0x6B)
    static let hills = RGB(red: 0x1D, green: 0x2B, blue: 0x24)
    static let near = RGB(red: 0x12, green: 0x1C, blue: 0x17)
    static let bars: [RGB] = [
        RGB(red: 0xC0, green: 0xC0, blue: 0xC0), RGB(red: 0xC0, green: 0xC0, blue: 0x00), RGB(red: 0x00, green: 0xC0, blue: 0xC0),
        RGB(red: 0x00, green: 0xC0, blue: 0x00), RGB(red: 0xC0, green: 0x00, blue: 0xC0), RGB(red: 0xC0, green: 0x00, blue: 0x00),
        RGB(red: 0x00, green: 0x00, blue: 0xC0),
    ]

    /// The programme's picture number `frame` filling `image`: flat fills only, so the app
    /// draws a full frame in a few milliseconds even unoptimised.
    public static func drawPicture(_ image: PixelImage, frame: Int, scale: Int) {
        let w = image.width, h = image.height
        let f = ((frame % loopFrames) + loopFrames) % loopFrames
        // The sky in bands, darkest at the top.
        let skyHeight = h * 3 / 4
        for (i, c) in sky.enumerated() {
            let y0 = skyHeight * i / sky.count, y1 = skyHeight * (i + 1) / sky.count
            image.fill(Rect(x: 0, y: y0, width: w, height: y1 - y0), color: c)
        }
        // The sun crosses the sky in an arc over the loop.
        let t = Double(f) / Double(loopFrames)
        let r = max(2, min(w, h) / 9)
        let cx = Int(Double(w) * (0.1 + 0.8 * t))
        let cy = Int(Double(skyHeight) * (0.75 - 0.55 * 4 * t * (1 - t)))
        var disc: [Rect] = []
        for dy in stride(from: -r, to: r, by: max(1, r / 24)) {
            let step = max(1, r / 24)
            let yMid = Double(dy) + Double(step) / 2
            let half = Int(max(0, Double(r * r) - yMid * yMid).squareRoot())
            disc.append(Rect(x: cx - half, y: cy + dy, width: 2 * half, height: step))
        }
        image.fill(disc.compactMap { $0.intersection(Rect(x: 0, y: 0, width: w, height: skyHeight)) }, color: sun)
        // Two rows of hills (steps), the nearer darker.
        var far: [Rect] = [], close: [Rect] = []
        let columns = 32
        for i in 0..<columns {
            let x0 = w * i / columns, x1 = w * (i + 1) / columns
            let a = Double(i) / Double(columns) * 6.283
            let farTop = skyHeight - Int(Double(h) * (0.08 + 0.05 * sinApprox(a + 1.3)))
            let nearTop = skyHeight + Int(Double(h) * (0.02 + 0.03 * sinApprox(a * 1.7)))
            far.append(Rect(x: x0, y: farTop, width: x1 - x0, height: h - farTop))
            close.append(Rect(x: x0, y: nearTop, width: x1 - x0, height: h - nearTop))
        }
        image.fill(far, color: hills)
        image.fill(close, color: near)
        // Colour bars along the bottom, and the progress bar over them.
        let barsHeight = max(2, h / 16)
        for (i, c) in bars.enumerated() {
            let x0 = w * i / bars.count, x1 = w * (i + 1) / bars.count
            image.fill(Rect(x: x0, y: h - barsHeight, width: x1 - x0, height: barsHeight), color: c)
        }
        let track = max(1, h / 120)
        image.fill(Rect(x: 0, y: h - barsHeight - track, width: w, height: track), color: RGB(red: 0x40, green: 0x40, blue: 0x40))
        image.fill(Rect(x: 0, y: h - barsHeight - track, width: w * (f + 1) / loopFrames, height: track), color: RGB(red: 0xFF, green: 0x3B, blue: 0x30))
        // The time code, top left.
        let seconds = f / 30, pictures = f % 30
        let code = "00:\(seconds < 10 ? "0" : "")\(seconds):\(pictures < 10 ? "0" : "")\(pictures)"
        let size = max(1, min(h / 60, 3 * scale))
        drawText(image, code, x: max(2, w / 40), y: max(2, h / 12), size: size, color: RGB(red: 0xFF, green: 0xFF, blue: 0xFF))
    }

    /// The main surface while the picture plays in Picture in Picture: dark, with a note.
    static func drawAway(_ image: PixelImage, scale: Int, text: String) {
        let w = image.width, h = image.height
        image.fill(Rect(x: 0, y: 0, width: w, height: h), color: RGB(red: 0x10, green: 0x10, blue: 0x12))
        let size = max(1, min(2 * scale, (w - 8) / max(1, text.count * BitmapFont.advance)))
        let box = BitmapFont.size(of: text, scale: size)
        drawText(image, text, x: (w - box.width) / 2, y: (h - box.height) / 2, size: size, color: RGB(red: 0x8E, green: 0x8E, blue: 0x93))
    }

    /// The Picture in Picture buffer's size for a screen `screenPixels` wide: a quarter of
    /// it, 16:9.
    public static func pipSize(screenPixels: Int) -> Size {
        let w = max(64, screenPixels / 4) & ~1
        return Size(width: w, height: w * 9 / 16)
    }

    /// A sine good enough for hills, without Foundation.
    static func sinApprox(_ x: Double) -> Double {
        var a = x.truncatingRemainder(dividingBy: 6.283185307179586)
        if a > 3.141592653589793 { a -= 6.283185307179586 }
        if a < -3.141592653589793 { a += 6.283185307179586 }
        // Bhaskara's approximation on |a| ≤ π.
        let s: Double = a < 0 ? -1 : 1
        let b = abs(a)
        return s * 16 * b * (3.141592653589793 - b) / (49.34802200544679 - 4 * b * (3.141592653589793 - b))
    }
}

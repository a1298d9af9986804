// SPDX-License-Identifier: MIT
// notes: a ruled page to draw on with a finger or the pen, and a typed note under its title
// (from a hardware keyboard, or the on-screen keyboard once its title is tapped).

import DiptychCore
import DiptychImage
import DiptychWire

/// Strokes drawn with a finger or the pen. A cancelled touch's stroke is thrown away, as the
/// iPad's Notes does when a palm is rejected.
public struct NotesModel: DemoModel {
    public private(set) var strokes: [[(x: Double, y: Double)]] = []
    /// What was typed on a keyboard: a text note under the title (Return starts a line).
    public private(set) var typed = ""
    private var active: [Int32: [(x: Double, y: Double)]] = [:]
    /// The pen's stroke uses this key among the touch ids.
    private static let penKey: Int32 = .min
    /// The note takes text from the on-screen keyboard: a tap on the title band (below the
    /// status bar, above the first rule) starts it; losing the keyboard focus ends it.
    public private(set) var editing = false
    /// Touches that went down on the title band (a tap there edits; no stroke).
    private var titleTaps: Set<Int32> = []
    /// The title band, in points from the pane's top.
    static let titleBand = 20.0..<56.0

    static let paper = RGB(red: 0xFA, green: 0xF6, blue: 0xE8)
    static let ink = RGB(red: 0x1E, green: 0x3A, blue: 0x8A)
    static let rule = RGB(red: 0xD6, green: 0xE4, blue: 0xF0)

    public init() {}

    public mutating func touch(id: Int32, phase: TouchPhase, x: Double, y: Double, canvas: Canvas) -> Bool {
        if phase == .down && Self.titleBand.contains(y) {
            titleTaps.insert(id)
            return false
        }
        if titleTaps.contains(id) {
            guard phase == .up || phase == .cancel else { return false }
            titleTaps.remove(id)
            guard phase == .up, !editing else { return false }
            editing = true
            return true
        }
        return stroke(key: id, begin: phase == .down, end: phase == .up, cancel: phase == .cancel, x: x, y: y)
    }

    public var textField: TextInputState? {
        guard editing else { return nil }
        let lines = typed.split(separator: "\n", omittingEmptySubsequences: false)
        let last = lines.last.map(String.init) ?? ""
        // The caret after the last line's text (its glyphs are about 11 pt wide at this size).
        let caret = (x: 12 + 11 * Double(last.count), y: Double(50 + 32 * (lines.count - 1)), width: 2.0, height: 22.0)
        return TextInputState(enabled: true, purpose: .text, hints: [.capitalizeSentences], caret: caret, surrounding: String(typed.suffix(120)))
    }

    public mutating func commit(text: String) -> Bool {
        guard typed.utf8.count + text.utf8.count <= 4096 else { return false }
        typed += text
        return true
    }

    public mutating func lostKeyboardFocus() -> Bool {
        guard editing else { return false }
        editing = false
        return true
    }

    public mutating func pen(phase: PenPhase, x: Double, y: Double, pressure: Double, canvas: Canvas) -> Bool {
        switch phase {
        case .down: return stroke(key: Self.penKey, begin: true, end: false, cancel: false, x: x, y: y)
        case .motion: return active[Self.penKey] != nil && stroke(key: Self.penKey, begin: false, end: false, cancel: false, x: x, y: y)
        case .up: return stroke(key: Self.penKey, begin: false, end: true, cancel: false, x: x, y: y)
        case .proximityIn, .proximityOut: return false
        }
    }

    private mutating func stroke(key: Int32, begin: Bool, end: Bool, cancel: Bool, x: Double, y: Double) -> Bool {
        if begin { active[key] = [(x, y)]; return true }
        guard var points = active[key] else { return false }
        if cancel {
            active[key] = nil
            return true
        }
        points.append((x, y))
        if end {
            active[key] = nil
            strokes.append(points)
        } else {
            active[key] = points
        }
        return true
    }

    public mutating func resized(to canvas: Canvas) {}

    public mutating func key(keysym: UInt32, text: String, state: KeyState, canvas: Canvas) -> Bool {
        guard state != .released else { return false }
        switch keysym {
        case Keysym.backSpace:
            guard !typed.isEmpty else { return false }
            typed.removeLast()
        case Keysym.returnKey:
            typed += "\n"
        default:
            guard !text.isEmpty, typed.utf8.count < 4096 else { return false }
            typed += text
        }
        return true
    }

    public func draw(_ image: PixelImage, canvas: Canvas) {
        let s = canvas.scale
        image.fill(Rect(x: 0, y: 0, width: image.width, height: image.height), color: Self.paper)
        var rules: [Rect] = []
        // The top 20 pt are the status bar's: the title sits below it.
        var y = 56 * s
        while y < image.height {
            rules.append(Rect(x: 0, y: y, width: image.width, height: max(1, s / 2)))
            y += 32 * s
        }
        image.fill(rules, color: Self.rule)
        drawText(image, "Notes", x: 12 * s, y: 26 * s, size: 3 * s, color: Self.ink, bold: true)
        // The typed note, a line to each rule, with a caret after it.
        for (i, line) in (typed + "_").split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            drawText(image, String(line), x: 12 * s, y: (66 + 32 * i) * s, size: 2 * s, color: Self.ink)
        }
        var dots: [Rect] = []
        let pen = 3 * s
        for points in strokes + active.sorted(by: { $0.key < $1.key }).map(\.value) {
            for (i, p) in points.enumerated() {
                let q = i + 1 < points.count ? points[i + 1] : p
                let steps = max(1, Int(max(abs(q.x - p.x), abs(q.y - p.y)).rounded(.up)))
                for k in 0...steps {
                    let t = Double(k) / Double(steps)
                    let px = Int(((p.x + (q.x - p.x) * t) * Double(s)).rounded(.down)) - pen / 2
                    let py = Int(((p.y + (q.y - p.y) * t) * Double(s)).rounded(.down)) - pen / 2
                    dots.append(Rect(x: px, y: py, width: pen, height: pen))
                }
            }
        }
        image.fill(dots, color: Self.ink)
    }

    public var stateDigest: String {
        var d = Digest()
        for b in typed.utf8 { d.add(Int(b)) }
        d.add(strokes.count)
        for stroke in strokes {
            d.add(stroke.count)
            for p in stroke {
                d.add(Int((p.x * 4).rounded()))
                d.add(Int((p.y * 4).rounded()))
            }
        }
        return d.hex
    }
}

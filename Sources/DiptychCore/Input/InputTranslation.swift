// SPDX-License-Identifier: MIT
// From raw device input (as libinput reports it) to the touch and pen events that scenarios
// also produce: calibration, slots to touch ids, tablet tool states to pen phases, panel pixels.

/// One input event as read from libinput, with coordinates normalised to 0…1 of the device's
/// area (libinput's `*_transformed` with a size of 1) and time in microseconds.
public enum RawInput: Equatable, Sendable {
    case touchDown(slot: Int32, x: Double, y: Double, time: UInt64)
    case touchMotion(slot: Int32, x: Double, y: Double, time: UInt64)
    case touchUp(slot: Int32, time: UInt64)
    /// libinput's TOUCH_CANCEL: the kernel or libinput gave up on the touch.
    case touchCancel(slot: Int32, time: UInt64)
    case touchFrame(time: UInt64)
    /// The pen came near or went; `tool` is the end that came (libinput's tool type).
    case tabletProximity(entering: Bool, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, tool: PenTool, time: UInt64)
    case tabletTip(down: Bool, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, time: UInt64)
    case tabletAxis(x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, time: UInt64)
    /// A barrel button pressed or let go.
    case tabletButton(PenButtons, pressed: Bool, time: UInt64)
    case deviceAdded(name: String)
    /// A device went: its name and its system name (`event5`).
    case deviceRemoved(name: String, sysname: String = "")
    /// A key (evdev code) went down or up; `keyboard`: the system name of its device when that
    /// has letter keys (a keyboard one types on, not a power button or a remote).
    case key(code: UInt32, pressed: Bool, time: UInt64, keyboard: String? = nil)
    /// A mouse or trackpad moved by `dx`, `dy` (libinput's accelerated motion, in its
    /// 1000-dpi units, about a pixel each).
    case pointerMotion(dx: Double, dy: Double, time: UInt64)
    /// An absolute pointer (a tablet in mouse mode, a VM's) moved to `x`, `y` (0…1 of its area).
    case pointerAbsolute(x: Double, y: Double, time: UInt64)
    case pointerButton(code: UInt32, pressed: Bool, time: UInt64)
    /// A scroll of `dx`, `dy` (pixels for fingers and continuous devices; for a wheel, 15 per
    /// click, as libinput's v120 scaled).
    case pointerScroll(dx: Double, dy: Double, source: ScrollSource, time: UInt64)
}

/// A touch or pen event in panel pixels, as scenarios write them.
public enum PanelInput: Equatable, Sendable {
    case touch(id: Int32, phase: TouchPhase, x: Double, y: Double)
    case pen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, tool: PenTool = .pen, buttons: PenButtons = [])
    /// A key (evdev code) down or up; `keyboard`: its device's system name when that has
    /// letter keys (nil: a scenario's, or a device without them).
    case key(code: UInt32, pressed: Bool, keyboard: String? = nil)
    /// The pointer moved to a point of the panel, a button, a scroll (points).
    case pointer(PointerStep)
    /// The pointer moved by `dx`, `dy` panel pixels (a mouse, a trackpad).
    case pointerMove(dx: Double, dy: Double)
}

/// libinput's 2×3 calibration matrix over normalised coordinates:
/// x' = a·x + b·y + c, y' = d·x + e·y + f.
public struct Calibration: Equatable, Sendable {
    public var a, b, c, d, e, f: Double
    public static let identity = Calibration(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    /// Parses `a,b,c,d,e,f` (six finite numbers), naming what is wrong.
    public static func parse(_ text: String) throws(CalibrationError) -> Calibration {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard parts.count == 6 else { throw CalibrationError(text: text, reason: "needs six numbers a,b,c,d,e,f; got \(parts.count)") }
        var v: [Double] = []
        for p in parts {
            guard let d = Double(p), d.isFinite else { throw CalibrationError(text: text, reason: "'\(p)' is not a number") }
            v.append(d)
        }
        return Calibration(a: v[0], b: v[1], c: v[2], d: v[3], e: v[4], f: v[5])
    }

    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
}

/// A calibration string that cannot be used.
public struct CalibrationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "bad --touch-calibration '\(text)': \(reason)" }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Turns raw device events into panel-pixel touch and pen events. Pure; one per seat.
public struct InputTranslator: Sendable {
    /// The panel in pixels: normalised coordinates are scaled to it.
    public var panel: Size
    /// Applied to touch coordinates (normalised) before scaling.
    public var calibration: Calibration
    private var touches: [Int32: (x: Double, y: Double)] = [:]
    private var penInProximity = false
    private var penDown = false
    private var penTool: PenTool = .pen
    private var penButtons: PenButtons = []
    /// Where the pen was last reported (a button press is told there).
    private var penLast: (x: Double, y: Double, p: Double, tx: Double, ty: Double)?

    public init(panel: Size, calibration: Calibration = .identity) {
        self.panel = panel
        self.calibration = calibration
    }

    private func panelPoint(_ x: Double, _ y: Double, calibrate: Bool) -> (Double, Double) {
        let p = calibrate ? calibration.apply(x: x, y: y) : (x: x, y: y)
        let px = min(max(p.x, 0), 1) * Double(panel.width), py = min(max(p.y, 0), 1) * Double(panel.height)
        return ((px * 1000).rounded() / 1000, (py * 1000).rounded() / 1000)
    }

    /// The events one raw event becomes (none for frames and device changes).
    public mutating func translate(_ raw: RawInput) -> [PanelInput] {
        switch raw {
        case .key(let code, let pressed, _, let keyboard):
            return [.key(code: code, pressed: pressed, keyboard: keyboard)]
        case .pointerMotion(let dx, let dy, _):
            return [.pointerMove(dx: dx, dy: dy)]
        case .pointerAbsolute(let x, let y, _):
            let (px, py) = panelPoint(x, y, calibrate: false)
            return [.pointer(.motion(x: px, y: py))]
        case .pointerButton(let code, let pressed, _):
            return [.pointer(.button(code, pressed: pressed))]
        case .pointerScroll(let dx, let dy, let source, _):
            return [.pointer(.scroll(dx: dx, dy: dy, source: source))]
        case .touchDown(let slot, let x, let y, _):
            let (px, py) = panelPoint(x, y, calibrate: true)
            touches[slot] = (px, py)
            return [.touch(id: slot, phase: .down, x: px, y: py)]
        case .touchMotion(let slot, let x, let y, _):
            guard touches[slot] != nil else { return [] }
            let (px, py) = panelPoint(x, y, calibrate: true)
            touches[slot] = (px, py)
            return [.touch(id: slot, phase: .motion, x: px, y: py)]
        case .touchUp(let slot, _), .touchCancel(let slot, _):
            guard let last = touches.removeValue(forKey: slot) else { return [] }
            let phase: TouchPhase = if case .touchUp = raw { .up } else { .cancel }
            return [.touch(id: slot, phase: phase, x: last.x, y: last.y)]
        case .touchFrame, .deviceAdded, .deviceRemoved:
            return []
        case .tabletProximity(let entering, let x, let y, let p, let tx, let ty, let tool, _):
            if entering { penTool = tool }
            let (px, py) = panelPoint(x, y, calibrate: false)
            var out: [PanelInput] = []
            if entering {
                penInProximity = true
                penLast = (px, py, p, tx, ty)
                out.append(.pen(phase: .proximityIn, x: px, y: py, pressure: p, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons))
            } else {
                if penDown { out.append(.pen(phase: .up, x: px, y: py, pressure: 0, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons)) }
                penDown = false
                penInProximity = false
                penLast = nil
                penButtons = []
                out.append(.pen(phase: .proximityOut, x: px, y: py, pressure: 0, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons))
            }
            return out
        case .tabletTip(let down, let x, let y, let p, let tx, let ty, _):
            let (px, py) = panelPoint(x, y, calibrate: false)
            var out: [PanelInput] = []
            if !penInProximity {
                penInProximity = true
                out.append(.pen(phase: .proximityIn, x: px, y: py, pressure: 0, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons))
            }
            penDown = down
            penLast = (px, py, down ? p : 0, tx, ty)
            out.append(.pen(phase: down ? .down : .up, x: px, y: py, pressure: down ? p : 0, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons))
            return out
        case .tabletAxis(let x, let y, let p, let tx, let ty, _):
            guard penInProximity else { return [] }
            let (px, py) = panelPoint(x, y, calibrate: false)
            penLast = (px, py, p, tx, ty)
            return [.pen(phase: .motion, x: px, y: py, pressure: p, tiltX: tx, tiltY: ty, tool: penTool, buttons: penButtons)]
        case .tabletButton(let button, let pressed, _):
            if pressed { penButtons.insert(button) } else { penButtons.remove(button) }
            // Told with a motion where the pen is (the pen event carries its buttons).
            guard penInProximity, let l = penLast else { return [] }
            return [.pen(phase: .motion, x: l.x, y: l.y, pressure: l.p, tiltX: l.tx, tiltY: l.ty, tool: penTool, buttons: penButtons)]
        }
    }
}

extension RawInput {
    /// The event's time in microseconds, if it has one.
    public var time: UInt64? {
        switch self {
        case .touchDown(_, _, _, let t), .touchMotion(_, _, _, let t), .touchUp(_, let t), .touchCancel(_, let t), .touchFrame(let t):
            t
        case .tabletProximity(_, _, _, _, _, _, _, let t), .tabletTip(_, _, _, _, _, _, let t), .tabletAxis(_, _, _, _, _, let t),
             .tabletButton(_, _, let t):
            t
        case .key(_, _, let t, _), .pointerMotion(_, _, let t), .pointerAbsolute(_, _, let t), .pointerButton(_, _, let t), .pointerScroll(_, _, _, let t):
            t
        case .deviceAdded, .deviceRemoved:
            nil
        }
    }
}

extension Scenario {
    /// A scenario file replaying recorded input: `events` are (milliseconds from the first
    /// event, panel input). The apps are `notes` so that a replay shows what was drawn. Keys
    /// are written by the keysym `keyName` gives their code (a key it names none of is left
    /// out); relative pointer motion as the points it reaches from the panel's corner, as the
    /// compositor's pointer starts.
    public static func recording(
        device: String, orientation: Orientation, events: [(at: UInt64, input: PanelInput)], keyName: (UInt32) -> String? = { _ in nil }
    ) -> String {
        var steps: [String] = []
        var pointer = (x: 0.0, y: 0.0)
        for (at, input) in events {
            let action: JSONValue
            switch input {
            case .key(let code, let pressed, _):
                guard let name = keyName(code) else { continue }
                action = .object([("key", .object([("key", .string(name)), ("state", .string(pressed ? "pressed" : "released"))]))])
            case .pointerMove(let dx, let dy):
                pointer = (max(0, pointer.x + dx), max(0, pointer.y + dy))
                action = .object([("pointer", .object([("phase", .string("motion")), ("x", .double(pointer.x)), ("y", .double(pointer.y))]))])
            case .pointer(.motion(let x, let y)):
                pointer = (x, y)
                action = .object([("pointer", .object([("phase", .string("motion")), ("x", .double(x)), ("y", .double(y))]))])
            case .pointer(.button(let b, let pressed)):
                action = .object([("pointer", .object([("phase", .string("button")), ("button", .int(Int(b))), ("pressed", .bool(pressed))]))])
            case .pointer(.scroll(let dx, let dy, let source)):
                action = .object([("pointer", .object([("phase", .string("scroll")), ("dx", .double(dx)), ("dy", .double(dy)), ("source", .string(source.name))]))])
            case .touch(let id, let phase, let x, let y):
                action = .object([("touch", .object([("id", .int(Int(id))), ("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y))]))])
            case .pen(let phase, let x, let y, let p, let tx, let ty, let tool, let buttons):
                var pen: [(String, JSONValue)] = [
                    ("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("pressure", .double(p)),
                    ("tiltX", .double(tx)), ("tiltY", .double(ty)),
                ]
                if tool != .pen { pen.append(("tool", .string(tool.name))) }
                if !buttons.isEmpty { pen.append(("buttons", .int(Int(buttons.rawValue)))) }
                action = .object([("pen", .object(pen))])
            }
            guard case .object(let pairs) = action else { continue }
            steps.append(JSONValue.object([("at", .int(Int(at)))] + pairs).serialized)
        }
        let last = events.last?.at ?? 0
        steps.append(JSONValue.object([("at", .int(Int(last))), ("wait", .bool(true))]).serialized)
        steps.append(JSONValue.object([("at", .int(Int(last))), ("capture", .string("recorded.png"))]).serialized)
        let head = JSONValue.object([("device", .string(device)), ("orientation", .string(orientation.rawValue)), ("primary", .string("notes"))]).serialized
        return String(head.dropLast()) + ",\n \"steps\":[\n  " + steps.joined(separator: ",\n  ") + "]}\n"
    }
}

/// A source of raw touch and pen input the compositor's loop reads when `descriptor` is
/// readable (libinput in `run`). Confined to the loop's thread.
public protocol InputSource: AnyObject {
    /// The descriptor to poll.
    var descriptor: Int32 { get }
    /// Everything the source has now, in order.
    func read() -> [RawInput]
}

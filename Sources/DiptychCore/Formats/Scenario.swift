// SPDX-License-Identifier: MIT
// Scenarios: a device, two apps and timed steps, parsed and checked field by field (an unknown
// key included) so that a bad file is refused before anything starts, naming the field.

/// One timed action of a scenario.
public enum ScenarioAction: Equatable, Sendable {
    /// A finger, in panel pixels.
    case touch(id: Int32, phase: TouchPhase, x: Double, y: Double)
    /// The pen, in panel pixels, with the end that touches and the barrel buttons held.
    case pen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, tool: PenTool = .pen, buttons: PenButtons = [])
    /// The apps' orientation (`"landscape"`, `"portrait"`).
    case rotate(Orientation)
    /// The panel's rotation (`0`, `90`, `180`, `270`): the output turns, the apps do not.
    case rotateOutput(OutputRotation)
    /// Soft relaunch on another emulated profile.
    case emulate(String)
    /// Write the frame of screen `screen` (1: the main screen, 2: the second screen) as a PNG
    /// with this file name in the output folder.
    case capture(String, screen: Int = 1)
    /// Let time run until every app has drawn and settled.
    case wait
    /// With the clock stopped, wait until these apps are ready: a web page loaded and drawn
    /// (nothing new for 500 ms, no resource loading; at most 10 s), a native app's frame
    /// committed for its latest configure.
    case waitFor([Role])
    /// A key, by the keysym it gives in the first level of the keymap (`a`, `Return`, `Left`,
    /// `Super_L`), going down or up.
    case key(String, KeyState)
    /// The pointer: moved to `x`, `y` (panel pixels), a button (Linux code) going down or up,
    /// or a scroll of `dx`, `dy` points from `source`, where the pointer is.
    case pointer(PointerStep)
    /// Text typed as a person would: through the on-screen keyboard's keys (each key down, up
    /// 40 ms later, the next 80 ms after the last; layouts and shift switched as needed), or
    /// on a hardware keyboard (`Shift_L` around a character that needs it).
    case type(String, via: TypeVia)
    /// A tap on one key of the on-screen keyboard where it is drawn (down, up 40 ms later).
    case press(KeyboardPress)
}

/// The keys a scenario's `press` step taps.
public enum KeyboardPress: String, Equatable, Sendable, CaseIterable {
    case next, previous, `return`, dismiss, shift, numbers

    /// The action of the key it taps.
    public var action: KeyboardKey.Action {
        switch self {
        case .next: .nextField
        case .previous: .previousField
        case .return: .return
        case .dismiss: .dismiss
        case .shift: .shift
        case .numbers: .layout(.numbers)
        }
    }
}

/// How a `type` step types.
public enum TypeVia: String, Equatable, Sendable {
    case keyboard, hardware
}

/// What a scenario's `pointer` step does.
public enum PointerStep: Equatable, Sendable {
    case motion(x: Double, y: Double)
    case button(UInt32, pressed: Bool)
    case scroll(dx: Double, dy: Double, source: ScrollSource)
}

/// A step: an action at a time in milliseconds of virtual time.
public struct ScenarioStep: Equatable, Sendable {
    public var at: UInt64
    public var action: ScenarioAction
    public init(at: UInt64, action: ScenarioAction) {
        self.at = at
        self.action = action
    }
}

/// A parsed, checked scenario.
public struct Scenario: Sendable {
    /// The latest a step may be (milliseconds): every frame up to it is played and recorded,
    /// so a step a day away would hold memory for hours.
    public static let longest = 600_000
    /// The largest scenario file read (bytes): a file that never ends (/dev/zero) is refused.
    public static let fileLimit = 4 << 20
    public var profile: DeviceProfile
    public var orientation: Orientation
    /// Panel size for resolution-scaling emulation, if any.
    public var emulateOn: Size?
    /// A second physical screen of this many pixels.
    public var secondScreen: Size?
    /// The apps: a demo app name (with optional demo flags) or a command line (a relative
    /// program path already taken from the scenario's folder).
    public var primary: AppCommandLine
    public var secondary: AppCommandLine?
    public var arrangement: Arrangement
    public var multitasking: Bool
    public var palmRejection: PalmRejection.Mode = .penPriority
    /// The on-screen keyboard's languages (`keyboardLayouts`; empty: US English).
    public var keyboardLanguages: [KeyboardLanguage] = []
    public var penHoldoff: UInt64 = 90
    public var steps: [ScenarioStep]
    /// The local time at the scenario's start (its status bar and a blank schedule read it),
    /// and its screen power rules.
    public var clock: WeekTime?
    public var idleTimeout: UInt64?
    public var blankSchedule: BlankSchedule?
}

/// A scenario that cannot be played: the file, the field (a JSON path) and why.
public struct ScenarioError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var field: String
    public var reason: String
    public init(file: String, field: String, reason: String) {
        self.file = file
        self.field = field
        self.reason = reason
    }
    public var description: String { field.isEmpty ? "\(file): \(reason)" : "\(file): field '\(field)': \(reason)" }
}

extension Scenario {
    /// Parses scenario JSON. `file` names the file in errors.
    public static func parse(_ text: String, file: String) throws(ScenarioError) -> Scenario {
        func fail(_ field: String, _ reason: String) -> ScenarioError { ScenarioError(file: file, field: field, reason: reason) }
        let root: JSONValue
        do { root = try JSONValue.parse(text) } catch { throw fail("", "\(error)") }
        guard root.objectValue != nil else { throw fail("", "the top level must be a JSON object") }
        try checkKeys(root, "", topLevelKeys, file)

        func string(_ v: JSONValue?, _ field: String) throws(ScenarioError) -> String? {
            guard let v else { return nil }
            guard let s = v.stringValue else { throw fail(field, "must be a string") }
            return s
        }
        let device = try string(root["device"], "device") ?? "ipad"
        let profile: DeviceProfile
        do { profile = try DeviceProfile.named(device) } catch { throw fail("device", error.description) }
        let orientation: Orientation
        do { orientation = try Orientation.named(try string(root["orientation"], "orientation") ?? "landscape") } catch let e as ScenarioError { throw e } catch {
            throw fail("orientation", "\(error)")
        }
        var emulateOn: Size?
        if let e = try string(root["emulateOn"], "emulateOn") {
            guard let size = Size(parsing: e) else { throw fail("emulateOn", "'\(e)' is not a panel size WxH, e.g. 2048x1536") }
            emulateOn = size
        }
        var secondScreen: Size?
        if let e = try string(root["secondScreen"], "secondScreen") {
            guard let size = Size(parsing: e) else {
                throw fail("secondScreen", "'\(e)' is not a screen size WxH, e.g. 1920x1080")
            }
            secondScreen = size
        }
        // Relative program paths are the scenario's folder's.
        let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
        guard let primaryValue = root["primary"] else { throw fail("primary", "is required: the primary app") }
        let primary = try app(primaryValue, field: "primary", file: file).resolved(against: folder)
        let secondary = try root["secondary"].map { v throws(ScenarioError) in try app(v, field: "secondary", file: file).resolved(against: folder) }
        let arrangement: Arrangement
        do { arrangement = try Arrangement.named(try string(root["arrangement"], "arrangement") ?? (secondary == nil ? "full" : "split-2/3")) } catch let e as ScenarioError { throw e } catch {
            throw fail("arrangement", "\(error)")
        }
        if arrangement == .split12 && orientation == .portrait { throw fail("arrangement", LayoutError.splitHalfInPortrait.description) }
        if arrangement.showsSecondary && secondary == nil { throw fail("secondary", "arrangement '\(arrangement.rawValue)' needs a secondary app") }
        var multitasking = true
        if let m = root["multitasking"] {
            guard let b = m.boolValue else { throw fail("multitasking", "must be true or false") }
            multitasking = b
        }

        var palmRejection = PalmRejection.Mode.penPriority
        if let p = root["palmRejection"] {
            guard let name = p.stringValue, let mode = PalmRejection.Mode(rawValue: name) else { throw fail("palmRejection", "must be pen-priority or off") }
            palmRejection = mode
        }
        var penHoldoff: UInt64 = 90
        if let h = root["penHoldoffMs"] {
            guard let ms = h.intValue, (0...10_000).contains(ms) else { throw fail("penHoldoffMs", "must be a whole number of milliseconds from 0 to 10000") }
            penHoldoff = UInt64(ms)
        }

        var languages: [KeyboardLanguage] = []
        if let k = root["keyboardLayouts"] {
            guard let text = k.stringValue else { throw fail("keyboardLayouts", "must be xkb layout names separated by commas, e.g. \"us,de\"") }
            switch KeyboardLanguage.list(parsing: text) {
            case .success(let list): languages = list
            case .failure(let e): throw fail("keyboardLayouts", e.message)
            }
        }
        let typeable = languages.isEmpty ? [KeyboardLanguage.us] : languages

        guard let rawSteps = root["steps"] else { throw fail("steps", "is required: a list of timed steps") }
        guard let list = rawSteps.arrayValue else { throw fail("steps", "must be a list") }
        var steps: [ScenarioStep] = []
        var last: UInt64 = 0
        for (i, s) in list.enumerated() {
            let path = "steps[\(i)]"
            guard s.objectValue != nil else { throw fail(path, "must be an object") }
            try checkKeys(s, path, stepKeys, file)
            guard let atValue = s["at"] else { throw fail("\(path).at", "is required: milliseconds from the start") }
            guard let at = atValue.intValue, at >= 0, at <= Scenario.longest else {
                throw fail("\(path).at", "must be a whole number of milliseconds from 0 to \(Scenario.longest) (10 minutes)")
            }
            guard UInt64(at) >= last else { throw fail("\(path).at", "\(at) is earlier than the step before (\(last))") }
            last = UInt64(at)
            let keys = ["touch", "pen", "rotate", "emulate", "capture", "wait", "waitFor", "key", "pointer", "type", "press"].filter { s[$0] != nil }
            guard keys.count == 1 else {
                throw fail(path, keys.isEmpty ? "needs one of touch, pen, key, pointer, type, press, rotate, emulate, capture, wait, waitFor" : "has more than one action: \(keys.joined(separator: ", "))")
            }
            if s["via"] != nil && keys[0] != "type" { throw fail("\(path).via", "belongs to a type step") }
            let key = keys[0], value = s[key]!, field = "\(path).\(key)"
            let action: ScenarioAction
            switch key {
            case "touch":
                guard value.objectValue != nil else { throw fail(field, "must be an object") }
                try checkKeys(value, field, ["id", "phase", "x", "y"], file)
                guard let id = value["id"]?.intValue, id >= 0, id <= Int(Int32.max) else { throw fail("\(field).id", "must be a whole number from 0") }
                let phaseName = try string(value["phase"], "\(field).phase")
                guard let phase = TouchPhase.allCases.first(where: { $0.name == phaseName }) else {
                    throw fail("\(field).phase", "must be one of down, motion, up, cancel")
                }
                action = .touch(id: Int32(id), phase: phase, x: try number(value, "x", field, file), y: try number(value, "y", field, file))
            case "pen":
                guard value.objectValue != nil else { throw fail(field, "must be an object") }
                try checkKeys(value, field, ["phase", "x", "y", "pressure", "tiltX", "tiltY", "tool", "buttons"], file)
                let phaseName = try string(value["phase"], "\(field).phase")
                guard let phase = PenPhase.allCases.first(where: { $0.name == phaseName }) else {
                    throw fail("\(field).phase", "must be one of proximityIn, down, motion, up, proximityOut")
                }
                let pressure = value["pressure"] == nil ? 0 : try number(value, "pressure", field, file)
                guard (0...1).contains(pressure) else { throw fail("\(field).pressure", "must be from 0 to 1") }
                var tool = PenTool.pen
                if let t = value["tool"] {
                    guard let name = t.stringValue, let v = PenTool.allCases.first(where: { $0.name == name }) else {
                        throw fail("\(field).tool", "must be pen or eraser")
                    }
                    tool = v
                }
                var buttons: PenButtons = []
                if let b = value["buttons"] {
                    guard let n = b.intValue, (0...3).contains(n) else {
                        throw fail("\(field).buttons", "must be a bit mask from 0 to 3 (1: the first barrel button, 2: the second)")
                    }
                    buttons = PenButtons(rawValue: UInt32(n))
                }
                action = .pen(
                    phase: phase, x: try number(value, "x", field, file), y: try number(value, "y", field, file), pressure: pressure,
                    tiltX: value["tiltX"] == nil ? 0 : try number(value, "tiltX", field, file),
                    tiltY: value["tiltY"] == nil ? 0 : try number(value, "tiltY", field, file), tool: tool, buttons: buttons)
            case "rotate":
                if let name = value.stringValue, let o = Orientation(rawValue: name) {
                    action = .rotate(o)
                } else if let degrees = value.intValue ?? value.stringValue.flatMap({ Int($0) }), let r = OutputRotation(rawValue: degrees) {
                    action = .rotateOutput(r)
                } else {
                    throw fail(field, "must be landscape or portrait (the apps' orientation), or 0, 90, 180 or 270 (the panel's rotation)")
                }
            case "emulate":
                guard let name = value.stringValue else { throw fail(field, "must be a device name") }
                do { _ = try DeviceProfile.named(name) } catch { throw fail(field, error.description) }
                action = .emulate(name)
            case "capture":
                guard let name = value.stringValue, name.hasSuffix(".png"), name.count > 4, !name.contains("/"), !name.hasPrefix(".") else {
                    throw fail(field, "must be a file name ending in .png, without a folder")
                }
                var screen = 1
                if let n = s["screen"] {
                    guard let v = n.intValue, v == 1 || v == 2 else { throw fail("\(path).screen", "must be 1 (the main screen) or 2 (the second screen)") }
                    guard v == 1 || secondScreen != nil else { throw fail("\(path).screen", "screen 2 needs a second screen: add \"secondScreen\": \"WxH\"") }
                    screen = v
                }
                action = .capture(name, screen: screen)
            case "key":
                guard value.objectValue != nil else { throw fail(field, "must be an object") }
                try checkKeys(value, field, ["key", "state"], file)
                let name = try string(value["key"], "\(field).key") ?? ""
                guard !name.isEmpty, name.count <= 64 else { throw fail("\(field).key", "must be a keysym name such as a, Return, Left, Shift_L, Super_L") }
                let stateName = try string(value["state"], "\(field).state")
                guard let state = stateName.flatMap(KeyState.init(name:)), state != .repeated else {
                    throw fail("\(field).state", "must be pressed or released (repeats are the compositor's)")
                }
                action = .key(name, state)
            case "type":
                guard let text = value.stringValue, !text.isEmpty, text.count <= 1000 else { throw fail(field, "must be text of 1 to 1000 characters") }
                var via = TypeVia.keyboard
                if let v = s["via"] {
                    guard let name = v.stringValue, let w = TypeVia(rawValue: name) else { throw fail("\(path).via", "must be keyboard or hardware") }
                    via = w
                }
                if via == .keyboard, let c = text.first(where: { c in
                    !typeable.contains { l in [KeyboardVariant.default, .email, .url].contains { OnScreenKeyboard.types(c, variant: $0, language: l) } }
                }) {
                    throw fail(field, "'\(c)' is on no key of the on-screen keyboard's languages (\(typeable.map(\.name).joined(separator: ", ")))")
                }
                action = .type(text, via: via)
            case "press":
                guard let name = value.stringValue, let press = KeyboardPress(rawValue: name) else {
                    throw fail(field, "must be one of \(KeyboardPress.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                action = .press(press)
            case "pointer":
                guard value.objectValue != nil else { throw fail(field, "must be an object") }
                let phaseName = try string(value["phase"], "\(field).phase")
                switch phaseName {
                case "motion":
                    try checkKeys(value, field, ["phase", "x", "y"], file)
                    action = .pointer(.motion(x: try number(value, "x", field, file), y: try number(value, "y", field, file)))
                case "button":
                    try checkKeys(value, field, ["phase", "button", "pressed"], file)
                    guard let b = (value["button"]?.stringValue ?? value["button"]?.intValue.map(String.init)).flatMap(PointerButton.code) ?? (value["button"] == nil ? PointerButton.left : nil) else {
                        throw fail("\(field).button", "must be left, right, middle or a Linux button code")
                    }
                    guard let pressed = value["pressed"]?.boolValue else { throw fail("\(field).pressed", "is required: true or false") }
                    action = .pointer(.button(b, pressed: pressed))
                case "scroll":
                    try checkKeys(value, field, ["phase", "dx", "dy", "source"], file)
                    var source = ScrollSource.wheel
                    if let v = value["source"] {
                        guard let name = v.stringValue, let s = ScrollSource(name: name) else { throw fail("\(field).source", "must be wheel, finger or continuous") }
                        source = s
                    }
                    action = .pointer(.scroll(
                        dx: value["dx"] == nil ? 0 : try number(value, "dx", field, file), dy: value["dy"] == nil ? 0 : try number(value, "dy", field, file),
                        source: source))
                default:
                    throw fail("\(field).phase", "must be motion, button or scroll")
                }
            case "waitFor":
                switch value.stringValue {
                case "primary": action = .waitFor([.primary])
                case "secondary": action = .waitFor([.secondary])
                case "both": action = .waitFor([.primary, .secondary])
                default: throw fail(field, "must be primary, secondary or both")
                }
            default:
                guard value.boolValue == true else { throw fail(field, "must be true") }
                action = .wait
            }
            steps.append(ScenarioStep(at: UInt64(at), action: action))
        }
        var clock: WeekTime?
        if let c = try string(root["clock"], "clock") {
            guard let t = WeekTime(localDateTime: c) else { throw fail("clock", "'\(c)' is not a local date and time YYYY-MM-DD HH:MM") }
            clock = t
        }
        var idleTimeout: UInt64?
        if let t = root["idleTimeout"] {
            guard let s = t.intValue, (1...86_400).contains(s) else { throw fail("idleTimeout", "must be a whole number of seconds from 1 to 86400") }
            idleTimeout = UInt64(s) * 1000
        }
        var schedule: BlankSchedule?
        if let s = try string(root["blankSchedule"], "blankSchedule") {
            do { schedule = try BlankSchedule(parsing: s) } catch { throw fail("blankSchedule", error.description) }
        }
        var scenario = Scenario(
            profile: profile, orientation: orientation, emulateOn: emulateOn, secondScreen: secondScreen, primary: primary, secondary: secondary,
            arrangement: arrangement, multitasking: multitasking, palmRejection: palmRejection, penHoldoff: penHoldoff, steps: steps,
            clock: clock, idleTimeout: idleTimeout, blankSchedule: schedule)
        scenario.keyboardLanguages = languages
        return scenario
    }

    static func number(_ object: JSONValue, _ key: String, _ field: String, _ file: String) throws(ScenarioError) -> Double {
        guard let v = object[key] else { throw ScenarioError(file: file, field: "\(field).\(key)", reason: "is required") }
        guard let d = v.doubleValue, d.isFinite, abs(d) < 1e7 else { throw ScenarioError(file: file, field: "\(field).\(key)", reason: "must be a number") }
        return d
    }

    static let topLevelKeys = [
        "device", "orientation", "emulateOn", "secondScreen", "primary", "secondary", "arrangement", "multitasking", "palmRejection",
        "penHoldoffMs", "steps", "clock", "idleTimeout", "blankSchedule", "keyboardLayouts",
    ]
    static let stepKeys = ["at", "touch", "pen", "key", "pointer", "type", "press", "via", "rotate", "emulate", "capture", "screen", "wait", "waitFor"]

    /// Refuses a key of `object` that is not one of `known` (a misspelt key would otherwise
    /// be ignored silently), naming it and the keys that are.
    static func checkKeys(_ object: JSONValue, _ path: String, _ known: [String], _ file: String) throws(ScenarioError) {
        for (key, _) in object.objectValue ?? [] where !known.contains(key) {
            throw ScenarioError(
                file: file, field: path.isEmpty ? key : "\(path).\(key)",
                reason: "unknown key; the keys here are \(known.joined(separator: ", "))")
        }
    }

    /// An app: a string (a demo app, its first word, with optional demo flags; or any command
    /// line, shell-style quoting) or a JSON array of arguments.
    static func app(_ value: JSONValue, field: String, file: String) throws(ScenarioError) -> AppCommandLine {
        let app: AppCommandLine
        if let list = value.arrayValue {
            let words = list.compactMap(\.stringValue)
            guard words.count == list.count, !words.isEmpty, !words[0].isEmpty else {
                throw ScenarioError(file: file, field: field, reason: "must be a command line, or a non-empty list of strings (the program, then its arguments)")
            }
            app = AppCommandLine(arguments: words)
        } else if let text = value.stringValue {
            do { app = try AppCommandLine(parsing: text) } catch { throw ScenarioError(file: file, field: field, reason: error.description) }
        } else {
            throw ScenarioError(file: file, field: field, reason: "must be a command line, or a list of strings (the program, then its arguments)")
        }
        // The named demo apps take no parameters in their name; a pattern's colour is checked.
        if app.program.hasPrefix("pattern:") {
            do { _ = try DemoApp.named(app.program) } catch { throw ScenarioError(file: file, field: field, reason: error.description) }
        }
        return app
    }
}

// SPDX-License-Identifier: MIT
// When the screen blanks and wakes: after `idle-timeout` without input (held off while an app
// on screen asks to stay awake, as a playing video does), during the periods of a
// `blank-schedule` (local time; a wake there lasts the idle timeout or a minute), or when the
// operator says so. The first input wakes it and is swallowed whole. Pure: time and the local
// clock are given, so every rule is tested without waiting.

/// How a blanked screen is dark.
public enum BlankMode: String, CaseIterable, Sendable {
    /// The CRTC is turned off (KMS `ACTIVE` 0): the panel sleeps.
    case dpms
    /// A black frame stays on screen, for panels that ignore DPMS (and headless outputs).
    case black
}

/// A local time of the week: the weekday (0 Monday … 6 Sunday) and the minute of the day.
public struct WeekTime: Equatable, Sendable {
    public var weekday: Int
    public var minute: Int
    public init(weekday: Int, minute: Int) {
        self.weekday = weekday
        self.minute = minute
    }
    /// `YYYY-MM-DD HH:MM` (or with a `T`): its weekday and minute (nil when it is no such date).
    public init?(localDateTime text: String) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int($0) }, time = parts[1].split(separator: ":").compactMap { Int($0) }
        guard date.count == 3, time.count == 2, (1...12).contains(date[1]), (1...31).contains(date[2]), (0..<24).contains(time[0]), (0..<60).contains(time[1])
        else { return nil }
        // Days since 1970-01-01 (a Thursday), by the civil calendar's rule.
        let y = date[1] <= 2 ? date[0] - 1 : date[0], m = date[1], d = date[2]
        let era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        self.init(weekday: ((days % 7) + 7 + 3) % 7, minute: time[0] * 60 + time[1])
    }

    /// Minutes since Monday 00:00.
    var minuteOfWeek: Int { weekday * 1440 + minute }
}

/// The periods a screen is blank, as `Mon-Fri 20:00-07:00, Sat 18:00-09:00` says: days (one,
/// or a range that may wrap, e.g. `Sat-Mon`), then a start and an end time; an end at or
/// before its start is on the next day.
public struct BlankSchedule: Equatable, Sendable, CustomStringConvertible {
    public struct Period: Equatable, Sendable {
        public var days: [Int]
        public var start: Int
        public var end: Int
    }
    public private(set) var periods: [Period]
    public let description: String

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Parses `text`; the error says which part is wrong.
    public init(parsing text: String) throws(ScheduleError) {
        description = text
        periods = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 2 else { throw ScheduleError("'\(part.trimmingWhitespace)' is not DAYS HH:MM-HH:MM (e.g. Mon-Fri 20:00-07:00)") }
            let dayRange = words[0].lowercased().split(separator: "-").map { Self.dayNames.firstIndex(of: String($0)) }
            guard (1...2).contains(dayRange.count), let first = dayRange[0], let last = dayRange.last ?? nil else {
                throw ScheduleError("'\(words[0])' is not a day or a range of days (Mon … Sun, e.g. Mon-Fri)")
            }
            let times = words[1].split(separator: "-").map { Self.minute(String($0)) }
            guard times.count == 2, let start = times[0], let end = times[1] else {
                throw ScheduleError("'\(words[1])' is not HH:MM-HH:MM (e.g. 20:00-07:00)")
            }
            var days = [first], d = first
            while d != last { d = (d + 1) % 7; days.append(d) }
            periods.append(Period(days: days, start: start, end: end))
        }
        guard !periods.isEmpty else { throw ScheduleError("no period (e.g. Mon-Fri 20:00-07:00)") }
    }

    private static func minute(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440 else { return nil }
        return h * 60 + m
    }

    /// Whether `t` falls in one of the periods.
    public func contains(_ t: WeekTime) -> Bool {
        let week = 7 * 1440, now = t.minuteOfWeek
        for p in periods {
            let length = p.end > p.start ? p.end - p.start : p.end + 1440 - p.start
            for d in p.days {
                let start = d * 1440 + p.start
                if ((now - start) % week + week) % week < length { return true }
            }
        }
        return false
    }
}

public struct ScheduleError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The screen's power state and the rules that change it.
public struct ScreenPower: Sendable {
    /// Why the screen is blank.
    public enum Reason: String, Sendable {
        case idle, schedule, `operator`
    }

    /// Milliseconds without input before the screen blanks (nil: never for idleness).
    public var idleTimeout: UInt64?
    public var schedule: BlankSchedule?
    /// How long a wake lasts during a scheduled period without an idle timeout.
    public static let scheduledWake: UInt64 = 60_000

    /// Why the screen is blank now (nil: it is on).
    public private(set) var blanked: Reason?
    /// The last input (ms; the first update's time until there is one).
    private var lastInput: UInt64?
    /// Since when the screen has been idle: the last input, or the last moment an app held it awake.
    private var idleSince: UInt64?

    public init(idleTimeout: UInt64? = nil, schedule: BlankSchedule? = nil) {
        self.idleTimeout = idleTimeout
        self.schedule = schedule
    }

    /// Whether anything may ever blank the screen by itself.
    public var isActive: Bool { idleTimeout != nil || schedule != nil }

    /// What changes at `now` with the local time `local` and whether an app on screen holds it
    /// awake (`inhibited`): true when the screen is to blank, false when it is to wake (a
    /// scheduled blank whose period ended), nil for no change.
    public mutating func update(now: UInt64, local: WeekTime, inhibited: Bool) -> Bool? {
        if lastInput == nil { (lastInput, idleSince) = (now, now) }
        let scheduled = schedule?.contains(local) ?? false
        if let reason = blanked {
            guard reason == .schedule, !scheduled else { return nil }
            // The period ended: the screen comes on, idle from now.
            blanked = nil
            (lastInput, idleSince) = (now, now)
            return false
        }
        if inhibited { idleSince = now }
        if scheduled, now >= lastInput! + (idleTimeout ?? Self.scheduledWake) {
            blanked = .schedule
            return true
        }
        if let t = idleTimeout, now >= idleSince! + t {
            blanked = .idle
            return true
        }
        return nil
    }

    /// Input at `now`: true when it woke the screen (it is swallowed, with the rest of its gesture).
    public mutating func input(now: UInt64) -> Bool {
        (lastInput, idleSince) = (now, now)
        guard blanked != nil else { return false }
        blanked = nil
        return true
    }

    /// The operator blanks the screen; it stays blank until input or `wake`. False when it was already.
    public mutating func blank() -> Bool {
        guard blanked == nil else { return false }
        blanked = .`operator`
        return true
    }

    /// The operator wakes the screen at `now`; false when it was on.
    public mutating func wake(now: UInt64) -> Bool { input(now: now) }

    /// When the screen may next blank by itself (ms; nil: not by time alone — a schedule's
    /// periods begin and end on minute boundaries, checked at the minute wake).
    public func nextDeadline(local: WeekTime) -> UInt64? {
        guard blanked == nil, let lastInput, let idleSince else { return nil }
        var next = idleTimeout.map { idleSince + $0 }
        if schedule?.contains(local) == true { next = min(next ?? .max, lastInput + (idleTimeout ?? Self.scheduledWake)) }
        return next
    }
}

/// The input that woke the screen, swallowed whole: the finger, pen, button or key that woke
/// it is swallowed until it lifts or is released, so no app sees half a gesture.
public struct WakeGesture: Sendable {
    private var held: Set<String> = []
    public init() {}

    /// Whether `input` is swallowed; `woke`: it just woke the screen.
    public mutating func swallows(_ input: PanelInput, woke: Bool) -> Bool {
        let c = Self.contact(input)
        if woke {
            if let key = c.key, c.begins { held.insert(key) }
            return true
        }
        guard let key = c.key, held.contains(key) else { return false }
        if c.ends { held.remove(key) }
        return true
    }

    /// What `input` holds (nil: nothing, as motion), and whether it begins or ends holding it.
    private static func contact(_ input: PanelInput) -> (key: String?, begins: Bool, ends: Bool) {
        switch input {
        case .touch(let id, let phase, _, _): ("touch \(id)", phase == .down, phase == .up || phase == .cancel)
        case .pen(let phase, _, _, _, _, _, _, _): ("pen", phase == .down || phase == .proximityIn, phase == .up || phase == .proximityOut)
        case .key(let code, let pressed, _): ("key \(code)", pressed, !pressed)
        case .pointer(.button(let code, let pressed)): ("button \(code)", pressed, !pressed)
        case .pointer, .pointerMove: (nil, false, false)
        }
    }
}

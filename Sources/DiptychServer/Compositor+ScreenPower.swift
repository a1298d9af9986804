// SPDX-License-Identifier: MIT
// Screen power (`ScreenPower`'s rules): the screen blanks after the idle timeout, during a
// blank schedule's periods, or when the operator says; a playing Picture in Picture window or
// an app on screen holding `idleInhibit` keeps it on against the idle timeout. Blank, the
// output is turned off (KMS ACTIVE 0) or shows black, the apps on screen go to the background
// and the keyboard goes; the first input wakes it, swallowed whole, and the apps come back.

import DiptychCore
import DiptychLinux
import DiptychOutput

/// The screen's power: its rules and state, how it blanks, and the gesture that woke it.
final class ScreenState {
    var power = ScreenPower()
    var mode = BlankMode.dpms
    var gesture = WakeGesture()
    /// The output itself was turned off (rather than showing black).
    var outputOff = false
    /// The apps that asked to keep the screen awake (`idleInhibit`).
    var inhibitors: Set<AppID> = []
    /// The system's local time of the week until its minute ends (monotonic ms): read once a
    /// minute, not every turn.
    var wallWeek: (time: WeekTime, until: UInt64)?
}

extension Compositor {
    /// Whether the screen is blank.
    public var isBlanked: Bool { screen.power.blanked != nil }

    /// The local time of the week: the scenario's clock moved on by virtual time (from a Monday
    /// at 09:41 unless the scenario gives one), else the system's.
    var weekTime: WeekTime {
        guard let v = virtualTime else { return wallWeek().time }
        let start = configuration.clock ?? WeekTime(weekday: 0, minute: 9 * 60 + 41)
        let m = (start.weekday * 1440 + start.minute + Int(v / 60_000)) % (7 * 1440)
        return WeekTime(weekday: m / 1440, minute: m % 1440)
    }

    /// Whether something on screen keeps it awake: a playing Picture in Picture window, or an
    /// app on screen that holds `idleInhibit`.
    var screenHeldAwake: Bool {
        desk.pip.windows.contains { $0.playing } || shownApps.contains { screen.inhibitors.contains($0) }
    }

    private var shownApps: [AppID] { desk.shell.layout.panes.compactMap { desk.shell.app($0.role) } }

    /// Blanks or wakes the screen as its rules say now (each turn of the loop, each scenario step).
    func updateScreenPower() {
        guard screen.power.isActive else { return }
        switch screen.power.update(now: now, local: weekTime, inhibited: screenHeldAwake) {
        case true?: screenBlanked()
        case false?: screenWoke()
        case nil: break
        }
    }

    /// The operator blanks the screen (until input or `wakeScreen`); false when it was blank.
    @discardableResult
    public func blankScreen() -> Bool {
        guard screen.power.blank() else { return false }
        screenBlanked()
        return true
    }

    /// The operator wakes the screen; false when it was on.
    @discardableResult
    public func wakeScreen() -> Bool {
        guard screen.power.wake(now: now) else { return false }
        screenWoke()
        return true
    }

    /// Input on its way in: whether the screen swallows it (it woke the screen, or belongs to
    /// the gesture that did). Any input also restarts the idle timeout.
    func screenSwallows(_ input: PanelInput) -> Bool {
        let woke = screen.power.input(now: now)
        if woke { screenWoke() }
        return screen.gesture.swallows(input, woke: woke)
    }

    /// New screen power rules (a reload of the configuration), applied from now.
    public func setScreenPower(idleTimeout: UInt64?, schedule: BlankSchedule?, mode: BlankMode) {
        screen.power.idleTimeout = idleTimeout
        screen.power.schedule = schedule
        screen.mode = mode
    }

    /// An app asks to keep the screen awake while it is on screen, or stops asking.
    func setIdleInhibit(_ app: AppID, _ on: Bool) {
        if on { screen.inhibitors.insert(app) } else { screen.inhibitors.remove(app) }
    }

    /// When the screen may next blank by itself (ms): its idle deadline, and with a schedule
    /// the next minute (periods begin and end on minutes). Nil without rules or in virtual
    /// time (a scenario's steps update it).
    var screenPowerDeadline: UInt64? {
        guard screen.power.isActive, virtualTime == nil else { return nil }
        let local = wallWeek()
        return [screen.power.nextDeadline(local: local.time), screen.power.schedule != nil ? local.until : nil].compactMap { $0 }.min()
    }

    /// The system's local time of the week and when its minute ends (monotonic ms), read again
    /// only when that minute is over.
    private func wallWeek() -> (time: WeekTime, until: UInt64) {
        let now = MonotonicClock.milliseconds
        if let w = screen.wallWeek, now < w.until { return w }
        let local = WallClock.localMinute
        let w = (time: WeekTime(weekday: local.weekday, minute: local.minutes), until: now + local.untilNext)
        screen.wallWeek = w
        return w
    }

    private func screenBlanked() {
        logger.info("screen blanked", metadata: ["reason": "\(screen.power.blanked?.rawValue ?? "?")", "blank": "\(screen.mode.rawValue)"])
        desk.hideKeyboard(now: now)
        apply(shownApps.flatMap { [ShellEffect.lifecycle($0, .willResignActive), .lifecycle($0, .didEnterBackground)] }, byUser: false)
        // The frames are black from now on (an output that cannot be turned off shows them).
        redrawAll()
        blankVNC()
        if screen.mode == .dpms { screen.outputOff = backend.setPowered(false) }
    }

    private func screenWoke() {
        logger.info("screen woke")
        if screen.outputOff {
            _ = backend.setPowered(true)
            screen.outputOff = false
        }
        apply(shownApps.flatMap { [ShellEffect.lifecycle($0, .willEnterForeground), .activateWhenDrawn($0)] }, byUser: false)
        redrawAll()
    }
}

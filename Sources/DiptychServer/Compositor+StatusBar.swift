// SPDX-License-Identifier: MIT
// The status bar: drawn by the compositor over the apps, its style the primary's, its clock
// virtual in a scenario (from 09:41) and the local time otherwise, its title the device's and
// its battery the system's (or none).

import DiptychCore
import DiptychLinux
import DiptychWire

/// Where the status bar's battery comes from.
public enum BatterySource: Equatable, Sendable {
    /// No battery is shown (a kiosk on mains power).
    case none
    /// This charge, in percent (screenshots, tests).
    case fixed(Int)
    /// The system's first battery (`/sys/class/power_supply`), none if it has none.
    case system
}

extension Compositor {
    /// What the status bar shows now, or nil when it is off.
    var statusBar: StatusBar? {
        guard configuration.statusBar else { return nil }
        return StatusBar(
            style: session(.primary)?.statusBarStyle ?? .dark, time: clockText,
            title: configuration.statusBarTitle ?? shell.profile.title ?? "", battery: batteryPercent)
    }

    /// The battery's charge to show: fixed, none, or the system's read once a minute with the
    /// clock (a charge read on every frame would cost a file read per frame).
    var batteryPercent: Int? {
        switch configuration.battery {
        case .none: return nil
        case .fixed(let p): return p
        case .system:
            let now = MonotonicClock.milliseconds
            if let c = batteryCache, now < c.until { return c.percent }
            let p = PowerSupply.batteryPercent()
            batteryCache = (p, now + 60_000)
            return p
        }
    }

    /// The safe-area insets of a pane: the status bar's height over a pane under it.
    func safeAreaInsets(of pane: Pane) -> EdgeInsets {
        guard configuration.statusBar, pane.frame.minY < StatusBar.height else { return .zero }
        return EdgeInsets(top: Double(StatusBar.height - pane.frame.minY))
    }

    /// The status bar's nodes on a screen `width` logical pixels wide (none when it is off or
    /// hidden), laid out again only when the bar or the screen changed.
    func statusBarNodes(width: Int, scale: Int) -> [SceneNode] {
        guard let bar = statusBar else { return [] }
        if let c = statusBarLayout, c.bar == bar, c.width == width, c.scale == scale { return c.nodes }
        let nodes = bar.nodes(screenWidth: width, scale: scale, text: renderer.chrome.metrics)
        statusBarLayout = (bar, width, scale, nodes)
        return nodes
    }

    /// The status bar's time: the virtual clock from 09:41 in a scenario, else the wall clock.
    var clockText: String {
        if let fixed = configuration.statusBarTime { return fixed }
        if let virtualTime {
            let minute = virtualTime / 60_000
            if let c = virtualClockCache, c.minute == minute { return c.text }
            let text = StatusBar.clock(milliseconds: virtualTime)
            virtualClockCache = (minute, text)
            return text
        }
        return wallClock().text
    }

    /// When the clock next changes (monotonic milliseconds), for the repaint loop to wake.
    var nextClockDeadline: UInt64? {
        guard configuration.statusBar, configuration.statusBarTime == nil, virtualTime == nil,
            session(.primary)?.statusBarStyle != .hidden
        else { return nil }
        return wallClock().until
    }

    /// The local time's text and when it changes, read from the system once a minute (not
    /// on every frame and every loop turn).
    private func wallClock() -> (text: String, until: UInt64) {
        let now = MonotonicClock.milliseconds
        if let c = wallClockCache, now < c.until { return c }
        let local = WallClock.localMinute
        let c = (text: StatusBar.clock(milliseconds: 0, startMinutes: local.minutes), until: now + local.untilNext)
        wallClockCache = c
        return c
    }

    /// A `statusBarStyle` request: the primary's is kept (and shown while it is primary); a
    /// secondary's is refused.
    func setStatusBarStyle(_ style: StatusBarStyle, from c: ClientSession) throws(ProtocolError) {
        guard c.admitted, shell.primary == c.app else {
            throw ProtocolError(.notPrimary, "statusBarStyle \(style.rawValue): only the primary app may style the status bar")
        }
        c.statusBarStyle = style
    }
}

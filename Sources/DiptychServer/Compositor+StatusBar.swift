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

/// What the status bar shows, kept between frames: the local time until its minute changes,
/// the virtual clock's minute, the battery for a minute, and the bar's nodes as last laid out
/// (laid out again only when what it shows changes).
final class StatusBarCache {
    private var wall: (text: String, until: UInt64)?
    private var virtual: (minute: UInt64, text: String)?
    private var battery: (percent: Int?, until: UInt64)?
    private var layout: (bar: StatusBar, width: Int, scale: Int, nodes: [SceneNode])?
    /// Bumped whenever the bar is laid out anew: the scene layer's generation.
    private var generation: UInt64 = 0

    /// The clock's text: `fixed`, the virtual clock (from 09:41) in a scenario, else the local
    /// time.
    private func clockText(fixed: String?, virtualTime: (milliseconds: UInt64, startMinutes: Int)?) -> String {
        if let fixed { return fixed }
        guard let virtualTime else { return wallClock().text }
        let minute = virtualTime.milliseconds / 60_000
        if let c = virtual, c.minute == minute { return c.text }
        let text = StatusBar.clock(milliseconds: virtualTime.milliseconds, startMinutes: virtualTime.startMinutes)
        virtual = (minute, text)
        return text
    }

    /// The local time and when its minute ends (monotonic ms).
    func wallClock() -> (text: String, until: UInt64) {
        let now = MonotonicClock.milliseconds
        if let c = wall, now < c.until { return c }
        let local = WallClock.localMinute
        let c = (text: StatusBar.clock(milliseconds: 0, startMinutes: local.minutes), until: now + local.untilNext)
        wall = c
        return c
    }

    /// The battery's charge from `source`, the system's read at most once a minute.
    private func batteryPercent(_ source: BatterySource) -> Int? {
        switch source {
        case .none: return nil
        case .fixed(let p): return p
        case .system:
            let now = MonotonicClock.milliseconds
            if let c = battery, now < c.until { return c.percent }
            let p = PowerSupply.batteryPercent()
            battery = (p, now + 60_000)
            return p
        }
    }

    /// The bar showing `style`, `title`, the clock (see `clockText`) and the battery from
    /// `battery`, as nodes on a screen `width` points wide at `scale`, and their generation (the
    /// same as long as the bar is laid out the same).
    func layer(
        style: StatusBarStyle, trailing: (style: StatusBarStyle, from: Int)?, title: String, fixedTime: String?, virtualTime: (milliseconds: UInt64, startMinutes: Int)?,
        battery source: BatterySource, width: Int, scale: Int, metrics: any TextMetrics
    ) -> (nodes: [SceneNode], generation: UInt64) {
        var bar = StatusBar(style: style, time: clockText(fixed: fixedTime, virtualTime: virtualTime), title: title, battery: batteryPercent(source))
        if let trailing {
            bar.trailing = trailing.style
            bar.trailingFrom = trailing.from
        }
        if let c = layout, c.bar == bar, c.width == width, c.scale == scale { return (c.nodes, generation) }
        let nodes = bar.nodes(screenWidth: width, scale: scale, text: metrics)
        layout = (bar, width, scale, nodes)
        generation += 1
        return (nodes, generation)
    }
}

extension Compositor {
    func safeAreaInsets(of pane: Pane) -> EdgeInsets {
        guard configuration.statusBar, pane.frame.minY < StatusBar.height else { return .zero }
        return EdgeInsets(top: Double(StatusBar.height - pane.frame.minY))
    }

    /// The status bar's layer on a screen `width` logical pixels wide at `scale` (nil when it is
    /// off), laid out again only when what it shows or the screen changed: the primary's style,
    /// the clock (virtual from 09:41 in a scenario, else the local time), the title, the battery
    /// (read from the system at most once a minute).
    func statusBarLayer(width: Int, scale: Int) -> (nodes: [SceneNode], generation: UInt64)? {
        guard configuration.statusBar else { return nil }
        // In Split View each part of the bar takes the style of the app beneath it; in full
        // screen and over a Slide Over (which floats below the bar) it lies on the primary.
        let bar = desk.statusBarPlaces
        let trailing = bar.secondaryFrom.map { (style: barStyle(of: session(.secondary), primary: false), from: $0 * scale) }
        return main.statusBar.layer(
            style: barStyle(of: session(.primary), primary: true), trailing: trailing,
            title: configuration.statusBarTitle ?? bar.deviceTitle ?? "",
            fixedTime: configuration.statusBarTime, virtualTime: virtualTime.map { ($0, configuration.clock?.minute ?? 9 * 60 + 41) }, battery: configuration.battery,
            width: width, scale: scale, metrics: renderer.chrome.metrics)
    }

    /// When the clock next changes (monotonic milliseconds), for the repaint loop to wake.
    var nextClockDeadline: UInt64? {
        guard configuration.statusBar, configuration.statusBarTime == nil, virtualTime == nil,
            barStyle(of: session(.primary), primary: true) != .hidden
        else { return nil }
        return main.statusBar.wallClock().until
    }

    /// The style of the bar over `c`'s pane: what it asked for, else the one with the better
    /// contrast over its content's dominant colour. Only the primary may hide the bar.
    func barStyle(of c: ClientSession?, primary: Bool) -> StatusBarStyle {
        if let asked = c?.statusBarStyle, primary || asked != .hidden { return asked }
        return c?.tint.map(StatusBar.contrasting) ?? .dark
    }

    /// A `statusBarStyle` request: every app's is kept; the primary's styles the bar (a
    /// secondary's is not an error: it is shown when the app becomes the primary).
    func setStatusBarStyle(_ style: StatusBarStyle, from c: ClientSession) {
        c.askedStatusBarStyle(style)
    }
}

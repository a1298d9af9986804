// SPDX-License-Identifier: MIT
// What a demo app is asked to be: its app, its event log, and the behaviours tests and profiles
// ask of it (a slow or hung app, a busy one, a pen latency probe, one that grows past its limit).

import DiptychCore

/// What the demo process was asked to do.
public struct DemoOptions: Sendable {
    public var app: DemoApp
    public var eventLog: String?
    public var requiresFullScreen = false
    /// Answer snapshot requests this many milliseconds (of the compositor's clock) late.
    public var snapshotDelay: UInt64 = 0
    /// Play a hung app: after the first frame, never ack a configure or answer a snapshot.
    public var noAck = false
    /// After the first frame is shown, redraw the whole buffer in another colour but report
    /// only this damage box (buffer pixels): a damage-exactness probe.
    public var recolorDamage: Rect?
    /// Draw a new full-damage frame after every `frameDone` (a busy app, for profiling).
    public var animate = false
    /// Draw a dot where each pen event lands and commit it at once, taking this many
    /// milliseconds a dot (the latency workload's app); nil: the app's own drawing.
    public var penDots: Double?
    /// Ask for this status bar style once the first frame is on screen.
    public var statusBarStyle: StatusBarStyle?
    /// Open Picture in Picture once the first frame is on screen (as the primary may), not
    /// only when going to the background (`tv`).
    public var pictureInPicture = false
    /// Once the first frame is on screen, take and touch this many MiB and hold them (an app
    /// that grows past its memory limit, for tests).
    public var holdMegabytes = 0
    /// Burn every core with busy threads once the first frame is on screen (a neighbour that
    /// takes all the CPU it is given, for the latency workload's `--neighbour busy`).
    public var burn = false

    public init(app: DemoApp, eventLog: String? = nil, requiresFullScreen: Bool = false, snapshotDelay: UInt64 = 0, noAck: Bool = false) {
        self.app = app
        self.eventLog = eventLog
        self.requiresFullScreen = requiresFullScreen
        self.snapshotDelay = snapshotDelay
        self.noAck = noAck
    }
}

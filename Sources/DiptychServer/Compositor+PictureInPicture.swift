// SPDX-License-Identifier: MIT
// Picture in Picture: a second surface an app commits like its main one, shown in a
// floating window over both panes. Opening one is the primary's privilege (or, for automatic
// invocation, the app's that was primary when it went to the background); once open it stays
// on screen whatever the app's role until the app closes it or goes away. Touches on a window
// move it; the apps below never see them.

import DiptychCore
import DiptychWire

extension Compositor {
    /// Where the windows live: the logical screen, below the status bar when it is drawn.
    var pipSpace: PiPSpace { desk.pipSpace(topInset: pipTopInset) }

    /// Where the windows' space begins: below the status bar when it is drawn.
    var pipTopInset: Int { configuration.statusBar ? StatusBar.height : 0 }

    /// The windows as drawn at `now`, bottom to top.
    var floatingWindows: [FloatingWindow] { floatingWindows(desk.pip.shown(in: pipSpace, at: now)) }

    /// The windows `shown` (bottom to top) that have a picture: the app's surface, or the copy
    /// of its last one while a closed window shrinks back into the app.
    func floatingWindows(_ shown: [PiPShown]) -> [FloatingWindow] {
        shown.compactMap { w in
            guard let c = session(w.app), let image = w.closing ? c.pip.departing?.ref : c.pip.surface?.image.ref else { return nil }
            return FloatingWindow(app: w.app, frame: w.frame, image: image, controls: w.controls, playing: w.playing, stashedLeft: w.stashedLeft)
        }
    }

    /// The frames of the Picture in Picture windows at `now`, in points (for `frames.json`).
    public var pipFrames: [Rect] { floatingWindows.map(\.frame) }

    /// Where `app`'s video is on screen (points): `source` (the app's, in its pane as it was
    /// when given, `given`) placed in its pane now or where the pane last was, scaled with the
    /// pane when it changed size since, kept inside it; without one, a small rectangle at the
    /// pane's centre. Nil when the app never had a pane.
    func videoRect(of app: AppID, source: Rect?, given: Rect? = nil) -> Rect? {
        guard let pane = desk.paneFrame(of: app) else { return nil }
        return PictureInPicture.videoRect(source, given: given, pane: pane)
    }

    /// Whether an app may open a window: the primary, or the app that was primary when it
    /// left the screen (iOS's automatic invocation, in answer to `didEnterBackground`).
    func mayOpenPiP(_ c: ClientSession) -> Bool { c.admitted && (desk.shell.primary == c.app || c.pip.eligible) }

    /// Keeps each app's eligibility up to date after the roles change: the primary is
    /// eligible, an app shown as the secondary is not, an app in the background keeps what it
    /// had when it left.
    func updatePiPEligibility() {
        for c in clients.all where c.admitted {
            // Back on screen, an app may open the window again after the user closed it.
            if desk.shell.pane(of: c.app) != nil { c.setPiPClosedByUser(false) }
            if desk.shell.primary == c.app {
                c.setPiPEligible(true)
            } else if desk.shell.pane(of: c.app) != nil {
                c.setPiPEligible(false)
            }
        }
    }

    /// `pipCommit`: shows the buffer in the app's window, opening it if needed.
    func pipCommit(_ id: UInt32, playing: Bool, sourceRect: Rect?, damage bufferDamage: [Rect], from c: ClientSession) throws(ProtocolError) {
        let buffer = try c.buffers.buffer(id, for: "pipCommit")
        let size = Size(width: buffer.pixels.width, height: buffer.pixels.height)
        let screen = desk.shell.profile.pixelSize(.landscape)
        if let why = PictureInPicture.refusal(bufferSize: size, longestSide: max(screen.width, screen.height)) {
            throw ProtocolError(.badDimensions, why)
        }
        if c.pip.surface == nil {
            guard !c.pip.closedByUser else {
                refuse(c, request: "pictureInPicture", reason: "closed", "pipCommit: the user closed this app's Picture in Picture; it may open again once the app is back on screen", releasing: id)
                return
            }
            guard mayOpenPiP(c) else {
                // iOS declines the automatic Picture in Picture of an app that is not the
                // primary; the app lives on and may come back.
                refuse(c, request: "pictureInPicture", reason: "not-primary", "pipCommit: only the primary app (or the app that was primary when it went to the background) may open Picture in Picture", releasing: id)
                return
            }
            logger.debug("picture in picture opened", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "buffer.size": "\(size)"])
        }
        let sourcePane = desk.paneFrame(of: c.app)
        // Opening, it grows out of the app's video (under Reduce Motion it fades in).
        let source = configuration.reduceMotion ? nil : videoRect(of: c.app, source: sourceRect)
        desk.showPiP(c.app, bufferSize: size, playing: playing, from: source, now: now)
        c.showPiP(hold(buffer), damage: bufferDamage, stamp: clients.stampCommit(), sourceRect: sourceRect, sourcePane: sourcePane)
        // A buffer of a new size is repainted whole by the scene's change (the damage tracker
        // compares sizes); its commit damage adds nothing then.
        if let node = pipNode(of: c) { damageCommit(bufferDamage, at: node) }
    }

    /// `pipClose`: the window goes (its last buffer is released). An app on screen (it came
    /// back) takes the window back: it shrinks into the app's video, showing its last picture
    /// (the buffer, held until the window is gone: nothing is copied).
    func pipClose(from c: ClientSession) {
        let into = desk.shell.pane(of: c.app) != nil && !configuration.reduceMotion ? videoRect(of: c.app, source: c.pip.sourceRect, given: c.pip.sourcePane) : nil
        if into != nil, let ref = c.pip.surface?.image.ref {
            c.beginDeparture(as: ImageRef(id: clients.newImageID(), width: ref.width, height: ref.height))
        }
        guard desk.closePiP(c.app, into: into, space: pipSpace, now: now) else { return }
        scheduleFrame()
        c.hidePiP()
        logger.debug("picture in picture closed", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)"])
    }

    /// Where the app's window image is drawn now.
    func pipNode(of c: ClientSession) -> SceneNode? {
        guard let w = floatingWindows.first(where: { $0.app == c.app }) else { return nil }
        return SceneBuilder.window(w, scale: desk.shell.profile.scale).first { $0.key == .pip(c.app) }
    }

    /// A tap on a window's control: the app is told; `close` closes the window (its buffer
    /// released), `restore` brings the app back on screen as the primary (it takes the window
    /// back when it closes it).
    func pipAction(_ action: PiPAction, of app: AppID) {
        guard let c = session(app) else { return }
        send(.pipAction(action), to: c)
        switch action {
        case .close:
            if desk.closePiP(app) { c.hidePiP() }
            // Closed by the user: it stays closed until the app is on screen again.
            if desk.shell.pane(of: app) == nil { c.setPiPClosedByUser(true) }
        case .restore:
            apply(desk.restore(app, now: now))
        case .playPause:
            break
        }
    }
}

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
    var floatingWindows: [FloatingWindow] { floatingWindows(desk.pip.frames(in: pipSpace, at: now)) }

    /// The windows at `frames` (bottom to top) that show a surface.
    func floatingWindows(_ frames: [(app: AppID, frame: Rect)]) -> [FloatingWindow] {
        frames.compactMap { w in session(w.app)?.pip.surface.map { FloatingWindow(app: w.app, frame: w.frame, image: $0.image.ref) } }
    }

    /// The frames of the Picture in Picture windows at `now`, in points (for `frames.json`).
    public var pipFrames: [Rect] { floatingWindows.map(\.frame) }

    /// Whether an app may open a window: the primary, or the app that was primary when it
    /// left the screen (iOS's automatic invocation, in answer to `didEnterBackground`).
    func mayOpenPiP(_ c: ClientSession) -> Bool { c.admitted && (desk.shell.primary == c.app || c.pip.eligible) }

    /// Keeps each app's eligibility up to date after the roles change: the primary is
    /// eligible, an app shown as the secondary is not, an app in the background keeps what it
    /// had when it left.
    func updatePiPEligibility() {
        for c in clients.all where c.admitted {
            if desk.shell.primary == c.app {
                c.pip.eligible = true
            } else if desk.shell.pane(of: c.app) != nil {
                c.pip.eligible = false
            }
        }
    }

    /// `pipCommit`: shows the buffer in the app's window, opening it if needed.
    func pipCommit(_ id: UInt32, damage bufferDamage: [Rect], from c: ClientSession) throws(ProtocolError) {
        let buffer = try c.buffers.buffer(id, for: "pipCommit")
        let size = Size(width: buffer.pixels.width, height: buffer.pixels.height)
        let screen = desk.shell.profile.pixelSize(.landscape)
        if let why = PictureInPicture.refusal(bufferSize: size, longestSide: max(screen.width, screen.height)) {
            throw ProtocolError(.badDimensions, why)
        }
        if c.pip.surface == nil {
            guard mayOpenPiP(c) else {
                // iOS declines the automatic Picture in Picture of an app that is not the
                // primary; the app lives on and may come back.
                refuse(c, request: "pictureInPicture", reason: "not-primary", "pipCommit: only the primary app (or the app that was primary when it went to the background) may open Picture in Picture", releasing: id)
                return
            }
            logger.debug("picture in picture opened", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "buffer.size": "\(size)"])
        }
        desk.showPiP(c.app, bufferSize: size)
        c.showPiP(hold(buffer), damage: bufferDamage)
        c.lastCommit = clients.stampCommit()
        c.pip.frameDonePending = true
        // A buffer of a new size is repainted whole by the scene's change (the damage tracker
        // compares sizes); its commit damage adds nothing then.
        if let node = pipNode(of: c) { damageCommit(bufferDamage, at: node) }
    }

    /// `pipClose`: the window goes (its last buffer is released).
    func pipClose(from c: ClientSession) {
        guard desk.closePiP(c.app) else { return }
        c.hidePiP()
        logger.debug("picture in picture closed", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)"])
    }

    /// Where the app's window image is drawn now.
    func pipNode(of c: ClientSession) -> SceneNode? {
        guard let w = floatingWindows.first(where: { $0.app == c.app }) else { return nil }
        return SceneBuilder.window(w, scale: desk.shell.profile.scale).first { $0.key == .pip(c.app) }
    }

    /// A finger touch for the windows: a `down` on one picks it up, and every later sample of
    /// that touch moves it or lets it settle. Returns whether the touch is a window's (the
}

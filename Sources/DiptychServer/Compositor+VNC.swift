// SPDX-License-Identifier: MIT
// Remote support: the VNC server (`vnc`, SPEC §23) as the compositor carries it out. Its loop
// is one descriptor of the compositor's; each frame drawn is copied to it, damage only, while a
// viewer watches (a viewer come gets the whole screen; a blank screen is black); with
// `vnc-input`, a viewer's pointer is the compositor's pointer and its keys are hardware keys
// through the keymap, never the on-screen keyboard's.

import DiptychCore
import DiptychImage
import DiptychKeyboard
import DiptychVNC

extension Compositor {
    /// Starts the VNC server `settings` describe (its errors name the flag or file).
    public func startVNC(_ settings: VNCSettings) throws(VNCError) {
        let server = try VNCServer(settings, size: geometry.panel, logger: logger)
        vnc = server
        watch(server.descriptor) { [weak server] in server?.dispatch() }
        server.onViewerCame = { [weak self, weak server] in
            guard let self, let server else { return }
            // A viewer come sees the screen as it is now.
            server.feedWhole(isBlanked ? nil : output)
            vncCursorMayHaveChanged()
        }
        server.onPointer = { [weak self] x, y, buttons, before in self?.vncPointer(x: x, y: y, buttons: buttons, before: before) }
        server.onKey = { [weak self] keysym, pressed in self?.vncKey(keysym, pressed: pressed) }
        if settings.tls == nil {
            logger.warning("vnc: plain and view-only on \(settings.address) (vnc-insecure): any local process, the apps included, can watch the screen")
        }
        vncCursorMayHaveChanged()
        logger.notice("vnc: listening", metadata: ["vnc.address": "\(settings.address)", "vnc.input": "\(settings.input)", "vnc.tls": "\(settings.tls != nil)"])
    }

    /// The cursor the viewers draw where their pointer is, with `vnc-input` (their pointer is
    /// the compositor's): the iPad's disc, opaque (an RFB cursor has no translucency: its shade
    /// over white), while the frames do not show the compositor's own (it is on the cursor
    /// plane, or `cursor = hidden`); none while the frames show it, so that one disc is seen.
    func vncCursorMayHaveChanged() {
        guard let vnc, vnc.settings.input else { return }
        guard cursorOnPlane || desk.pointer.mode == .hidden else { return vnc.setCursor(nil, hotspot: (0, 0)) }
        let diameter = Int((Double(PointerState.diameter) * Double(desk.shell.profile.scale) * geometry.scale).rounded())
        let a = Int(ChromeStyle.cursorAlpha), c = ChromeStyle.cursorColor
        func shade(_ v: UInt8) -> UInt8 { UInt8((Int(v) * a + 255 * (255 - a)) / 255) }
        let disc = PixelImage.disc(diameter: diameter, color: RGB(red: shade(c.red), green: shade(c.green), blue: shade(c.blue)), alpha: 255)
        vnc.setCursor(disc, hotspot: (diameter / 2, diameter / 2))
    }

    /// Stops the VNC server, if one runs.
    func stopVNC() {
        guard let server = vnc else { return }
        unwatch(server.descriptor)
        server.close()
        vnc = nil
    }

    /// The frame just drawn into `image`, `damage` of it new (nil: all), goes to the viewers
    /// once the frame is out (`sendVNCFrame`): its copy is no part of the frame's time, nor of
    /// the repaint window the apps' frames are timed by.
    func frameToVNC(_ image: PixelImage, damage: Region?) { vnc?.frame(image, damage: damage) }

    /// Copies the frames drawn since the last copy to the viewers, when one is due (the loop
    /// calls it before it waits, and when `vncDeadline` comes).
    func sendVNCFrame() { vnc?.send(now: now) }

    /// When a frame held back for the viewers goes to them.
    var vncDeadline: UInt64? { vnc?.deadline }

    /// The screen blanked: the viewers see black (the frame drawn when it wakes shows again).
    func blankVNC() { vnc?.feedWhole(nil) }

    /// The viewers connected now (0 without a server).
    public var vncClients: Int { vnc?.clients ?? 0 }

    /// What `status` says of the VNC server (nil: none runs).
    var vncStatus: JSONValue? {
        guard let vnc else { return nil }
        return .object([
            ("address", .string(vnc.settings.address.description)), ("clients", .int(vnc.clients)),
            ("tls", .bool(vnc.settings.tls != nil)), ("input", .bool(vnc.settings.input)),
        ])
    }

    /// A viewer's pointer at panel pixel (`x`, `y`) with `buttons` down (RFB's mask): motion,
    /// the buttons that changed, a wheel step for each wheel bit that came on.
    private func vncPointer(x: Int, y: Int, buttons: UInt8, before: UInt8) {
        let p = geometry.toLogical(x: Double(x), y: Double(y)), scale = Double(desk.shell.profile.scale)
        pointerMotion(toX: p.x / scale, y: p.y / scale)
        for (bit, code) in [(UInt8(1), PointerButton.left), (4, PointerButton.right), (2, PointerButton.middle)] where (before ^ buttons) & bit != 0 {
            pointerButton(code, pressed: buttons & bit != 0)
        }
        // (A wheel step comes as its bit set, then cleared.)
        for (bit, dy) in [(UInt8(8), -15.0), (16, 15.0)] where buttons & bit != 0 && before & bit == 0 {
            pointerScroll(dx: 0, dy: dy, source: .wheel)
        }
    }

    /// A viewer's key: the keymap's key for the keysym (with Shift around it when the keysym is
    /// at the key's second level and Shift is not down: viewers send `A` for a capital alone).
    private func vncKey(_ keysym: UInt32, pressed: Bool) {
        guard let (code, level) = keys.keymap?.keycode(forKeysym: keysym) else {
            logger.debug("vnc: a key no key of the keymap gives", metadata: ["vnc.keysym": "\(keysym)"])
            return
        }
        let shift = level == 1 && keys.keymap?.modifiers.contains(.shift) == false ? keys.keymap?.keycode(forKeysymNamed: "Shift_L") : nil
        if pressed, let shift { key(shift, pressed: true) }
        key(code, pressed: pressed)
        if pressed, let shift { key(shift, pressed: false) }
    }
}

// SPDX-License-Identifier: MIT
// `diptych-hello`: the smallest complete Diptych app, the client guide's example. It fills its
// pane by size class (blue when regular, orange when compact), keeps clear of the status bar,
// draws a dot under every touch and pen stroke (in each buffer only what it lacks), answers
// snapshot requests at the size asked, and draws at most one frame per frameDone. Run it: `diptych run --primary .build/debug/diptych-hello`.

import DiptychClient

final class Hello {
    let connection: Connection
    var configure: Configure?
    var dots: [(x: Double, y: Double)] = []  // in points of the pane
    var needsFrame = false, waitingForFrame = false
    /// What each buffer of the pool shows already: the look it was painted for, and its dots.
    var painted: [UInt32: (look: [Double], dots: Int)] = [:]

    init() throws { connection = try Connection.fromEnvironment() }

    /// Draws the app at `pixelWidth` × `pixelHeight` for a pane of `sizeClass` into a buffer:
    /// only what the buffer lacks (its background once for this look, then the new dots).
    func draw(width: Int, height: Int, scale: Double, sizeClass: SizeClass, top: Double) throws -> ShmBuffer {
        let buffer = try connection.buffer(width: width, height: height)
        let look = [sizeClass == .regular ? 1 : 0, top, scale]
        var shown = painted[buffer.id].flatMap { $0.look == look ? $0.dots : nil } ?? 0
        if painted[buffer.id]?.look != look {
            buffer.fill(Rect(x: 0, y: 0, width: width, height: height), color: sizeClass == .regular ? 0x2F6FB5 : 0xE08A1E)
            // A white band where the content starts, below the safe area's top.
            buffer.fill(Rect(x: 0, y: Int(top * scale), width: width, height: Int(4 * scale)), color: 0xFFFFFF)
            shown = 0
        }
        let r = 6 * scale
        for d in dots[shown...] {
            buffer.fill(Rect(x: Int(d.x * scale - r), y: Int(d.y * scale - r), width: Int(2 * r), height: Int(2 * r)), color: 0xFFFFFF)
        }
        painted[buffer.id] = (look, dots.count)
        if painted.count > 16, let gone = painted.keys.min() { painted[gone] = nil }  // sizes gone by
        return buffer
    }

    /// Commits a new frame of the live pane, unless one is still on its way to the screen.
    func present() throws {
        guard let c = configure else { return }
        if waitingForFrame {
            needsFrame = true
            return
        }
        let b = try draw(width: c.pixelWidth, height: c.pixelHeight, scale: c.scale, sizeClass: c.horizontalSizeClass, top: c.safeAreaInsets.top)
        try connection.commit(b)
        (waitingForFrame, needsFrame) = (true, false)
    }

    func run() throws {
        try connection.hello(name: "hello")
        while let event = try connection.nextEvent() {
            switch event {
            case .configure(let c):
                configure = c
                try connection.ack(c.serial)
                waitingForFrame = false  // a new size: draw it now
                try present()
            case .snapshotRequest(let serial, let frame, let w, let h, let sizeClass):
                // The pane as it would look at another size; the live surface stays as it is.
                let top = Double(max(0, 20 - frame.y))
                try connection.snapshot(try draw(width: w, height: h, scale: Double(w) / Double(frame.width), sizeClass: sizeClass, top: top), serial: serial)
            case .touch(_, let phase, let x, let y, _) where phase == .down || phase == .motion:
                dots.append((x, y))
                try present()
            case .pen(let phase, let x, let y, _, _, _, _, _, _) where phase == .down || phase == .motion:
                dots.append((x, y))
                try present()
            case .frameDone:
                waitingForFrame = false
                if needsFrame { try present() }
            case .lifecycle(let e):
                print("hello: \(e)")
            case .error(let e):
                print("hello: the compositor refused: \(e)")
                return
            default:
                break  // sync is answered by the connection; release frees buffers by itself
            }
        }
    }
}

do { try Hello().run() } catch { print("hello: \(error)") }

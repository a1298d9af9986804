// SPDX-License-Identifier: MIT
// `diptych-hello`: the smallest complete Diptych app, the client guide's example. It fills its
// pane by size class (blue when regular, orange when compact), keeps clear of the status bar,
// draws a dot under every touch and pen stroke (in each buffer only what it lacks), has a text
// field a tap raises the on-screen keyboard for, answers snapshot requests at the size asked, and
// draws at most one frame per frameDone. Run it: `diptych run --primary .build/debug/diptych-hello`.

import DiptychClient

final class Hello {
    let connection: Connection
    var configure: Configure?
    var dots: [(x: Double, y: Double)] = []  // in points of the pane
    var needsFrame = false, waitingForFrame = false
    /// What each buffer of the pool shows already: the look it was painted for, its dots, and
    /// the field as it was at which of its changes.
    var painted: [UInt32: (look: [Double], dots: Int, field: Int)] = [:]
    /// The text field: what it holds (printable ASCII, at most 24), whether it takes text, a count
    /// of its changes, and the touch that went down on it.
    var text = "", editing = false, fieldChanges = 0, fieldTouch: Int32?

    init() throws { connection = try Connection.fromEnvironment() }

    /// Draws the app at `pixelWidth` × `pixelHeight` for a pane of `sizeClass` into a buffer:
    /// only what the buffer lacks (its background once for this look, then the new dots).
    func draw(width: Int, height: Int, scale: Double, sizeClass: SizeClass, top: Double) throws -> ShmBuffer {
        let buffer = try connection.buffer(width: width, height: height)
        let look = [sizeClass == .regular ? 1 : 0, top, scale]
        var shown = painted[buffer.id].flatMap { $0.look == look ? $0.dots : nil } ?? 0
        var field = painted[buffer.id].flatMap { $0.look == look ? $0.field : nil } ?? -1
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
        if field != fieldChanges || shown != dots.count {
            // The field over the dots: white, its text (or a hint) and a caret.
            let fx = Int(12 * scale), fy = Int((top + 16) * scale), fh = Int(40 * scale), px = Int(2 * scale), tx = fx + Int(8 * scale)
            buffer.fill(Rect(x: fx, y: fy, width: width - 2 * fx, height: fh), color: 0xFFFFFF)
            let drawn = buffer.drawText(text.isEmpty && !editing ? "Tap to type" : text, x: tx, y: fy + (fh - 7 * px) / 2, scale: px,
                                        color: text.isEmpty ? 0x8E8E93 : 0x1C1C1E)
            if editing {
                buffer.fill(Rect(x: tx + (text.isEmpty ? 0 : drawn) + Int(scale), y: fy + Int(8 * scale), width: Int(2 * scale), height: fh - 2 * Int(8 * scale)), color: 0x2F6FB5)
            }
            field = fieldChanges
        }
        painted[buffer.id] = (look, dots.count, field)
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

    /// The field changed: the compositor is told what it takes (the caret after its text), and
    /// it is drawn.
    func fieldChanged() throws {
        let top = configure?.safeAreaInsets.top ?? 0
        try connection.setTextInput(TextInputState(
            enabled: editing, purpose: .text, hints: [.capitalizeSentences], returnKey: .done,
            caret: (21 + 12 * Double(text.count), top + 24, 2, 24), surrounding: text))
        fieldChanges += 1
        try present()
    }

    /// A finger or the pen: a tap on the field edits it, a tap elsewhere ends that; strokes
    /// leave dots.
    func contact(id: Int32, down: Bool, up: Bool, x: Double, y: Double) throws {
        guard let c = configure else { return }
        let top = c.safeAreaInsets.top
        if down && x >= 12 && x < Double(c.frame.width) - 12 && y >= top + 16 && y < top + 56 {
            fieldTouch = id
            return
        }
        if id == fieldTouch {
            if up {
                fieldTouch = nil
                if !editing { editing = true; try fieldChanged() }
            }
            return
        }
        if !up {
            dots.append((x, y))
            try present()
        } else if editing {
            editing = false
            try fieldChanged()
        }
    }

    /// Typed text joins the field (printable ASCII, as much as it holds).
    func type(_ typed: String) throws {
        for c in typed.unicodeScalars where (0x20...0x7E).contains(c.value) && text.count < 24 { text.unicodeScalars.append(c) }
        try fieldChanged()
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
            case .touch(let id, .cancel, _, _, _, _):
                if id == fieldTouch { fieldTouch = nil }  // a palm: no tap
            case .touch(let id, let phase, let x, let y, _, _):
                try contact(id: id, down: phase == .down, up: phase == .up, x: x, y: y)
            case .pen(let phase, let x, let y, _, _, _, _, _, _, _) where phase == .down || phase == .motion || phase == .up:
                try contact(id: -2, down: phase == .down, up: phase == .up, x: x, y: y)
            case .textCommit(let typed) where editing:
                try type(typed)
            case .key(_, let keysym, let typed, let state, _, _, _) where editing && state != .released:
                // The on-screen keyboard's return and delete come as keys, as a hardware keyboard's do.
                if keysym == 0xFF08 {
                    if !text.isEmpty { text.removeLast(); try fieldChanged() }
                } else if keysym == 0xFF0D {
                    editing = false
                    try fieldChanged()
                } else if !typed.isEmpty {
                    try type(typed)
                }
            case .keyboardFocus(false) where editing, .textInputDismissed where editing:
                // (The keyboard's dismiss key leaves the field, as on iPad.)
                editing = false
                try fieldChanged()
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

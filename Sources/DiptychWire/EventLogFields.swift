// SPDX-License-Identifier: MIT
// Events as the event logs write them: each event's fields as JSON pairs, in wire order.

import DiptychCore

extension ServerEvent {
    /// The event's fields as JSON pairs, in their wire order (for event logs).
    public var jsonFields: [(String, JSONValue)] {
        switch self {
        case .configure(let c):
            [("serial", .int(Int(c.serial))), ("role", .string(c.role.rawValue)), ("frame", c.frame.json),
             ("pixelWidth", .int(c.pixelWidth)), ("pixelHeight", .int(c.pixelHeight)),
             ("horizontalSizeClass", .string(c.horizontalSizeClass.rawValue)),
             ("verticalSizeClass", .string(c.verticalSizeClass.rawValue)),
             ("orientation", .string(c.orientation.rawValue)), ("arrangement", .string(c.arrangement.rawValue)),
             ("scale", .double(c.scale)), ("safeAreaInsets", c.safeAreaInsets.json)]
        case .sizeClassChanged(let h, let v, let ph, let pv):
            [("horizontalSizeClass", .string(h.rawValue)), ("verticalSizeClass", .string(v.rawValue)),
             ("previousHorizontal", .string(ph.rawValue)), ("previousVertical", .string(pv.rawValue))]
        case .lifecycle: []
        case .snapshotRequest(let serial, let frame, let pw, let ph, let hc):
            [("serial", .int(Int(serial))), ("frame", frame.json), ("pixelWidth", .int(pw)), ("pixelHeight", .int(ph)),
             ("horizontalSizeClass", .string(hc.rawValue))]
        case .touch(let id, let phase, let x, let y, let time, let serial):
            [("id", .int(Int(id))), ("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("time", .double(time)),
             ("serial", .int(Int(serial)))]
        case .pen(let phase, let x, let y, let p, let tx, let ty, let time, let tool, let buttons, let serial):
            [("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("pressure", .double(p)),
             ("tiltX", .double(tx)), ("tiltY", .double(ty)), ("time", .double(time)), ("tool", .string(tool.name)),
             ("buttons", .int(Int(buttons.rawValue))), ("serial", .int(Int(serial)))]
        case .frameDone(let t, let refresh, let seq): [("time", .int(Int(clamping: t))), ("refresh", .double(refresh)), ("seq", .int(Int(clamping: seq)))]
        case .error(let e): [("code", .string(e.code.name)), ("message", .string(e.message))]
        case .sync(let serial, let time): [("serial", .int(Int(serial))), ("time", .int(Int(clamping: time)))]
        case .release(let buffer): [("buffer", .int(Int(buffer)))]
        case .screenConnected(let s, let w, let h), .screenDisconnected(let s, let w, let h):
            [("screen", .int(Int(s))), ("pixelWidth", .int(w)), ("pixelHeight", .int(h))]
        case .keyboardFocus(let focused): [("focused", .bool(focused))]
        case .key(let keycode, let keysym, let text, let state, let modifiers, let time, let serial):
            [("keycode", .int(Int(keycode))), ("keysym", .int(Int(keysym))), ("text", .string(text)), ("state", .string(state.name)),
             ("modifiers", .array(modifiers.names.map { .string($0) })), ("time", .double(time)), ("serial", .int(Int(serial)))]
        case .pointer(let phase, let x, let y, let button, let pressed, let dx, let dy, let source, let time, let serial):
            switch phase {
            case .button:
                [("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("button", .int(Int(button))), ("pressed", .bool(pressed)), ("time", .double(time)),
                 ("serial", .int(Int(serial)))]
            case .scroll:
                [("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("dx", .double(dx)), ("dy", .double(dy)), ("source", .string(source.name)), ("time", .double(time)),
                 ("serial", .int(Int(serial)))]
            default:
                [("phase", .string(phase.name)), ("x", .double(x)), ("y", .double(y)), ("time", .double(time)), ("serial", .int(Int(serial)))]
            }
        case .refused(let request, let reason, let message):
            [("request", .string(request)), ("reason", .string(reason)), ("message", .string(message))]
        case .pipAction(let action): [("action", .string(action.name))]
        case .textCommit(let text): [("text", .string(text))]
        case .textDelete(let before, let after): [("before", .int(Int(before))), ("after", .int(Int(after)))]
        case .keyboardFrame(let k):
            [("frame", k.frame.json), ("screenFrame", k.screenFrame.json), ("duration", .int(Int(k.duration))), ("local", .bool(k.local))]
        case .menuChosen(let id, let index): [("id", .int(Int(id))), ("index", .int(Int(index)))]
        case .alertAnswered(let id, let button, let text): [("id", .int(Int(id))), ("button", .int(Int(button))), ("text", .string(text))]
        case .dismissed(let id): [("id", .int(Int(id)))]
        case .textInputDismissed: []
        }
    }
}

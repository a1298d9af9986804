// SPDX-License-Identifier: MIT
// Encoding and decoding of framed messages in both directions, as pure functions over bytes.

import DiptychCore

/// A decoded frame header.
public struct FrameHeader: Equatable, Sendable {
    public var length: Int
    public var version: UInt16
    public var opcode: UInt16
}

extension Wire {
    /// Frames a body: header plus body bytes.
    static func frame(opcode: UInt16, body: ByteWriter, version: UInt16 = Wire.version) -> [UInt8] {
        var w = ByteWriter(capacity: headerSize + body.bytes.count)
        w.u32(UInt32(headerSize + body.bytes.count))
        w.u16(version)
        w.u16(opcode)
        w.append(body.bytes)
        return w.bytes
    }

    /// Reads a header from the start of `bytes`, or nil if fewer than 8 bytes are there.
    ///
    /// - Throws: `messageTooLong`, `malformedMessage` (a length shorter than the header) or
    ///   `unsupportedVersion`, checked before any body byte is read.
    public static func header(_ bytes: ArraySlice<UInt8>, versions: ClosedRange<UInt16> = version...version) throws(ProtocolError) -> FrameHeader? {
        guard bytes.count >= headerSize else { return nil }
        var r = ByteReader(bytes.prefix(headerSize))
        let length = Int(try r.u32()), version = try r.u16(), opcode = try r.u16()
        guard length >= headerSize else { throw ProtocolError(.malformedMessage, "message length \(length) is shorter than its header") }
        guard length <= maxMessageSize else {
            throw ProtocolError(.messageTooLong, "message length \(length) exceeds the limit of \(maxMessageSize) bytes")
        }
        guard versions.contains(version) else {
            let speaks = versions.count == 1 ? "version \(versions.lowerBound)" : "versions \(versions.lowerBound) to \(versions.upperBound)"
            throw ProtocolError(
                .unsupportedVersion,
                "protocol version \(version) is not supported: this compositor speaks \(speaks) (\(Wire.versionChanges))")
        }
        return FrameHeader(length: length, version: version, opcode: opcode)
    }
}

func enumCode<E: RawRepresentable>(_ raw: UInt8, _ type: E.Type, _ field: String) throws(ProtocolError) -> E where E.RawValue == UInt8 {
    guard let v = E(rawValue: raw) else { throw ProtocolError(.malformedMessage, "bad \(field) value \(raw)") }
    return v
}

private let sizeClassCodes: [SizeClass] = [.compact, .regular]
private let roleCodes: [Role] = [.primary, .secondary]
private let orientationCodes: [Orientation] = [.landscape, .portrait]
private let arrangementCodes: [Arrangement] = [.full, .slideOver, .split23, .split12]
private let statusBarCodes: [StatusBarStyle] = [.dark, .light, .hidden]

private func code<T: Equatable>(_ value: T, in table: [T]) -> UInt8 { UInt8(table.firstIndex(of: value)!) }
private func lookup<T>(_ raw: UInt8, in table: [T], _ field: String) throws(ProtocolError) -> T {
    guard Int(raw) < table.count else { throw ProtocolError(.malformedMessage, "bad \(field) value \(raw)") }
    return table[Int(raw)]
}

extension ByteWriter {
    mutating func rect(_ r: Rect) {
        i32(Int32(clamping: r.x)); i32(Int32(clamping: r.y)); i32(Int32(clamping: r.width)); i32(Int32(clamping: r.height))
    }
    mutating func buffer(_ b: BufferLayout) {
        u32(b.offset); u32(b.width); u32(b.height); u32(b.stride); u32(b.format.rawValue)
    }
    /// A damage list: u32 count, then the rectangles.
    mutating func damage(_ rects: [Rect]) {
        u32(UInt32(rects.count))
        for r in rects { rect(r) }
    }
}

extension ByteReader {
    mutating func rect() throws(ProtocolError) -> Rect {
        Rect(x: Int(try i32()), y: Int(try i32()), width: Int(try i32()), height: Int(try i32()))
    }
    mutating func buffer() throws(ProtocolError) -> BufferLayout {
        BufferLayout(offset: try u32(), width: try u32(), height: try u32(), stride: try u32(), format: FourCC(rawValue: try u32()))
    }
    /// A damage list, at most `Wire.maxDamageRects` long.
    mutating func damage() throws(ProtocolError) -> [Rect] {
        let n = Int(try u32())
        guard n <= Wire.maxDamageRects else { throw ProtocolError(.malformedMessage, "\(n) damage rectangles exceed the limit of \(Wire.maxDamageRects)") }
        var rects: [Rect] = []
        rects.reserveCapacity(n)
        for _ in 0..<n { rects.append(try rect()) }
        return rects
    }
}

extension ClientMessage {
    /// The framed bytes of this message in protocol `version` (its fds travel separately): the
    /// fields that version has.
    public func encoded(version: UInt16 = Wire.version) -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .hello(let name, let full):
            w.string(name)
            w.u32(full ? 1 : 0)
        case .ack(let serial):
            w.u32(serial)
        case .commit(let b, let damage):
            w.u32(b)
            w.damage(damage)
        case .pipCommit(let b, let playing, let source, let damage):
            w.u32(b)
            w.u8((playing ? 1 : 0) | (source != nil ? 2 : 0))
            w.rect(source ?? Rect(x: 0, y: 0, width: 0, height: 0))
            w.damage(damage)
        case .snapshot(let serial, let b):
            w.u32(serial)
            w.u32(b)
        case .syncDone(let serial):
            w.u32(serial)
        case .createBuffer(let id, let b):
            w.u32(id)
            w.buffer(b)
        case .destroyBuffer(let id), .setIcon(let id):
            w.u32(id)
        case .statusBarStyle(let style):
            w.u8(code(style, in: statusBarCodes))
        case .pipClose:
            break
        case .screenCommit(let screen, let b, let damage):
            w.u32(screen)
            w.u32(b)
            w.damage(damage)
        case .screenRelease(let screen):
            w.u32(screen)
        case .textInput(let t):
            w.u8(t.enabled ? 1 : 0); w.u8(t.purpose.rawValue); w.u32(t.hints.rawValue); w.u8(t.returnKey.rawValue)
            w.f64(t.caret.x); w.f64(t.caret.y); w.f64(t.caret.width); w.f64(t.caret.height)
            w.string(t.surrounding)
            if version >= 9 { w.u32(t.serial) }
        case .presentMenu(let m):
            w.u32(m.id); w.rect(m.anchor); w.string(m.title); w.u32(m.total); w.u32(m.first)
            w.u32(UInt32(m.items.count))
            for item in m.items { w.u8(item.flags.rawValue); w.string(item.label) }
        case .presentAlert(let a):
            w.u32(a.id); w.string(a.title); w.string(a.message); w.u8(a.field.rawValue); w.string(a.placeholder); w.string(a.text)
            w.u32(UInt32(a.buttons.count))
            for b in a.buttons { w.u8(b.style.rawValue); w.string(b.label) }
        case .dismissPresented(let id):
            w.u32(id)
        case .idleInhibit(let on):
            w.u8(on ? 1 : 0)
        }
        return Wire.frame(opcode: opcode, body: w, version: version)
    }

    /// Decodes one message body of protocol `version`. The whole body must be consumed.
    public static func decode(opcode: UInt16, body: ArraySlice<UInt8>, version: UInt16 = Wire.version) throws(ProtocolError) -> ClientMessage {
        var r = ByteReader(body)
        let m: ClientMessage
        switch opcode {
        case 1:
            let name = try r.string()
            let flags = try r.u32()
            guard flags & ~1 == 0 else { throw ProtocolError(.malformedMessage, "unknown hello flags \(flags)") }
            m = .hello(name: name, requiresFullScreen: flags & 1 != 0)
        case 2:
            m = .ack(serial: try r.u32())
        case 3:
            let b = try r.u32()
            m = .commit(buffer: b, damage: try r.damage())
        case 9:
            let b = try r.u32(), flags = try r.u8(), source = try r.rect()
            guard flags & ~3 == 0 else { throw ProtocolError(.malformedMessage, "unknown pipCommit flags \(flags)") }
            let has = flags & 2 != 0
            if has && (source.width <= 0 || source.height <= 0) {
                throw ProtocolError(.malformedMessage, "pipCommit sourceRect \(source.width)×\(source.height) is empty")
            }
            m = .pipCommit(buffer: b, playing: flags & 1 != 0, sourceRect: has ? source : nil, damage: try r.damage())
        case 4:
            m = .snapshot(serial: try r.u32(), buffer: try r.u32())
        case 5:
            m = .syncDone(serial: try r.u32())
        case 6:
            m = .createBuffer(id: try r.u32(), try r.buffer())
        case 7:
            m = .destroyBuffer(id: try r.u32())
        case 8:
            m = .statusBarStyle(try lookup(try r.u8(), in: statusBarCodes, "status bar style"))
        case 10:
            m = .pipClose
        case 11:
            let screen = try r.u32(), b = try r.u32()
            m = .screenCommit(screen: screen, buffer: b, damage: try r.damage())
        case 12:
            m = .screenRelease(screen: try r.u32())
        case 13:
            m = .setIcon(buffer: try r.u32())
        case 14:
            m = .textInput(try r.textInput(version: version))
        case 15:
            m = .presentMenu(try r.menuPiece())
        case 16:
            m = .presentAlert(try r.alert())
        case 17:
            m = .dismissPresented(id: try r.u32())
        case 18:
            m = .idleInhibit(on: try r.flag("on"))
        default:
            throw ProtocolError(.unknownOpcode, "unknown request opcode \(opcode)")
        }
        guard r.isAtEnd else { throw ProtocolError(.malformedMessage, "\(body.count) byte body has trailing bytes for opcode \(opcode)") }
        return m
    }
}

extension ServerEvent {
    /// The framed bytes of this event, framed as protocol `version` (the current one; an
    /// `unsupported-version` error goes back in the version the client spoke, whose error
    /// event has the same layout, so an old client can read why it was refused).
    public func encoded(version: UInt16 = Wire.version) -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .configure(let c):
            w.u32(c.serial)
            w.u8(code(c.role, in: roleCodes))
            w.rect(c.frame)
            w.u32(UInt32(c.pixelWidth)); w.u32(UInt32(c.pixelHeight))
            w.u8(code(c.horizontalSizeClass, in: sizeClassCodes)); w.u8(code(c.verticalSizeClass, in: sizeClassCodes))
            w.u8(code(c.orientation, in: orientationCodes)); w.u8(code(c.arrangement, in: arrangementCodes))
            w.f64(c.scale)
            for v in [c.safeAreaInsets.top, c.safeAreaInsets.left, c.safeAreaInsets.bottom, c.safeAreaInsets.right] { w.f64(v) }
        case .sizeClassChanged(let h, let v, let ph, let pv):
            for s in [h, v, ph, pv] { w.u8(code(s, in: sizeClassCodes)) }
        case .lifecycle(let l):
            w.u8(l.rawValue)
        case .snapshotRequest(let serial, let frame, let pw, let ph, let hc):
            w.u32(serial); w.rect(frame); w.u32(UInt32(pw)); w.u32(UInt32(ph)); w.u8(code(hc, in: sizeClassCodes))
        case .touch(let id, let phase, let x, let y, let time, _):
            w.i32(id); w.u8(phase.rawValue); w.f64(x); w.f64(y); w.f64(time)
        case .pen(let phase, let x, let y, let p, let tx, let ty, let time, let tool, let buttons, _):
            w.u8(phase.rawValue); w.f64(x); w.f64(y); w.f64(p); w.f64(tx); w.f64(ty)
            w.f64(time); w.u8(tool.rawValue); w.u32(buttons.rawValue)
        case .frameDone(let t, let refresh, let seq):
            w.u64(t); w.f64(refresh); w.u64(seq)
        case .error(let e):
            w.u16(e.code.rawValue); w.string(e.message)
        case .sync(let serial, let time):
            w.u32(serial); w.u64(time)
        case .release(let buffer):
            w.u32(buffer)
        case .screenConnected(let s, let pw, let ph), .screenDisconnected(let s, let pw, let ph):
            w.u32(s); w.u32(UInt32(pw)); w.u32(UInt32(ph))
        case .keyboardFocus(let focused):
            w.u8(focused ? 1 : 0)
        case .key(let keycode, let keysym, let text, let state, let modifiers, let time, _):
            w.u32(keycode); w.u32(keysym); w.string(text); w.u8(state.rawValue); w.u32(modifiers.rawValue); w.f64(time)
        case .pointer(let phase, let x, let y, let button, let pressed, let dx, let dy, let source, let time, _):
            w.u8(phase.rawValue); w.f64(x); w.f64(y); w.u32(button); w.u8(pressed ? 1 : 0); w.f64(dx); w.f64(dy); w.u8(source.rawValue); w.f64(time)
        case .refused(let request, let reason, let message):
            w.string(request); w.string(reason); w.string(message)
        case .pipAction(let action):
            w.u8(action.rawValue)
        case .textCommit(let text):
            w.string(text)
        case .textDelete(let before, let after):
            w.u32(before); w.u32(after)
        case .keyboardFrame(let k):
            w.rect(k.frame); w.rect(k.screenFrame); w.u32(k.duration); w.u8(k.local ? 1 : 0)
        case .menuChosen(let id, let index):
            w.u32(id); w.u32(index)
        case .alertAnswered(let id, let button, let text):
            w.u32(id); w.u32(button); w.string(text)
        case .dismissed(let id):
            w.u32(id)
        case .textInputDismissed:
            break
        }
        // Version 9 ends each input event with its serial.
        if version >= ServerEvent.serialSince, let serial { w.u32(serial) }
        return Wire.frame(opcode: opcode, body: w, version: version)
    }

    /// Decodes one event body of protocol `version`. The whole body must be consumed.
    public static func decode(opcode: UInt16, body: ArraySlice<UInt8>, version: UInt16 = Wire.version) throws(ProtocolError) -> ServerEvent {
        var r = ByteReader(body)
        let e: ServerEvent
        switch opcode {
        case 100:
            let serial = try r.u32()
            let role = try lookup(try r.u8(), in: roleCodes, "role")
            let frame = try r.rect()
            let pw = Int(try r.u32()), ph = Int(try r.u32())
            let hc = try lookup(try r.u8(), in: sizeClassCodes, "size class")
            let vc = try lookup(try r.u8(), in: sizeClassCodes, "size class")
            let o = try lookup(try r.u8(), in: orientationCodes, "orientation")
            let a = try lookup(try r.u8(), in: arrangementCodes, "arrangement")
            let pane = Pane(role: role, frame: frame, pixelWidth: pw, pixelHeight: ph, horizontalSizeClass: hc, verticalSizeClass: vc)
            let scale = try r.f64()
            let insets = EdgeInsets(top: try r.f64(), left: try r.f64(), bottom: try r.f64(), right: try r.f64())
            e = .configure(Configure(serial: serial, pane: pane, orientation: o, arrangement: a, scale: scale, safeAreaInsets: insets))
        case 101:
            e = .sizeClassChanged(
                horizontal: try lookup(try r.u8(), in: sizeClassCodes, "size class"),
                vertical: try lookup(try r.u8(), in: sizeClassCodes, "size class"),
                previousHorizontal: try lookup(try r.u8(), in: sizeClassCodes, "size class"),
                previousVertical: try lookup(try r.u8(), in: sizeClassCodes, "size class"))
        case 102:
            e = .lifecycle(try enumCode(try r.u8(), LifecycleEvent.self, "lifecycle"))
        case 103:
            e = .snapshotRequest(
                serial: try r.u32(), frame: try r.rect(), pixelWidth: Int(try r.u32()), pixelHeight: Int(try r.u32()),
                horizontalSizeClass: try lookup(try r.u8(), in: sizeClassCodes, "size class"))
        case 104:
            e = .touch(
                id: try r.i32(), phase: try enumCode(try r.u8(), TouchPhase.self, "touch phase"), x: try r.f64(), y: try r.f64(),
                time: try r.f64())
        case 105:
            e = .pen(
                phase: try enumCode(try r.u8(), PenPhase.self, "pen phase"), x: try r.f64(), y: try r.f64(),
                pressure: try r.f64(), tiltX: try r.f64(), tiltY: try r.f64(), time: try r.f64(),
                tool: try enumCode(try r.u8(), PenTool.self, "pen tool"), buttons: PenButtons(rawValue: try r.u32()))
        case 106:
            e = .frameDone(time: try r.u64(), refresh: try r.f64(), seq: try r.u64())
        case 107:
            let raw = try r.u16()
            guard let c = ProtocolError.Code(rawValue: raw) else { throw ProtocolError(.malformedMessage, "unknown error code \(raw)") }
            e = .error(ProtocolError(c, try r.string()))
        case 108:
            e = .sync(serial: try r.u32(), time: try r.u64())
        case 109:
            e = .release(buffer: try r.u32())
        case 110:
            e = .screenConnected(screen: try r.u32(), pixelWidth: Int(try r.u32()), pixelHeight: Int(try r.u32()))
        case 111:
            e = .screenDisconnected(screen: try r.u32(), pixelWidth: Int(try r.u32()), pixelHeight: Int(try r.u32()))
        case 112:
            e = .keyboardFocus(focused: try r.flag("focused"))
        case 113:
            e = .key(
                keycode: try r.u32(), keysym: try r.u32(), text: try r.string(), state: try enumCode(try r.u8(), KeyState.self, "key state"),
                modifiers: KeyModifiers(rawValue: try r.u32()), time: try r.f64())
        case 114:
            e = .pointer(
                phase: try enumCode(try r.u8(), PointerPhase.self, "pointer phase"), x: try r.f64(), y: try r.f64(), button: try r.u32(),
                pressed: try r.flag("pressed"), dx: try r.f64(), dy: try r.f64(), source: try enumCode(try r.u8(), ScrollSource.self, "scroll source"),
                time: try r.f64())
        case 115:
            e = .refused(request: try r.string(), reason: try r.string(), message: try r.string())
        case 116:
            e = .pipAction(try enumCode(try r.u8(), PiPAction.self, "pip action"))
        case 117:
            e = .textCommit(text: try r.string())
        case 118:
            e = .textDelete(before: try r.u32(), after: try r.u32())
        case 119:
            let frame = try r.rect(), screen = try r.rect(), duration = try r.u32(), local = try r.u8()
            guard local <= 1 else { throw ProtocolError(.malformedMessage, "bad keyboardFrame local \(local)") }
            e = .keyboardFrame(KeyboardFrame(frame: frame, screenFrame: screen, duration: duration, local: local == 1))
        case 120:
            e = .menuChosen(id: try r.u32(), index: try r.u32())
        case 121:
            e = .alertAnswered(id: try r.u32(), button: try r.u32(), text: try r.string())
        case 122:
            e = .dismissed(id: try r.u32())
        case 123:
            e = .textInputDismissed
        default:
            throw ProtocolError(.unknownOpcode, "unknown event opcode \(opcode)")
        }
        let event = e.serial != nil && version >= ServerEvent.serialSince ? e.stamped(try r.u32()) : e
        guard r.isAtEnd else { throw ProtocolError(.malformedMessage, "event body has trailing bytes for opcode \(opcode)") }
        return event
    }
}

extension ByteReader {
    /// A `textInput` body: malformed for an unknown flag, purpose, hint or return key, a
    /// non-finite caret or one of negative size, or more than 256 bytes before the caret.
    /// From version 9, the serial of the input it follows ends it.
    mutating func textInput(version: UInt16) throws(ProtocolError) -> TextInputState {
        let flags = try u8(), purpose = try u8(), hints = try u32(), returnKey = try u8()
        guard flags & ~1 == 0 else { throw ProtocolError(.malformedMessage, "unknown textInput flags \(flags)") }
        let p = try enumCode(purpose, TextPurpose.self, "textInput purpose")
        guard TextHints.known(inVersion: version).isSuperset(of: TextHints(rawValue: hints)) else { throw ProtocolError(.malformedMessage, "unknown textInput hints \(hints)") }
        let k = try enumCode(returnKey, ReturnKey.self, "textInput return key")
        let x = try f64(), y = try f64(), w = try f64(), h = try f64()
        guard [x, y, w, h].allSatisfy(\.isFinite), w >= 0, h >= 0 else {
            throw ProtocolError(.malformedMessage, "bad textInput caret (\(x), \(y), \(w), \(h)): finite, of no negative size")
        }
        let surrounding = try string()
        guard surrounding.utf8.count <= TextInputState.surroundingLimit else {
            throw ProtocolError(.malformedMessage, "textInput surrounding text of \(surrounding.utf8.count) bytes (at most \(TextInputState.surroundingLimit))")
        }
        let serial = version >= 9 ? try u32() : 0
        return TextInputState(enabled: flags & 1 != 0, purpose: p, hints: TextHints(rawValue: hints), returnKey: k, caret: (x, y, w, h), surrounding: surrounding, serial: serial)
    }
}

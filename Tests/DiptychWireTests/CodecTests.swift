// SPDX-License-Identifier: MIT
// Wire protocol: round trips, framing across arbitrary splits, refusals, buffer validation.

import DiptychCore
import DiptychWire
import Testing

struct CodecTests {
    static let pane = Pane(role: .secondary, frame: Rect(x: 704, y: 0, width: 320, height: 768), pixelWidth: 640, pixelHeight: 1536, horizontalSizeClass: .compact, verticalSizeClass: .regular)

    static let events: [ServerEvent] = [
        .configure(Configure(serial: 7, pane: pane, orientation: .portrait, arrangement: .split23)),
        .configure(Configure(
            serial: 8, pane: pane, orientation: .landscape, arrangement: .slideOver, scale: 2,
            safeAreaInsets: EdgeInsets(top: 20, left: 0.5, bottom: 3, right: 4))),
        .sizeClassChanged(horizontal: .compact, vertical: .regular, previousHorizontal: .regular, previousVertical: .regular),
        .lifecycle(.willResignActive), .lifecycle(.didBecomeActive), .lifecycle(.didEnterBackground), .lifecycle(.willEnterForeground),
        .snapshotRequest(serial: 9, frame: Rect(x: 0, y: 0, width: 507, height: 768), pixelWidth: 1014, pixelHeight: 1536, horizontalSizeClass: .compact),
        .touch(id: -3, phase: .cancel, x: 10.25, y: -1.5, time: 1234.5),
        .pen(phase: .motion, x: 1, y: 2, pressure: 0.5, tiltX: -30, tiltY: 12.5, time: 99.125, tool: .pen, buttons: []),
        .pen(phase: .down, x: 1, y: 2, pressure: 1, tiltX: 0, tiltY: 0, time: 0, tool: .eraser, buttons: [.primary, .secondary]),
        .frameDone(time: 123_456_789_012, refresh: 16.666666666666668, seq: 42),
        .error(ProtocolError(.unsealedBuffer, "not sealed ✗")),
        .sync(serial: 3, time: 1_000_016),
        .release(buffer: 0xFFFF_FFFE),
        .screenConnected(screen: 2, pixelWidth: 1920, pixelHeight: 1080), .screenDisconnected(screen: 2, pixelWidth: 800, pixelHeight: 600),
        .keyboardFocus(focused: true), .keyboardFocus(focused: false),
        .pipAction(.playPause), .pipAction(.restore), .pipAction(.close),
        .refused(request: "pictureInPicture", reason: "not-primary", message: "only the primary app may open Picture in Picture"),
        .key(keycode: 30, keysym: 0x61, text: "a", state: .pressed, modifiers: [], time: 12.5),
        .key(keycode: 18, keysym: 0xE9, text: "é", state: .repeated, modifiers: [.shift, .altGr, .numLock], time: 0),
        .key(keycode: 42, keysym: 0xFFE1, text: "", state: .released, modifiers: [.shift], time: 1e9),
        .pointer(phase: .enter, x: 1.5, y: -2, button: 0, pressed: false, dx: 0, dy: 0, source: .wheel, time: 3),
        .pointer(phase: .button, x: 10, y: 20, button: 0x111, pressed: true, dx: 0, dy: 0, source: .wheel, time: 4),
        .pointer(phase: .scroll, x: 10, y: 20, button: 0, pressed: false, dx: -1.25, dy: 30, source: .finger, time: 5),
        .textCommit(text: "Grüße, @"), .textCommit(text: ""), .textDelete(before: 1, after: 0), .textDelete(before: 0xFFFF_FFFF, after: 3),
        .keyboardFrame(KeyboardFrame(frame: Rect(x: -683, y: 548, width: 1366, height: 456), screenFrame: Rect(x: 0, y: 568, width: 1366, height: 456), duration: 250, local: true)),
        .keyboardFrame(KeyboardFrame(frame: Rect(x: 0, y: 0, width: 0, height: 0), screenFrame: Rect(x: 0, y: 0, width: 0, height: 0), duration: 0, local: false)),
        .menuChosen(id: 5, index: 9999), .alertAnswered(id: 6, button: 1, text: "Grüße 42"), .alertAnswered(id: 0, button: 0, text: ""), .dismissed(id: 0xFFFF_FFFF),
        .touch(id: 1, phase: .up, x: 3, y: 4, time: 5, serial: 0xFFFF_FFFF), .textInputDismissed,
    ]

    static let requests: [ClientMessage] = [
        .hello(name: "notes ✎", requiresFullScreen: true), .hello(name: "", requiresFullScreen: false),
        .ack(serial: 0xFFFF_FFFF),
        .createBuffer(id: 3, BufferLayout(offset: 16, width: 640, height: 1536, stride: 2560, format: .argb8888)),
        .commit(buffer: 3, damage: [Rect(x: 1, y: 2, width: 3, height: 4), Rect(x: -5, y: 0, width: 0, height: 9)]),
        .commit(buffer: 0, damage: []),
        .snapshot(serial: 4, buffer: 0xFFFF_FFFF),
        .destroyBuffer(id: 3),
        .syncDone(serial: 12),
        .statusBarStyle(.dark), .statusBarStyle(.light), .statusBarStyle(.hidden),
        .pipCommit(buffer: 7, playing: true, sourceRect: Rect(x: 12, y: 40, width: 320, height: 180), damage: [Rect(x: 0, y: 0, width: 684, height: 384)]),
        .pipCommit(buffer: 0, playing: false, sourceRect: nil, damage: []), .pipClose,
        .screenCommit(screen: 2, buffer: 4, damage: [Rect(x: 0, y: 0, width: 1920, height: 1080)]), .screenRelease(screen: 2), .setIcon(buffer: 9),
        .textInput(TextInputState(enabled: true, purpose: .email, hints: [.noAutocorrect, .capitalizeSentences], returnKey: .send, caret: (120.5, 40.25, 2, 22), surrounding: "Grüße. ")),
        .textInput(.disabled),
        .textInput(TextInputState(enabled: true, purpose: .search, hints: .known, returnKey: .done, caret: (0, 0, 0, 0), surrounding: String(repeating: "a", count: 256))),
        .presentMenu(MenuPiece(id: 5, anchor: Rect(x: 40, y: 120, width: 200, height: 30), title: "Größe", total: 3, first: 0,
                               items: [MenuItem("Fruit", flags: .header), MenuItem("Äpfel", flags: [.selected, .indented]), MenuItem("None", flags: .disabled)])),
        .presentMenu(MenuPiece(id: 7, anchor: Rect(x: 0, y: 0, width: 0, height: 0), title: "", total: 10_000, first: 9_000,
                               items: (0..<1000).map { MenuItem(String(repeating: "x", count: $0 % 60)) })),
        .presentAlert(AlertRequest(id: 6, title: "Sign in", message: "Grüße", field: .secure, placeholder: "Password",
                                   buttons: [AlertButton("Cancel", style: .cancel), AlertButton("OK")])),
        .presentAlert(AlertRequest(id: 0, title: "", message: "", buttons: (0..<4).map { AlertButton("\($0)", style: .destructive) })),
        .dismissPresented(id: 6), .idleInhibit(on: true), .idleInhibit(on: false),
    ]

    /// A menu or alert the protocol cannot carry is malformed: more than 1,000 items in a
    /// message or 10,000 in all, items past the total, a label over 256 bytes, unknown flags,
    /// no button or five, an unknown style or field.
    @Test func aBadMenuOrAlertIsMalformed() throws {
        func code(_ m: ClientMessage) -> ProtocolError.Code? {
            let b = m.encoded()
            do { _ = try ClientMessage.decode(opcode: m.opcode, body: b[8...]) } catch { return error.code }
            return nil
        }
        func menu(total: UInt32 = 3, first: UInt32 = 0, items: [MenuItem] = [MenuItem("a")]) -> ClientMessage {
            .presentMenu(MenuPiece(id: 1, anchor: Rect(x: 0, y: 0, width: 10, height: 10), title: "", total: total, first: first, items: items))
        }
        #expect(code(menu()) == nil)
        #expect(code(menu(total: 10_001)) == .malformedMessage)
        #expect(code(menu(total: 2_000, items: Array(repeating: MenuItem("a"), count: 1_001))) == .malformedMessage)
        #expect(code(menu(total: 3, first: 3)) == .malformedMessage)
        #expect(code(menu(items: [MenuItem(String(repeating: "é", count: 129))])) == .malformedMessage)
        #expect(code(menu(items: [MenuItem("a", flags: MenuItemFlags(rawValue: 16))])) == .malformedMessage)
        func alert(_ buttons: Int, field: AlertField = .text) -> ClientMessage {
            .presentAlert(AlertRequest(id: 1, title: "t", message: "m", field: field, buttons: Array(repeating: AlertButton("OK"), count: buttons)))
        }
        #expect(code(alert(1)) == nil && code(alert(4)) == nil)
        #expect(code(alert(0)) == .malformedMessage && code(alert(5)) == .malformedMessage)
        var bad = alert(1).encoded()
        bad[8 + 4 + 5 + 5] = 3  // the field kind, after the id and two one-byte strings
        #expect(throws: ProtocolError.self) { _ = try ClientMessage.decode(opcode: 16, body: bad[8...]) }
    }

    /// Protocol 9 is the first change of a layout among served versions: an input event is
    /// written to an app of version 5 to 8 without its serial (its old layout, read back the
    /// same), a textInput read from one has none, and the new hint bits are unknown to it.
    @Test func eachVersionHasItsOwnLayout() throws {
        let touch = ServerEvent.touch(id: 2, phase: .up, x: 1, y: 2, time: 3, serial: 77)
        let old = touch.encoded(version: 8), new = touch.encoded(version: 9)
        #expect(new.count == old.count + 4)
        #expect(try ServerEvent.decode(opcode: 104, body: old[8...], version: 8) == touch.stamped(0))
        #expect(try ServerEvent.decode(opcode: 104, body: new[8...], version: 9) == touch)
        #expect(throws: ProtocolError.self) { try ServerEvent.decode(opcode: 104, body: old[8...], version: 9) }
        let t = TextInputState(enabled: true, hints: [.hasNext], surrounding: "a", serial: 12)
        let v9 = ClientMessage.textInput(t).encoded(version: 9)
        #expect(try ClientMessage.decode(opcode: 14, body: v9[8...], version: 9) == .textInput(t))
        var v8state = t
        v8state.hints = []
        v8state.serial = 0
        let v8 = ClientMessage.textInput(v8state).encoded(version: 8)
        #expect(v8.count == v9.count - 4)
        #expect(try ClientMessage.decode(opcode: 14, body: v8[8...], version: 8) == .textInput(v8state))
        // hasNext from an app of version 8: a bit its version lacks.
        var v8next = v8
        v8next[10] = 64
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(opcode: 14, body: v8next[8...], version: 8) }
    }

    /// A `textInput` the protocol cannot carry is malformed: an unknown flag, purpose, hint or
    /// return key, a caret not finite or of negative size, more than 256 bytes before it.
    @Test func aBadTextInputIsMalformed() throws {
        let good = ClientMessage.textInput(TextInputState(enabled: true, caret: (1, 2, 3, 4), surrounding: "ab")).encoded()
        func bad(_ change: (inout [UInt8]) -> Void) -> ProtocolError.Code? {
            var b = good
            change(&b)
            do { _ = try ClientMessage.decode(opcode: 14, body: b[8...]) } catch { return error.code }
            return nil
        }
        func f64(_ v: Double, at i: Int) -> (inout [UInt8]) -> Void { { b in for k in 0..<8 { b[i + k] = UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt64(k))) } } }
        #expect(bad { _ in } == nil)
        #expect(bad { $0[8] = 2 } == .malformedMessage)        // flags
        #expect(bad { $0[9] = 8 } == .malformedMessage)        // purpose
        #expect(bad { $0[10] = 128 } == .malformedMessage)     // hints
        #expect(bad { $0[14] = 6 } == .malformedMessage)       // return key
        #expect(bad(f64(.nan, at: 15)) == .malformedMessage)
        #expect(bad(f64(.infinity, at: 23)) == .malformedMessage)
        #expect(bad(f64(-1, at: 31)) == .malformedMessage)     // width
        #expect(bad(f64(-0.5, at: 39)) == .malformedMessage)   // height
        #expect(bad(f64(-7, at: 15)) == nil)                   // a caret left of the pane is clamped, not refused
        let long = ClientMessage.textInput(TextInputState(enabled: true, surrounding: String(repeating: "é", count: 129))).encoded()
        #expect(throws: ProtocolError.self) { _ = try ClientMessage.decode(opcode: 14, body: long[8...]) }
    }

    @Test func eventsRoundTrip() throws {
        for e in Self.events {
            let bytes = e.encoded()
            let h = try #require(try Wire.header(bytes[...]))
            #expect(h.length == bytes.count && h.version == Wire.version && h.opcode == e.opcode)
            #expect(try ServerEvent.decode(opcode: h.opcode, body: bytes[8...]) == e)
        }
    }

    /// The error `decode` gives for `framed` with its body's byte `offset` set to `value` (nil:
    /// it decodes).
    func patched(_ framed: [UInt8], _ offset: Int, _ value: UInt8, _ decode: (ArraySlice<UInt8>) throws(ProtocolError) -> Void) -> ProtocolError.Code? {
        var bytes = framed
        bytes[Wire.headerSize + offset] = value
        do throws(ProtocolError) {
            try decode(bytes[Wire.headerSize...])
            return nil
        } catch { return error.code }
    }

    /// A `pipCommit` with unknown flags, or an empty source rectangle it says it has, is
    /// malformed; one without a source rectangle carries nil whatever its zeros.
    @Test func pipCommitRefusesUnknownFlagsAndAnEmptySource() {
        func decode(_ m: ClientMessage, patching offset: Int, to value: UInt8) -> ProtocolError.Code? {
            patched(m.encoded(), offset, value) { body throws(ProtocolError) in _ = try ClientMessage.decode(opcode: m.opcode, body: body) }
        }
        let m = ClientMessage.pipCommit(buffer: 1, playing: true, sourceRect: nil, damage: [])
        // buffer (4), flags (1), sourceRect (16: x y w h), damage.
        #expect(decode(m, patching: 4, to: 4) == .malformedMessage)
        #expect(decode(m, patching: 4, to: 3) == .malformedMessage, "a source rectangle said to be there but 0×0")
        #expect(decode(m, patching: 4, to: 0) == nil)
    }

    /// A key or pointer event with a value out of its range is refused, not decoded.
    @Test func keyAndPointerEventsRefuseBadValues() {
        func decode(_ e: ServerEvent, patching offset: Int, to value: UInt8) -> ProtocolError.Code? {
            patched(e.encoded(), offset, value) { body throws(ProtocolError) in _ = try ServerEvent.decode(opcode: e.opcode, body: body) }
        }
        #expect(decode(.keyboardFocus(focused: true), patching: 0, to: 2) == .malformedMessage)
        #expect(decode(.pipAction(.close), patching: 0, to: 3) == .malformedMessage)
        // keycode, keysym, text (4 + 1 bytes): the state follows.
        #expect(decode(.key(keycode: 30, keysym: 0x61, text: "a", state: .pressed, modifiers: [], time: 0), patching: 13, to: 7) == .malformedMessage)
        #expect(decode(.pointer(phase: .motion, x: 0, y: 0, button: 0, pressed: false, dx: 0, dy: 0, source: .wheel, time: 0), patching: 0, to: 9) == .malformedMessage)
        #expect(decode(.pointer(phase: .motion, x: 0, y: 0, button: 0, pressed: false, dx: 0, dy: 0, source: .wheel, time: 0), patching: 21, to: 3) == .malformedMessage)
        // A truncated key event.
        let bytes = ServerEvent.key(keycode: 30, keysym: 0x61, text: "abc", state: .pressed, modifiers: [], time: 0).encoded()
        #expect(throws: ProtocolError.self) { try ServerEvent.decode(opcode: 113, body: bytes[Wire.headerSize..<(bytes.count - 3)]) }
    }

    @Test func keyAndPointerLogFields() {
        let key = ServerEvent.key(keycode: 35, keysym: 0x48, text: "H", state: .pressed, modifiers: [.shift, .control], time: 7)
        #expect(key.name == "key")
        #expect(key.jsonFields.map(\.0) == ["keycode", "keysym", "text", "state", "modifiers", "time", "serial"])
        #expect(JSONValue.object(key.jsonFields).serialized.contains(#""modifiers":["shift","control"]"#))
        let scroll = ServerEvent.pointer(phase: .scroll, x: 1, y: 2, button: 0, pressed: false, dx: 0, dy: 15, source: .wheel, time: 3)
        #expect(scroll.jsonFields.map(\.0) == ["phase", "x", "y", "dx", "dy", "source", "time", "serial"])
        let button = ServerEvent.pointer(phase: .button, x: 1, y: 2, button: 0x110, pressed: true, dx: 0, dy: 0, source: .wheel, time: 3)
        #expect(button.jsonFields.map(\.0) == ["phase", "x", "y", "button", "pressed", "time", "serial"])
    }

    @Test func requestsRoundTrip() throws {
        for m in Self.requests {
            let bytes = m.encoded()
            let h = try #require(try Wire.header(bytes[...]))
            #expect(try ClientMessage.decode(opcode: h.opcode, body: bytes[8...]) == m)
        }
    }

    @Test(arguments: [1, 2, 3, 7, 64, 100_000])
    func assemblerReassemblesAnySplit(chunk: Int) throws {
        let stream = Self.requests.flatMap { $0.encoded() }
        var a = MessageAssembler()
        var out: [ClientMessage] = []
        var i = 0
        while i < stream.count {
            a.append(stream[i..<min(i + chunk, stream.count)])
            i += chunk
            while let (op, body) = try a.next() { out.append(try ClientMessage.decode(opcode: op, body: body)) }
        }
        #expect(out == Self.requests)
        #expect(a.pendingBytes == 0)
    }

    /// Found by the fuzzer: a frameDone time past Int.max must not trap when logged.
    @Test func hugeTimesAreLoggedWithoutTrapping() {
        #expect(ServerEvent.frameDone(time: .max, refresh: 8.333, seq: 7).jsonFields.first?.1 == .int(.max))
        #expect(ServerEvent.frameDone(time: 5, refresh: 8.333, seq: 7).jsonFields.map(\.0) == ["time", "refresh", "seq"])
        #expect(ServerEvent.sync(serial: 1, time: .max).jsonFields.last?.1 == .int(.max))
    }

    @Test func eventLogFieldsUseSpecNames() {
        let c = Self.events[0]
        #expect(c.name == "configure")
        #expect(JSONValue.object(c.jsonFields).serialized == #"{"serial":7,"role":"secondary","frame":{"x":704,"y":0,"width":320,"height":768},"pixelWidth":640,"pixelHeight":1536,"horizontalSizeClass":"compact","verticalSizeClass":"regular","orientation":"portrait","arrangement":"split-2/3","scale":1,"safeAreaInsets":{"top":0,"left":0,"bottom":0,"right":0}}"#)
        let lifecycle = Self.events.first { $0.name == "willResignActive" }
        #expect(lifecycle?.jsonFields.isEmpty == true)
        #expect(Self.events.first { $0.name == "touch" }?.jsonFields.map(\.0) == ["id", "phase", "x", "y", "time", "serial"])
        let eraser = Self.events.last { $0.name == "pen" }
        let eraserLine = JSONValue.object(eraser?.jsonFields ?? []).serialized
        #expect(eraserLine.hasSuffix(#""time":0,"tool":"eraser","buttons":3,"serial":0}"#))
    }

    func decodeError(_ bytes: [UInt8]) -> ProtocolError.Code? {
        var a = MessageAssembler()
        a.append(bytes)
        do {
            guard let (op, body) = try a.next() else { return nil }
            _ = try ClientMessage.decode(opcode: op, body: body)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func refusals() {
        #expect(decodeError([12, 0, 0, 0, UInt8(Wire.version), 0, 3, 0, 0xDE, 0xAD, 0xBE, 0xEF]) == .malformedMessage)  // short commit body
        #expect(decodeError([0x47, 0x41, 0x52, 0x42, 0x41, 0x47, 0x45, 0x21]) == .messageTooLong)  // "GARBAGE!"
        #expect(decodeError([4, 0, 0, 0, UInt8(Wire.version), 0, 1, 0]) == .malformedMessage)  // length below the header
        #expect(decodeError([8, 0, 0, 0, UInt8(Wire.version + 1), 0, 1, 0]) == .unsupportedVersion)
        #expect(decodeError([8, 0, 0, 0, UInt8(Wire.version), 0, 99, 0]) == .unknownOpcode)
        #expect(decodeError([16, 0, 0, 0, UInt8(Wire.version), 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0]) == .malformedMessage)  // trailing bytes
        var hello = ClientMessage.hello(name: "x", requiresFullScreen: false).encoded()
        hello[hello.count - 4] = 6  // unknown flag bits
        #expect(decodeError(hello) == .malformedMessage)
        // A string that claims more bytes than the message holds.
        #expect(decodeError([16, 0, 0, 0, UInt8(Wire.version), 0, 1, 0, 255, 255, 0, 0, 0, 0, 0, 0]) == .malformedMessage)
        // Invalid UTF-8 in a name.
        #expect(decodeError([17, 0, 0, 0, UInt8(Wire.version), 0, 1, 0, 1, 0, 0, 0, 0xFF, 0, 0, 0, 0]) == .malformedMessage)
        // Too many damage rectangles: buffer 1, then a count of 100000.
        var w = [UInt8]()
        for v: UInt32 in [1, 100_000] { for s in [0, 8, 16, 24] { w.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
        let len = UInt32(8 + w.count)
        #expect(decodeError([UInt8(len), 0, 0, 0, UInt8(Wire.version), 0, 3, 0] + w) == .malformedMessage)
    }

    /// A version 1 client (memfd per commit) is refused with a reason that names the current version,
    /// framed so that it can read it.
    @Test func versionOneIsRefusedByNamingTheCurrentVersion() throws {
        var v1 = ClientMessage.hello(name: "old", requiresFullScreen: false).encoded()
        v1[4] = 1
        var a = MessageAssembler()
        a.append(v1)
        #expect(throws: ProtocolError.self) { _ = try a.next() }
        #expect(a.peerVersion == 1)
        do { _ = try Wire.header(v1[...]) } catch {
            #expect(error.code == .unsupportedVersion)
            #expect(error.message.contains("version 1 is not supported") && error.message.contains("speaks version \(Wire.version)"))
            let reply = ServerEvent.error(error).encoded(version: 1)
            #expect(reply[4] == 1 && reply[5] == 0)
        }
    }

    /// The compositor serves a range of versions: an app's first message pins its version for
    /// the connection (read from the header), and a message framed with another one after it
    /// is refused; a version outside the range is refused naming the range.
    @Test func aConnectionSpeaksTheVersionOfItsFirstMessage() throws {
        func framed(_ version: UInt16) -> [UInt8] {
            var m = ClientMessage.ack(serial: 1).encoded()
            m[4] = UInt8(version)
            return m
        }
        var a = MessageAssembler(versions: 5...6)
        a.append(framed(6) + framed(6))
        _ = try a.next()
        #expect(a.version == 6)
        _ = try a.next()
        a.append(framed(5))
        #expect(throws: ProtocolError.self) { _ = try a.next() }
        var b = MessageAssembler(versions: 5...6)
        b.append(framed(7))
        do {
            _ = try b.next()
            Issue.record("version 7 was read")
        } catch {
            #expect(error.code == .unsupportedVersion && error.message.contains("speaks versions 5 to 6"), "\(error.message)")
        }
        // What this build serves: the current version and every one back to the oldest served.
        #expect(Wire.servedVersions.upperBound == Wire.version && Wire.servedVersions.lowerBound >= 5)
    }

    @Test func fourccMatchesDRM() {
        #expect(FourCC.xrgb8888.rawValue == 0x3432_5258)  // DRM_FORMAT_XRGB8888
        #expect(FourCC.argb8888.rawValue == 0x3432_5241)  // DRM_FORMAT_ARGB8888
        #expect(FourCC.xrgb8888.description == "XR24")
    }
}

struct BufferValidationTests {
    typealias Case = (name: String, layout: BufferLayout, fileSize: Int, sealed: Bool, expected: ProtocolError.Code?)
    static let cases: [Case] = [
        ("valid", BufferLayout(width: 640, height: 480, stride: 2560), 2560 * 480, true, nil),
        ("valid with offset and padding", BufferLayout(offset: 64, width: 10, height: 10, stride: 64, format: .argb8888), 64 + 640, true, nil),
        ("unsealed", BufferLayout(width: 640, height: 480, stride: 2560), 2560 * 480, false, .unsealedBuffer),
        ("short file", BufferLayout(width: 640, height: 480, stride: 2560), 2560 * 480 - 1, true, .bufferTooSmall),
        ("offset pushes past the end", BufferLayout(offset: 4, width: 640, height: 480, stride: 2560), 2560 * 480, true, .bufferTooSmall),
        ("stride below width × 4", BufferLayout(width: 640, height: 480, stride: 2556), 1 << 30, true, .badStride),
        ("stride not a multiple of 4", BufferLayout(width: 640, height: 480, stride: 2562), 1 << 30, true, .badStride),
        ("stride × height overflows", BufferLayout(width: 64, height: 16, stride: 0x8000_0000), Int.max, true, .sizeOverflow),
        ("offset + span overflows", BufferLayout(offset: 0xFFFF_FFF0, width: 64, height: 16, stride: 256), Int.max, true, .sizeOverflow),
        ("span at the 2 GiB edge", BufferLayout(width: 16384, height: 16384, stride: 131_072), Int.max, true, .sizeOverflow),
        ("zero width", BufferLayout(width: 0, height: 10, stride: 0), 100, true, .badDimensions),
        ("over the side limit", BufferLayout(width: 16385, height: 1, stride: 65540), 1 << 20, true, .badDimensions),
        ("unknown format", BufferLayout(width: 1, height: 1, stride: 4, format: FourCC("NV12")), 4, true, .badFormat),
    ]

    @Test(arguments: cases.map(\.0))
    func rule(name: String) throws {
        let c = try #require(Self.cases.first { $0.0 == name })
        do {
            try c.layout.validate(fileSize: c.fileSize, sealedAgainstShrinking: c.sealed)
            #expect(c.expected == nil, "\(c.name): accepted")
        } catch {
            #expect(error.code == c.expected, "\(c.name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }
}

// SPDX-License-Identifier: MIT
// The Diptych wire protocol, version 9: message framing and every message both ways.
//
// Frame: u32 total length (header included, little-endian), u16 protocol version, u16 opcode,
// then the body. File descriptors travel as SCM_RIGHTS ancillary data on the same sendmsg as the
// message that uses them; the receiver queues them and each message takes its own in order.
// Version 2 makes buffers objects: a memfd is registered once (`createBuffer`), commits and
// snapshots name it by id, and the compositor says when it is done with one (`release`).
// Version 3 tells apps their scale and safe-area insets in `configure`, and stamps touch and
// pen events with their time (and the pen's tool and buttons). Version 4 adds the keyboard
// (`keyboardFocus`, `key`), the pointer (`pointer`), `refused` for a request the policy
// declines (it was a protocol error that disconnected the app), and `setIcon`. Version 5 adds
// Picture in Picture's playing state and source rectangle; version 6 text input and the
// on-screen keyboard; version 7 menus and alerts the compositor shows for an app; version 8 the
// idle inhibitor; version 9 input serials (the first change of a message's layout among served
// versions: a field with its own "since" is written only to apps whose version has it).

import DiptychCore

/// Protocol constants.
public enum Wire {
    /// The protocol version this build speaks.
    public static let version: UInt16 = 9
    /// The oldest version the compositor still serves: an app built for any version from this
    /// one to `version` is spoken to in its own version (framed with it, and sent only the
    /// events it has), so a protocol bump never strands an installed app.
    public static let oldestServedVersion: UInt16 = 5
    /// The versions the compositor serves.
    public static var servedVersions: ClosedRange<UInt16> { oldestServedVersion...version }
    /// What an app written for an older version must change, for the refusal it gets.
    public static let versionChanges =
        "version 2 made buffers objects: createBuffer once, commit by id, release; version 3 adds scale and safeAreaInsets to configure, time to touch and pen, tool and buttons to pen, and refresh and seq to frameDone; version 4 adds keyboardFocus, key, pointer and refused events and the setIcon request; version 5 adds playing and sourceRect to pipCommit and the pipAction event; version 6 adds the textInput request and the textCommit, textDelete and keyboardFrame events; version 7 adds the presentMenu, presentAlert and dismissPresented requests and the menuChosen, alertAnswered and dismissed events; version 8 adds the idleInhibit request; version 9 adds a serial to touch, pen, key and pointer events and to textInput, the hasPrevious and hasNext hints and the textInputDismissed event"
    /// Size of the frame header in bytes.
    public static let headerSize = 8
    /// The largest message accepted, header included.
    public static let maxMessageSize = 64 * 1024
    /// The longest string field in bytes.
    public static let maxStringBytes = 4096
    /// The most damage rectangles one commit may carry.
    public static let maxDamageRects = 256
    /// The sides an icon (`setIcon`) may have, in pixels.
    public static let iconSides = 120...1024
    /// How often an app's `setIcon` is honoured: once in this many milliseconds.
    public static let iconInterval: UInt64 = 1000
    /// The largest buffer side in pixels.
    public static let maxBufferSide = 16384
    /// The largest memfd a buffer may be registered from: 4 GiB (a buffer spans at most 2 GiB,
    /// offset + stride × height within 31 bits).
    public static let maxFileSize = 1 << 32
}

/// A DRM fourcc pixel format code, computed in Swift because the `DRM_FORMAT_*` macros do not
/// import.
public struct FourCC: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The code of a four-character ASCII name, first character in the low byte.
    public init(_ name: String) {
        let u = Array(name.utf8)
        precondition(u.count == 4, "a fourcc has four characters")
        rawValue = u.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
    /// XRGB8888: 32-bit words, blue in the low byte, the top byte ignored.
    public static let xrgb8888 = FourCC("XR24")
    /// ARGB8888: as XRGB8888 with alpha in the top byte.
    public static let argb8888 = FourCC("AR24")

    public var description: String {
        let chars = (0..<4).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: rawValue >> (8 * UInt32($0))))) }
        return String(chars)
    }
}

/// How a client's pixels are laid out in its memfd.
public struct BufferLayout: Hashable, Sendable {
    public var offset: UInt32
    public var width: UInt32
    public var height: UInt32
    public var stride: UInt32
    public var format: FourCC

    public init(offset: UInt32 = 0, width: UInt32, height: UInt32, stride: UInt32, format: FourCC = .xrgb8888) {
        self.offset = offset
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
    }

    /// The bytes the buffer spans: offset + stride × height.
    public var requiredBytes: Int { Int(offset) + Int(stride) * Int(height) }
}

/// The bounds and traits the compositor gives an app: its pane, plus the screen's state.
public struct Configure: Hashable, Sendable {
    public var serial: UInt32
    /// The app's pane: role, frame in points, pixel size and size classes.
    public var pane: Pane
    public var orientation: Orientation
    public var arrangement: Arrangement
    /// Pixels per point (pixelWidth ÷ frame width).
    public var scale: Double
    /// What of the pane the system covers, in points (the status bar over its top).
    public var safeAreaInsets: EdgeInsets

    public init(serial: UInt32, pane: Pane, orientation: Orientation, arrangement: Arrangement, scale: Double = 1, safeAreaInsets: EdgeInsets = .zero) {
        self.serial = serial
        self.pane = pane
        self.orientation = orientation
        self.arrangement = arrangement
        self.scale = scale
        self.safeAreaInsets = safeAreaInsets
    }

    public var role: Role { pane.role }
    public var frame: Rect { pane.frame }
    public var pixelWidth: Int { pane.pixelWidth }
    public var pixelHeight: Int { pane.pixelHeight }
    public var horizontalSizeClass: SizeClass { pane.horizontalSizeClass }
    public var verticalSizeClass: SizeClass { pane.verticalSizeClass }
}

/// Messages from a client to the compositor.
public enum ClientMessage: Sendable, Equatable {
    /// The first message: the app's name and whether it can only run full screen.
    case hello(name: String, requiresFullScreen: Bool)
    /// Acknowledges the configure with this serial.
    case ack(serial: UInt32)
    /// Shows buffer `buffer` (an id from `createBuffer`) with damage in buffer pixels.
    case commit(buffer: UInt32, damage: [Rect])
    /// Answers a snapshot request with buffer `buffer`.
    case snapshot(serial: UInt32, buffer: UInt32)
    /// Answers a `sync`: everything the app sent before this has been sent.
    case syncDone(serial: UInt32)
    /// Registers the memfd attached (one SCM_RIGHTS fd) as buffer `id` with this layout. Ids are
    /// the app's own (any u32 not in use by it).
    case createBuffer(id: UInt32, BufferLayout)
    /// Forgets buffer `id`. A buffer on screen stays shown (and mapped) until a commit
    /// replaces it.
    case destroyBuffer(id: UInt32)
    /// How the status bar's text is drawn (primary only).
    case statusBarStyle(StatusBarStyle)
    /// Shows buffer `buffer` in the app's Picture in Picture window, opening it if it is not
    /// open (only the primary, or the app that was primary when it went to the background, may
    /// open one); whether its video is `playing` (the controls show pause or play), the video's
    /// rectangle in the app's pane in points (`sourceRect`: the window grows out of it and
    /// shrinks back into it; nil: the pane's centre); damage in buffer pixels.
    case pipCommit(buffer: UInt32, playing: Bool, sourceRect: Rect?, damage: [Rect])
    /// Closes the app's Picture in Picture window (nothing happens if none is open).
    case pipClose
    /// Shows buffer `buffer` on physical screen `screen` (2: the second screen; the primary
    /// only, while it is connected), fitted to it; damage in buffer pixels.
    case screenCommit(screen: UInt32, buffer: UInt32, damage: [Rect])
    /// Gives screen `screen` back: it mirrors the main screen again.
    case screenRelease(screen: UInt32)
    /// The app's icon, from buffer `buffer`: ARGB8888 (premultiplied), square, 120 to 1024
    /// pixels a side. The compositor copies it at once (the buffer is released unless it is
    /// shown elsewhere). Honoured at most once a second; more are `refused` (`rate`).
    case setIcon(buffer: UInt32)
    /// The app's text input: whether a field of it takes text now (it then may raise the
    /// on-screen keyboard), what kind, its caret and the text before it. Version 6.
    case textInput(TextInputState)
    /// A menu for the compositor to show, anchored at a rectangle of the app's pane (in pieces
    /// of at most 1,000 items: shown once all arrived); answered by `menuChosen` or `dismissed`.
    /// Version 7.
    case presentMenu(MenuPiece)
    /// An alert for the compositor to show in the app's pane; answered by `alertAnswered` or
    /// `dismissed`. Version 7.
    case presentAlert(AlertRequest)
    /// Takes the app's menu or alert `id` away (no event follows). Version 7.
    case dismissPresented(id: UInt32)
    /// Keeps the screen awake while the app is on screen (`on`; a playing video), or lets it
    /// blank after the idle timeout again. Version 8.
    case idleInhibit(on: Bool)

    public var opcode: UInt16 {
        switch self {
        case .hello: 1
        case .ack: 2
        case .commit: 3
        case .snapshot: 4
        case .syncDone: 5
        case .createBuffer: 6
        case .destroyBuffer: 7
        case .statusBarStyle: 8
        case .pipCommit: 9
        case .pipClose: 10
        case .screenCommit: 11
        case .screenRelease: 12
        case .setIcon: 13
        case .textInput: 14
        case .presentMenu: 15
        case .presentAlert: 16
        case .dismissPresented: 17
        case .idleInhibit: 18
        }
    }

    /// The request's name, for error messages.
    public var name: String {
        switch self {
        case .hello: "hello"
        case .ack: "ack"
        case .commit: "commit"
        case .snapshot: "snapshot"
        case .syncDone: "syncDone"
        case .createBuffer: "createBuffer"
        case .destroyBuffer: "destroyBuffer"
        case .statusBarStyle: "statusBarStyle"
        case .pipCommit: "pipCommit"
        case .pipClose: "pipClose"
        case .screenCommit: "screenCommit"
        case .screenRelease: "screenRelease"
        case .setIcon: "setIcon"
        case .textInput: "textInput"
        case .presentMenu: "presentMenu"
        case .presentAlert: "presentAlert"
        case .dismissPresented: "dismissPresented"
        case .idleInhibit: "idleInhibit"
        }
    }

    /// The first protocol version whose apps send it as it is now (the description's "since").
    /// A connection of an older version that sends it is refused, as its version lacks it.
    public var since: UInt16 {
        switch self {
        case .hello, .ack, .commit, .snapshot, .syncDone, .createBuffer, .destroyBuffer, .statusBarStyle, .pipCommit, .pipClose,
             .screenCommit, .screenRelease, .setIcon: 5
        case .textInput: 6
        case .presentMenu, .presentAlert, .dismissPresented: 7
        case .idleInhibit: 8
        }
    }

    /// How many fds travel with this message.
    public var fdCount: Int {
        switch self {
        case .createBuffer: 1
        default: 0
        }
    }
}

/// Events from the compositor to a client (names as in event logs).
public enum ServerEvent: Sendable, Equatable {
    case configure(Configure)
    case sizeClassChanged(horizontal: SizeClass, vertical: SizeClass, previousHorizontal: SizeClass, previousVertical: SizeClass)
    case lifecycle(LifecycleEvent)
    case snapshotRequest(serial: UInt32, frame: Rect, pixelWidth: Int, pixelHeight: Int, horizontalSizeClass: SizeClass)
    /// A finger, in points of the pane; `time` is the input's own timestamp in milliseconds
    /// (the compositor's virtual clock when a scenario plays).
    /// Every input event (touch, pen, key, pointer) carries a `serial` from version 9 (one
    /// increasing counter a connection, stamped as it is sent), which an enabling `textInput`
    /// names.
    case touch(id: Int32, phase: TouchPhase, x: Double, y: Double, time: Double, serial: UInt32 = 0)
    /// The pen, in points of the pane, with its pressure (0…1), tilt (degrees), timestamp
    /// (milliseconds), the end that touches and the barrel buttons held.
    case pen(phase: PenPhase, x: Double, y: Double, pressure: Double, tiltX: Double, tiltY: Double, time: Double, tool: PenTool, buttons: PenButtons, serial: UInt32 = 0)
    /// The committed buffer reached the screen at `time` (milliseconds, monotonic clock; the
    /// virtual clock in a scenario), on an output refreshing every `refresh` milliseconds, in
    /// its frame number `seq` (as wp_presentation's feedback: an app can aim at the next frame).
    case frameDone(time: UInt64, refresh: Double, seq: UInt64)
    /// The client broke the protocol; the connection closes after this.
    case error(ProtocolError)
    /// A round trip: answer with `syncDone` after handling every earlier event. `time` is the
    /// compositor's clock in milliseconds (virtual time when a scenario plays). Not logged.
    case sync(serial: UInt32, time: UInt64)
    /// The compositor will not read buffer `buffer` again until it is committed (or sent as a
    /// snapshot) again: the app may draw into it.
    case release(buffer: UInt32)
    /// A second physical screen is there for the app (the primary): it may commit to it.
    case screenConnected(screen: UInt32, pixelWidth: Int, pixelHeight: Int)
    /// The screen went away, or passed to another app.
    case screenDisconnected(screen: UInt32, pixelWidth: Int, pixelHeight: Int)
    /// The app gained (`focused`) or lost the keyboard: key events go to the app that has it.
    case keyboardFocus(focused: Bool)
    /// A key of the focused app's: the evdev `keycode`, the `keysym` the keymap gives it (with
    /// the modifiers in effect), the UTF-8 `text` it types (empty for none; a dead key types
    /// nothing and the key after it the composed character), what it did, the modifiers, and
    /// its time in milliseconds.
    case key(keycode: UInt32, keysym: UInt32, text: String, state: KeyState, modifiers: KeyModifiers, time: Double, serial: UInt32 = 0)
    /// The pointer over the app's pane, in points of the pane: it came in or left, moved, a
    /// `button` (Linux code) went down (`pressed`) or up, or it scrolled by `dx`, `dy` points
    /// from `source`; `time` in milliseconds.
    case pointer(phase: PointerPhase, x: Double, y: Double, button: UInt32, pressed: Bool, dx: Double, dy: Double, source: ScrollSource, time: Double, serial: UInt32 = 0)
    /// A request the policy does not allow now was not carried out; the app lives on.
    /// `request` names what was asked (`pictureInPicture`, `secondScreen`), `reason` why
    /// (`not-primary`, `not-connected`), `message` says it for a person.
    case refused(request: String, reason: String, message: String)
    /// The user tapped one of the Picture in Picture window's controls: play or pause,
    /// back to the app (the compositor brings it back as the primary), or close (the window is
    /// closed already).
    case pipAction(PiPAction)
    /// Text the on-screen keyboard typed into the app's field (UTF-8). Version 6.
    case textCommit(text: String)
    /// Delete `before` and `after` Unicode scalar values around the caret. Version 6.
    case textDelete(before: UInt32, after: UInt32)
    /// Where the on-screen keyboard will be at the end of its move. Version 6.
    case keyboardFrame(KeyboardFrame)
    /// The user chose item `index` of menu `id` (it is gone). Version 7.
    case menuChosen(id: UInt32, index: UInt32)
    /// The user tapped button `button` of alert `id`, with `text` in its field (empty without
    /// one); it is gone. Version 7.
    case alertAnswered(id: UInt32, button: UInt32, text: String)
    /// Menu or alert `id` went unanswered: a tap outside a menu, the app's pane changed or left
    /// the screen. Version 7.
    case dismissed(id: UInt32)
    /// The user pressed the on-screen keyboard's dismiss key: the app's field should give up
    /// the focus (its focus ring goes, as on iPad). Version 9.
    case textInputDismissed

    public var opcode: UInt16 {
        switch self {
        case .configure: 100
        case .sizeClassChanged: 101
        case .lifecycle: 102
        case .snapshotRequest: 103
        case .touch: 104
        case .pen: 105
        case .frameDone: 106
        case .error: 107
        case .sync: 108
        case .release: 109
        case .screenConnected: 110
        case .screenDisconnected: 111
        case .keyboardFocus: 112
        case .key: 113
        case .pointer: 114
        case .refused: 115
        case .pipAction: 116
        case .textCommit: 117
        case .textDelete: 118
        case .keyboardFrame: 119
        case .menuChosen: 120
        case .alertAnswered: 121
        case .dismissed: 122
        case .textInputDismissed: 123
        }
    }

    /// The event's name as it appears in event logs.
    public var name: String {
        switch self {
        case .configure: "configure"
        case .sizeClassChanged: "sizeClassChanged"
        case .lifecycle(let l): l.name
        case .snapshotRequest: "snapshotRequest"
        case .touch: "touch"
        case .pen: "pen"
        case .frameDone: "frameDone"
        case .error: "protocolError"
        case .sync: "sync"
        case .release: "release"
        case .screenConnected: "screenConnected"
        case .screenDisconnected: "screenDisconnected"
        case .keyboardFocus: "keyboardFocus"
        case .key: "key"
        case .pointer: "pointer"
        case .refused: "refused"
        case .pipAction: "pipAction"
        case .textCommit: "textCommit"
        case .textDelete: "textDelete"
        case .keyboardFrame: "keyboardFrame"
        case .menuChosen: "menuChosen"
        case .alertAnswered: "alertAnswered"
        case .dismissed: "dismissed"
        case .textInputDismissed: "textInputDismissed"
        }
    }

    /// The first protocol version whose apps read it as it is now (the description's "since"):
    /// an app of an older version is not sent it.
    public var since: UInt16 {
        switch self {
        case .configure, .sizeClassChanged, .lifecycle, .snapshotRequest, .touch, .pen, .frameDone, .error, .sync, .release,
             .screenConnected, .screenDisconnected, .keyboardFocus, .key, .pointer, .refused, .pipAction: 5
        case .textCommit, .textDelete, .keyboardFrame: 6
        case .menuChosen, .alertAnswered, .dismissed: 7
        case .textInputDismissed: 9
        }
    }

    /// The first version whose apps read an input event's `serial`.
    public static let serialSince: UInt16 = 9

    /// The input event's serial (nil: not an input event).
    public var serial: UInt32? {
        switch self {
        case .touch(_, _, _, _, _, let s), .pen(_, _, _, _, _, _, _, _, _, let s), .key(_, _, _, _, _, _, let s),
             .pointer(_, _, _, _, _, _, _, _, _, let s): s
        default: nil
        }
    }

    /// A touch, pen or key event, text the on-screen keyboard typed, or a pointer's button or
    /// scroll (not its hovering): the user acting on the app.
    public var isUserInput: Bool {
        switch self {
        case .touch, .pen, .key, .textCommit: true
        case .pointer(let phase, _, _, _, _, _, _, _, _, _): phase == .button || phase == .scroll
        default: false
        }
    }

    /// The input event with `serial` (any other event as it is).
    public func stamped(_ serial: UInt32) -> ServerEvent {
        switch self {
        case .touch(let id, let phase, let x, let y, let time, _): .touch(id: id, phase: phase, x: x, y: y, time: time, serial: serial)
        case .pen(let phase, let x, let y, let p, let tx, let ty, let time, let tool, let buttons, _):
            .pen(phase: phase, x: x, y: y, pressure: p, tiltX: tx, tiltY: ty, time: time, tool: tool, buttons: buttons, serial: serial)
        case .key(let keycode, let keysym, let text, let state, let modifiers, let time, _):
            .key(keycode: keycode, keysym: keysym, text: text, state: state, modifiers: modifiers, time: time, serial: serial)
        case .pointer(let phase, let x, let y, let button, let pressed, let dx, let dy, let source, let time, _):
            .pointer(phase: phase, x: x, y: y, button: button, pressed: pressed, dx: dx, dy: dy, source: source, time: time, serial: serial)
        default: self
        }
    }
}

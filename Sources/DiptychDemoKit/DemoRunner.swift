// SPDX-License-Identifier: MIT
// The demo client process: connects, answers configures with freshly drawn buffers and
// snapshot requests with offscreen renderings, hands input to its app model, and logs every
// event it receives as a JSON line.

import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychWire
import Glibc

/// Writes each event an app receives as one JSON line (the tests read these logs).
public struct EventLog {
    let path: String?
    let app: String

    /// A log appended to `path` (nil: no log), naming the app as `app`.
    public init(path: String?, app: String) {
        self.path = path
        self.app = app
    }

    /// Appends `event`, with the app's state digest where one is given.
    public func write(_ event: ServerEvent, stateDigest: String?) {
        guard let path else { return }
        var fields = [("app", JSONValue.string(app)), ("event", .string(event.name))] + event.jsonFields
        if let stateDigest { fields.append(("stateDigest", .string(stateDigest))) }
        do { try Files.appendLine(path, JSONValue.object(fields).serialized) } catch {
            printError("diptych-demo: cannot write the event log: \(error)")
        }
    }
}

/// Runs a demo app until the compositor closes the connection.
public struct DemoRunner {
    let options: DemoOptions
    let connection: Connection
    var model: any DemoModel
    /// The configure being shown and its canvas.
    var canvas: Canvas?
    var configured = 0
    var recolored = false
    var styled = false
    /// The status bar style last asked for as the primary.
    var askedStyle: StatusBarStyle = .dark
    /// Snapshot requests waiting for their delay; `since` is the clock at the first sync after.
    var waiting: [(serial: UInt32, canvas: Canvas, since: UInt64?)] = []
    /// The app is on screen (it has not gone to the background, or came back).
    var foreground = true
    /// Whether the pointer's left button is down over the app (a finger to it).
    var pointerDown = false
    static let pointerTouchID: Int32 = -2
    /// The Picture in Picture window is open.
    var pipOpen = false
    /// The screen's width in pixels as far as the panes told (for the window's buffer size).
    var screenPixels = 0
    /// The compositor's clock is virtual (a scenario: it sends `sync` every frame, and a
    /// playing app moves its picture then); live, a playing app keeps its own 30 Hz timer.
    var virtualClock = false
    /// A frame reached the screen before any `sync`: the compositor runs live.
    var liveClock = false
    /// The second screen the app holds (its size), if any.
    var secondScreen: Size?

    public init(options: DemoOptions, connection: Connection) {
        self.options = options
        self.connection = connection
        switch options.app {
        case .pattern(let c): model = PatternModel(color: c)
        case .notes: model = NotesModel()
        case .markets: model = MarketsModel()
        case .tv: model = TvModel()
        }
    }

    func log(_ event: ServerEvent) {
        let digest: String?
        switch event {
        case .lifecycle(.didBecomeActive), .lifecycle(.willResignActive): digest = model.stateDigest
        default: digest = nil
        }
        EventLog(path: options.eventLog, app: options.app.description).write(event, stateDigest: digest)
    }

    /// Returns the process exit status: 0 when the compositor ended the session, 1 on a
    /// protocol error or system failure.
    public mutating func run() -> Int32 {
        do {
            try connection.hello(name: options.app.description, requiresFullScreen: options.requiresFullScreen)
            while let event = try nextEvent() {
                if case .sync = event {} else { log(event) }
                if case .error(let e) = event {
                    printError("diptych-demo: the compositor reported a protocol error: \(e)")
                    return 1
                }
                try handle(event)
            }
            return 0
        } catch .closed {
            // The compositor went away while the app drew: the session ended.
            return 0
        } catch .refused(let e) {
            log(.error(e))
            printError("diptych-demo: the compositor reported a protocol error: \(e)")
            return 1
        } catch {
            printError("diptych-demo: \(error)")
            return 1
        }
    }

    /// The side of the icon the demo apps give (60 pt at the largest scale, 3).
    static let iconSide = 180

    mutating func handle(_ event: ServerEvent) throws(ClientError) {
        try respond(to: event)
        // The field taking text changed (a tap on it, typing, the focus gone): the compositor
        // is told; an enable names the last tap or key the app was handed (the tap that
        // focused the field raises the keyboard).
        let field = model.textField ?? .disabled
        if field != textField {
            textField = field
            try connection.setTextInput(field)
        }
    }

    /// The busy threads were started (`burn`).
    private var burning = false
    /// The memory `holdMegabytes` took (never freed).
    var held: UnsafeMutableRawPointer?

    /// The text input last sent.
    var textField = TextInputState.disabled

    mutating func respond(to event: ServerEvent) throws(ClientError) {
        switch event {
        case .configure(let c):
            configured += 1
            if options.noAck && configured > 1 { return }
            try connection.ack(c.serial)
            // Its icon (for its placeholder and its blurred picture while the divider moves),
            // once, answering its first configure: the `release` that follows it then has the
            // same place in every run's event log.
            if configured == 1 {
                let app = options.app
                try connection.setIcon(side: Self.iconSide) { pixels, words in app.drawIcon(pixels, words: words, side: Self.iconSide) }
            }
            // As an iOS app's preferred status bar style, whatever its role (in Split View the
            // bar over its pane takes it).
            if options.statusBarStyle == nil, model.preferredStatusBarStyle != askedStyle {
                askedStyle = model.preferredStatusBarStyle
                try connection.setStatusBarStyle(askedStyle)
            }
            let next = Canvas(c)
            screenPixels = max(screenPixels, Self.screenEstimate(c))
            model.resized(to: next)
            canvas = next
            try present()
        case .snapshotRequest(let serial, let frame, let pw, let ph, let hc):
            if options.noAck { return }
            waiting.append((serial, Canvas(frame: frame, pixelWidth: pw, pixelHeight: ph, horizontalSizeClass: hc), nil))
            if options.snapshotDelay == 0 { try answerSnapshots(now: nil) }
        case .touch(let id, let phase, let x, let y, _, _):
            guard let canvas, !(options.noAck && configured > 1) else { return }
            if model.touch(id: id, phase: phase, x: x, y: y, canvas: canvas) { try present() }
        case .pen(let phase, let x, let y, let pressure, _, _, _, _, _, _):
            guard let canvas, !(options.noAck && configured > 1) else { return }
            if let ms = options.penDots {
                if phase == .down || phase == .motion { try dot(x: x, y: y, canvas: canvas, milliseconds: ms) }
                return
            }
            if model.pen(phase: phase, x: x, y: y, pressure: pressure, canvas: canvas) { try present() }
        case .key(_, let keysym, let text, let state, _, _, _):
            guard let canvas else { return }
            if model.key(keysym: keysym, text: text, state: state, canvas: canvas) { try present() }
        case .textCommit(let text):
            if canvas != nil, model.commit(text: text) { try present() }
        case .keyboardFocus(false), .textInputDismissed:
            // (The keyboard's dismiss key: the field gives up its focus, as on iPad.)
            if canvas != nil, model.lostKeyboardFocus() { try present() }
        case .keyboardFrame(let k):
            if canvas != nil, model.keyboard(k) { try present() }
        case .pointer(let phase, let x, let y, let button, let pressed, let dx, let dy, _, _, _):
            guard let canvas else { return }
            // The left button is a finger to every app: a click a tap, a drag a stroke or a
            // scroll, with the pointer's own touch id.
            var redraw = false
            switch phase {
            case .button where button == PointerButton.left:
                pointerDown = pressed
                redraw = model.touch(id: Self.pointerTouchID, phase: pressed ? .down : .up, x: x, y: y, canvas: canvas)
            case .motion where pointerDown:
                redraw = model.touch(id: Self.pointerTouchID, phase: .motion, x: x, y: y, canvas: canvas)
            default:
                break
            }
            if model.pointer(phase: phase, x: x, y: y, button: button, pressed: pressed, dx: dx, dy: dy, canvas: canvas) { redraw = true }
            if redraw { try present() }
        case .refused(let request, _, _):
            // Picture in Picture declined (the app was not the primary): the picture stays in
            // the app; a second-screen commit declined: the screen is not the app's any more.
            if request == "pictureInPicture", pipOpen {
                pipOpen = false
                model.inPictureInPicture = false
                if foreground && canvas != nil { try present() }
            } else if request == "secondScreen", secondScreen != nil {
                secondScreen = nil
                model.onSecondScreen = false
                if foreground && canvas != nil && !pipOpen { try present() }
            }
        case .pipAction(let action):
            // The window's controls: play/pause, back to the app (the compositor brings it
            // back; it takes its picture back as it comes to the foreground), close.
            switch action {
            case .playPause:
                model.paused.toggle()
                if pipOpen { try commitPictureInPicture() }
            case .close:
                pipOpen = false
                model.inPictureInPicture = false
                model.paused = true
                if foreground && canvas != nil { try present() }
            case .restore:
                break
            }
        case .screenConnected(let screen, let w, let h):
            // A playing app sends its picture to the second screen.
            guard model.plays, screen == 2 else { return }
            secondScreen = Size(width: w, height: h)
            model.onSecondScreen = true
            try commitToSecondScreen()
            if foreground && canvas != nil { try present() }
        case .screenDisconnected:
            guard secondScreen != nil else { return }
            secondScreen = nil
            model.onSecondScreen = false
            if foreground && canvas != nil && !pipOpen { try present() }
        case .lifecycle(.didEnterBackground):
            foreground = false
            // Automatic invocation: the picture goes on playing in a window.
            if model.plays && !pipOpen { try openPictureInPicture() }
        case .lifecycle(.willEnterForeground):
            foreground = true
            if pipOpen && !options.pictureInPicture {
                pipOpen = false
                model.inPictureInPicture = false
                try connection.pipClose()
                try present()
            }
        case .frameDone:
            if !virtualClock { liveClock = true }
            if options.pictureInPicture && model.plays && !pipOpen { try openPictureInPicture() }
            if let style = options.statusBarStyle, !styled {
                styled = true
                try connection.setStatusBarStyle(style)
            }
            if options.burn, !burning {
                burning = true
                Burner.start()
            }
            if options.holdMegabytes > 0, held == nil {
                // Written page by page: the memory is really the app's (its cgroup is charged).
                let bytes = options.holdMegabytes << 20
                held = malloc(bytes)
                if let held { memset(held, 0x5A, bytes) }
            }
            if options.animate, let canvas, !(options.noAck && configured > 1) {
                try animateFrame(canvas)
                return
            }
            if let box = options.recolorDamage, let canvas, !recolored {
                recolored = true
                let buffer = try render(canvas)
                let image = buffer.image
                image.fill(Rect(x: 0, y: 0, width: canvas.pixelWidth, height: canvas.pixelHeight), color: RGB(red: 0xFF, green: 0xCC, blue: 0x00))
                try connection.commit(buffer, damage: [box])
            }
        case .sync(_, let time):
            virtualClock = true
            try answerSnapshots(now: time)
            if model.play(at: time) { try playFrame() }
            // The connection answers the sync at the next event asked for, after this.
        default:
            break
        }
    }

    /// The next event; live, a playing app wakes at its next picture (30 Hz) to draw it.
    mutating func nextEvent() throws(ClientError) -> ServerEvent? {
        // In a scenario the first `sync` comes before the first `frameDone`; live, none does.
        guard model.plays, liveClock, !virtualClock else { return try connection.nextEvent() }
        while true {
            if let e = try connection.pollEvent() { return e }
            if connection.isClosed { return nil }
            let now = MonotonicClock.milliseconds
            let next = (now / TvModel.frameMilliseconds + 1) * TvModel.frameMilliseconds
            var p = pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(next - now))
            if n == 0, !virtualClock, model.play(at: MonotonicClock.milliseconds) { try playFrame() }
        }
    }

    /// The screen's width in pixels from a configure: a full-screen pane's width, the right
    /// edge of a pane that ends at the screen's edge, else the split's share.
    static func screenEstimate(_ c: Configure) -> Int {
        let scale = max(1, c.pixelWidth / max(1, c.frame.width))
        switch (c.arrangement, c.role) {
        case (.full, _), (.slideOver, .primary): return c.pixelWidth
        case (_, .secondary): return c.frame.maxX * scale
        case (.split23, .primary): return c.pixelWidth * 3 / 2
        case (.split12, .primary): return c.pixelWidth * 2
        }
    }

    /// Opens the Picture in Picture window with the current picture.
    mutating func openPictureInPicture() throws(ClientError) {
        pipOpen = true
        model.inPictureInPicture = true
        try commitPictureInPicture()
        // Shown (the primary asked for it while on screen): the main surface says where the
        // picture went.
        if foreground { try present() }
    }

    func commitPictureInPicture() throws(ClientError) {
        // The video fills the app's pane: the window grows out of all of it.
        let video = canvas.map { Rect(x: 0, y: 0, width: $0.pixelWidth / $0.scale, height: $0.pixelHeight / $0.scale) }
        try commitPicture(TvModel.pipSize(screenPixels: screenPixels > 0 ? screenPixels : 1024)) { b throws(ClientError) in
            try connection.pipCommit(b, playing: !model.paused, sourceRect: video)
        }
    }

    /// Draws the current picture on the second screen, at its size.
    func commitToSecondScreen() throws(ClientError) {
        guard let size = secondScreen else { return }
        try commitPicture(size) { b throws(ClientError) in try connection.screenCommit(b) }
    }

    /// Draws the current picture into a free buffer of `size` and hands it to `commit`; skipped
    /// when every buffer of that size is busy.
    func commitPicture(_ size: Size, _ commit: (ShmBuffer) throws(ClientError) -> Void) throws(ClientError) {
        guard let buffer = try connection.freeBuffer(width: size.width, height: size.height) else { return }
        model.drawPictureInPicture(buffer.image)
        try commit(buffer)
    }

    /// Draws the picture that is due: in the window when it plays there, else on the main
    /// surface while on screen. A frame with no free buffer is skipped.
    mutating func playFrame() throws(ClientError) {
        if secondScreen != nil { try commitToSecondScreen() }
        if pipOpen {
            try commitPictureInPicture()
        } else if foreground, secondScreen == nil, let canvas, !(options.noAck && configured > 1) {
            guard let buffer = try connection.freeBuffer(width: canvas.pixelWidth, height: canvas.pixelHeight) else { return }
            model.draw(buffer.image, canvas: canvas)
            try connection.commit(buffer)
        }
    }

    /// Answers the snapshot requests whose delay has passed (all of them when `now` is nil).
    mutating func answerSnapshots(now: UInt64?) throws(ClientError) {
        var still: [(serial: UInt32, canvas: Canvas, since: UInt64?)] = []
        for var w in waiting {
            if let now, w.since == nil { w.since = now }
            if now == nil || now! - w.since! >= options.snapshotDelay {
                let buffer = try render(w.canvas)
                try connection.snapshot(buffer, serial: w.serial)
            } else {
                still.append(w)
            }
        }
        waiting = still
    }

    var animationFrame = 0

    /// Draws the next frame into a released buffer from the pool and commits it.
    mutating func animateFrame(_ canvas: Canvas) throws(ClientError) {
        animationFrame += 1
        let buffer = try connection.buffer(width: canvas.pixelWidth, height: canvas.pixelHeight)
        let image = buffer.image
        model.draw(image, canvas: canvas)
        // A band that moves every frame, so each frame really differs.
        let band = (animationFrame * 8 * canvas.scale) % max(1, canvas.pixelHeight)
        image.fill(Rect(x: 0, y: band, width: canvas.pixelWidth, height: 8 * canvas.scale), color: RGB(red: 0xFF, green: 0xFF, blue: 0xFF))
        try connection.commit(buffer)
    }

    /// A dot at (x, y) in points, drawn into a free buffer and committed with its damage, the
    /// drawing taking `milliseconds` from now (a busy wait: an app's own drawing time).
    func dot(x: Double, y: Double, canvas: Canvas, milliseconds: Double) throws(ClientError) {
        let start = MonotonicClock.nanoseconds
        let buffer = try connection.buffer(width: canvas.pixelWidth, height: canvas.pixelHeight)
        let r = 4 * canvas.scale
        let box = Rect(x: Int(x) * canvas.scale - r, y: Int(y) * canvas.scale - r, width: 2 * r, height: 2 * r)
            .intersection(Rect(x: 0, y: 0, width: canvas.pixelWidth, height: canvas.pixelHeight))
        guard let box else { return }
        buffer.image.fill(box, color: RGB(red: 0x20, green: 0x20, blue: 0x20))
        let until = start + UInt64(milliseconds * 1_000_000)
        while MonotonicClock.nanoseconds < until {}
        try connection.commit(buffer, damage: [box])
    }

    /// Draws the whole canvas into a buffer the compositor is not reading.
    func render(_ canvas: Canvas) throws(ClientError) -> ShmBuffer {
        let buffer = try connection.buffer(width: canvas.pixelWidth, height: canvas.pixelHeight)
        let image = buffer.image
        model.draw(image, canvas: canvas)
        return buffer
    }

    mutating func present() throws(ClientError) {
        guard let canvas else { return }
        try connection.commit(try render(canvas))
    }
}

extension ShmBuffer {
    /// The buffer's pixels as an image to draw into (XRGB8888), keeping the mapping alive.
    public var image: PixelImage {
        PixelImage(mapping: mapping, offset: Int(layout.offset), width: Int(layout.width), height: Int(layout.height), stride: Int(layout.stride), format: .xrgb8888)
    }
}

/// Writes a line to standard error.
public func printError(_ message: String) {
    Files.writeStandardError(message + "\n")
}

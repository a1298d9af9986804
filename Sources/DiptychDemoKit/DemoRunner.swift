// SPDX-License-Identifier: MIT
// The demo client process: connects, answers configures with freshly drawn buffers and
// snapshot requests with offscreen renderings, hands input to its app model, and logs every
// event it receives as a JSON line.

import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychWire
import Glibc

/// Ways the demo client breaks the protocol on purpose, to test the compositor's defences.
public enum Misbehaviour: String, CaseIterable, Sendable {
    /// Commits a memfd without `F_SEAL_SHRINK`.
    case unsealed
    /// Commits a memfd smaller than stride × height.
    case short
    /// Commits with a stride whose product with the height overflows.
    case strideOverflow = "stride-overflow"
    /// Sends a message whose body does not parse.
    case garbage
    /// Sends a header announcing a message over the size limit.
    case tooLong = "too-long"
    /// Sends half of a commit, then closes the connection.
    case half
    /// Commits without passing a file descriptor.
    case noFD = "no-fd"
    /// Sends a message with 30 file descriptors attached.
    case manyFDs = "many-fds"
    /// Commits a buffer wider than 16384 pixels.
    case huge
    /// Commits before acking the configure.
    case earlyCommit = "early-commit"
    /// Acks a serial that was never sent.
    case badAck = "bad-ack"
    /// Commits a buffer of another size than configured (tolerated: shown clipped).
    case wrongSize = "wrong-size"
    /// Commits, then tries to shrink the committed memfd (the seal refuses).
    case truncateAfter = "truncate-after"
    /// Stops reading its socket after the first frame.
    case noRead = "no-read"
    /// Crashes when asked for snapshots (in the middle of a divider drag).
    case crashInDrag = "crash-in-drag"
    /// Floods the compositor: thousands of commits and stray messages, then behaves.
    case flood
}

/// What the demo process was asked to do.
public struct DemoOptions: Sendable {
    public var app: DemoApp
    public var eventLog: String?
    public var requiresFullScreen = false
    public var misbehave: Misbehaviour?
    /// Answer snapshot requests this many milliseconds (of the compositor's clock) late.
    public var snapshotDelay: UInt64 = 0
    /// Play a hung app: after the first frame, never ack a configure or answer a snapshot.
    public var noAck = false
    /// After the first frame is shown, redraw the whole buffer in another colour but report
    /// only this damage box (buffer pixels): a damage-exactness probe.
    public var recolorDamage: Rect?
    /// Draw a new full-damage frame after every `frameDone` (a busy app, for profiling).
    public var animate = false

    public init(app: DemoApp, eventLog: String? = nil, requiresFullScreen: Bool = false, misbehave: Misbehaviour? = nil, snapshotDelay: UInt64 = 0, noAck: Bool = false) {
        self.app = app
        self.eventLog = eventLog
        self.requiresFullScreen = requiresFullScreen
        self.misbehave = misbehave
        self.snapshotDelay = snapshotDelay
        self.noAck = noAck
    }
}

/// Runs a demo app until the compositor closes the connection.
public struct DemoRunner {
    let options: DemoOptions
    let connection: Connection
    var model: any DemoModel
    /// The configure being shown and its canvas.
    var canvas: Canvas?
    /// The buffer on screen; kept until the next commit replaces it.
    var shown: ShmBuffer?
    var configured = 0
    var recolored = false
    /// Snapshot requests waiting for their delay; `since` is the clock at the first sync after.
    var waiting: [(serial: UInt32, canvas: Canvas, since: UInt64?)] = []

    public init(options: DemoOptions, connection: Connection) {
        self.options = options
        self.connection = connection
        switch options.app {
        case .pattern(let c): model = PatternModel(color: c)
        case .notes: model = NotesModel()
        case .markets: model = MarketsModel()
        }
    }

    func log(_ event: ServerEvent) {
        guard let path = options.eventLog else { return }
        var fields = [("app", JSONValue.string(options.app.description)), ("event", .string(event.name))] + event.jsonFields
        switch event {
        case .lifecycle(.didBecomeActive), .lifecycle(.willResignActive): fields.append(("stateDigest", .string(model.stateDigest)))
        default: break
        }
        do { try Files.appendLine(path, JSONValue.object(fields).serialized) } catch {
            printError("diptych-demo: cannot write the event log: \(error)")
        }
    }

    /// Returns the process exit status: 0 when the compositor ended the session, 1 on a
    /// protocol error or system failure.
    public mutating func run() -> Int32 {
        do {
            try connection.send(.hello(name: options.app.description, requiresFullScreen: options.requiresFullScreen))
            while let event = try connection.nextEvent() {
                if case .sync = event {} else { log(event) }
                if case .error(let e) = event {
                    printError("diptych-demo: the compositor reported a protocol error: \(e)")
                    return 1
                }
                try handle(event)
            }
            return 0
        } catch {
            printError("diptych-demo: \(error)")
            return 1
        }
    }

    mutating func handle(_ event: ServerEvent) throws(ClientError) {
        switch event {
        case .configure(let c):
            configured += 1
            if let bad = options.misbehave, try misbehaveAtConfigure(bad, c) { return }
            if options.noAck && configured > 1 { return }
            try connection.send(.ack(serial: c.serial))
            let next = Canvas(c)
            model.resized(to: next)
            canvas = next
            try present()
        case .snapshotRequest(let serial, let frame, let pw, let ph, let hc):
            if options.misbehave == .crashInDrag { abort() }
            if options.noAck { return }
            waiting.append((serial, Canvas(frame: frame, pixelWidth: pw, pixelHeight: ph, horizontalSizeClass: hc), nil))
            if options.snapshotDelay == 0 { try answerSnapshots(now: nil) }
        case .touch(let id, let phase, let x, let y):
            guard let canvas, !(options.noAck && configured > 1) else { return }
            if model.touch(id: id, phase: phase, x: x, y: y, canvas: canvas) { try present() }
        case .pen(let phase, let x, let y, let pressure, _, _):
            guard let canvas, !(options.noAck && configured > 1) else { return }
            if model.pen(phase: phase, x: x, y: y, pressure: pressure, canvas: canvas) { try present() }
        case .frameDone:
            if options.animate, let canvas, !(options.noAck && configured > 1) {
                try animateFrame(canvas)
                return
            }
            if let box = options.recolorDamage, let canvas, !recolored {
                recolored = true
                let buffer = try render(canvas)
                let image = PixelImage(mapping: buffer.mapping, offset: 0, width: canvas.pixelWidth, height: canvas.pixelHeight, stride: Int(buffer.layout.stride), format: .xrgb8888)
                image.fill(Rect(x: 0, y: 0, width: canvas.pixelWidth, height: canvas.pixelHeight), color: RGB(red: 0xFF, green: 0xCC, blue: 0x00))
                try connection.commit(buffer, damage: [box])
                shown = buffer
            }
        case .sync(let serial, let time):
            try answerSnapshots(now: time)
            try connection.send(.syncDone(serial: serial))
        default:
            break
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

    /// Two buffers drawn in turn: the one not on screen is drawn and committed.
    var animation: [ShmBuffer] = []
    var animationFrame = 0

    mutating func animateFrame(_ canvas: Canvas) throws(ClientError) {
        if animation.first.map({ Int($0.layout.width) != canvas.pixelWidth || Int($0.layout.height) != canvas.pixelHeight }) ?? true {
            animation = []
            for _ in 0..<2 {
                do { animation.append(try ShmBuffer(width: canvas.pixelWidth, height: canvas.pixelHeight)) } catch { throw .system(error) }
            }
        }
        animationFrame += 1
        let buffer = animation[animationFrame % 2]
        let image = PixelImage(mapping: buffer.mapping, offset: 0, width: canvas.pixelWidth, height: canvas.pixelHeight, stride: Int(buffer.layout.stride), format: .xrgb8888)
        model.draw(image, canvas: canvas)
        // A band that moves every frame, so each frame really differs.
        let band = (animationFrame * 8 * canvas.scale) % max(1, canvas.pixelHeight)
        image.fill(Rect(x: 0, y: band, width: canvas.pixelWidth, height: 8 * canvas.scale), color: RGB(red: 0xFF, green: 0xFF, blue: 0xFF))
        try connection.commit(buffer)
        shown = buffer
    }

    func render(_ canvas: Canvas) throws(ClientError) -> ShmBuffer {
        let buffer: ShmBuffer
        do { buffer = try ShmBuffer(width: canvas.pixelWidth, height: canvas.pixelHeight) } catch { throw .system(error) }
        let image = PixelImage(
            mapping: buffer.mapping, offset: 0, width: canvas.pixelWidth, height: canvas.pixelHeight,
            stride: Int(buffer.layout.stride), format: .xrgb8888)
        model.draw(image, canvas: canvas)
        return buffer
    }

    /// Misbehaviours that replace the normal answer to a configure; true when done.
    mutating func misbehaveAtConfigure(_ how: Misbehaviour, _ c: Configure) throws(ClientError) -> Bool {
        func buffer(_ w: Int, _ h: Int) throws(ClientError) -> ShmBuffer {
            do { return try ShmBuffer(width: w, height: h) } catch { throw .system(error) }
        }
        switch how {
        case .tooLong:
            try connection.sendRaw([0, 0, 0x10, 0, 1, 0, 2, 0])  // 1 MiB announced
        case .half:
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            try connection.send(.ack(serial: c.serial))
            let bytes = ClientMessage.commit(b.layout, damage: []).encoded()
            try connection.sendRaw(Array(bytes.prefix(bytes.count / 2)))
            exit(0)
        case .noFD:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            try connection.sendRaw(ClientMessage.commit(b.layout, damage: []).encoded())
        case .manyFDs:
            let b = try buffer(8, 8)
            try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: Array(repeating: b.fd.rawValue, count: 28))
            try connection.sendRaw(ClientMessage.ack(serial: c.serial).encoded(), descriptors: [b.fd.rawValue, b.fd.rawValue])
        case .huge:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(16, 16)
            var layout = b.layout
            layout.width = 16385
            try connection.send(.commit(layout, damage: []), descriptors: [b.fd.rawValue])
        case .earlyCommit:
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            try connection.commit(b)
        case .badAck:
            try connection.send(.ack(serial: c.serial &+ 999))
        case .wrongSize:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(max(1, c.pixelWidth / 2), max(1, c.pixelHeight / 3))
            let image = PixelImage(mapping: b.mapping, offset: 0, width: Int(b.layout.width), height: Int(b.layout.height), stride: Int(b.layout.stride), format: .xrgb8888)
            model.draw(image, canvas: Canvas(pixelWidth: Int(b.layout.width), pixelHeight: Int(b.layout.height), scale: 1, horizontalSizeClass: c.horizontalSizeClass))
            try connection.commit(b)
            shown = b
        case .truncateAfter:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            let image = PixelImage(mapping: b.mapping, offset: 0, width: c.pixelWidth, height: c.pixelHeight, stride: Int(b.layout.stride), format: .xrgb8888)
            canvas = Canvas(c)
            model.draw(image, canvas: canvas!)
            try connection.commit(b)
            shown = b
            // The seal makes this fail: the compositor can never be made to read past the end.
            let refused = ftruncate(b.fd.rawValue, 0) != 0
            printError(refused ? "diptych-demo: shrinking the committed buffer was refused by its seal" : "diptych-demo: the buffer shrank")
            if !refused { exit(3) }
        case .flood:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            for i in 0..<3000 {
                try connection.commit(b, damage: [Rect(x: i % 50, y: 0, width: 1, height: 1)])
                try connection.send(.syncDone(serial: UInt32(i)))
            }
            shown = b
            canvas = Canvas(c)
            try present()
        case .noRead:
            try connection.send(.ack(serial: c.serial))
            let b = try buffer(c.pixelWidth, c.pixelHeight)
            try connection.commit(b)
            shown = b
            while true { sleep(1000) }
        default:
            return false
        }
        return true
    }

    mutating func present() throws(ClientError) {
        guard let canvas else { return }
        if let bad = options.misbehave, [Misbehaviour.unsealed, .short, .strideOverflow, .garbage].contains(bad) {
            try misbehave(bad, width: canvas.pixelWidth, height: canvas.pixelHeight)
            return
        }
        let buffer = try render(canvas)
        try connection.commit(buffer)
        shown = buffer
    }

    func misbehave(_ how: Misbehaviour, width: Int, height: Int) throws(ClientError) {
        do {
            switch how {
            case .unsealed:
                let b = try ShmBuffer(width: width, height: height, seal: false)
                try connection.commit(b)
            case .short:
                let b = try ShmBuffer(width: width, height: height, fileSize: width * 4 * height / 2)
                try connection.commit(b)
            case .strideOverflow:
                let b = try ShmBuffer(width: 64, height: 64)
                var layout = b.layout
                layout.stride = 0x8000_0000
                layout.height = 16
                try connection.send(.commit(layout, damage: []), descriptors: [b.fd.rawValue])
            case .garbage:
                // A commit header whose body is four bytes of noise.
                try connection.sendRaw([12, 0, 0, 0, 1, 0, 3, 0, 0xDE, 0xAD, 0xBE, 0xEF])
            default:
                break
            }
        } catch let e as SystemError {
            throw .system(e)
        } catch let e as ClientError {
            throw e
        } catch {
            fatalError("unexpected error \(error)")
        }
    }
}

/// Writes a line to standard error.
public func printError(_ message: String) {
    Files.writeStandardError(message + "\n")
}

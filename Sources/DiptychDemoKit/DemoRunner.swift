// SPDX-License-Identifier: MIT
// The demo client process: connects, answers configures with freshly drawn buffers, and logs
// every event it receives as a JSON line.

import DiptychClient
import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychWire

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
}

/// What the demo process was asked to do.
public struct DemoOptions: Sendable {
    public var app: DemoApp
    public var eventLog: String?
    public var requiresFullScreen = false
    public var misbehave: Misbehaviour?

    public init(app: DemoApp, eventLog: String? = nil, requiresFullScreen: Bool = false, misbehave: Misbehaviour? = nil) {
        self.app = app
        self.eventLog = eventLog
        self.requiresFullScreen = requiresFullScreen
        self.misbehave = misbehave
    }
}

/// Runs a demo app until the compositor closes the connection.
public struct DemoRunner {
    let options: DemoOptions
    let connection: Connection
    /// The buffer on screen; kept until the next commit replaces it.
    var shown: ShmBuffer?

    public init(options: DemoOptions, connection: Connection) {
        self.options = options
        self.connection = connection
    }

    func log(_ event: ServerEvent) {
        guard let path = options.eventLog else { return }
        let line = JSONValue.object([("app", .string(options.app.description)), ("event", .string(event.name))] + event.jsonFields)
        do { try Files.appendLine(path, line.serialized) } catch {
            printError("diptych-demo: cannot write the event log: \(error)")
        }
    }

    /// Returns the process exit status: 0 when the compositor ended the session, 1 on a
    /// protocol error or system failure.
    public mutating func run() -> Int32 {
        do {
            try connection.send(.hello(name: options.app.description, requiresFullScreen: options.requiresFullScreen))
            while let event = try connection.nextEvent() {
                log(event)
                switch event {
                case .configure(let c):
                    try connection.send(.ack(serial: c.serial))
                    try present(width: c.pixelWidth, height: c.pixelHeight)
                case .error(let e):
                    printError("diptych-demo: the compositor reported a protocol error: \(e)")
                    return 1
                default:
                    break
                }
            }
            return 0
        } catch {
            printError("diptych-demo: \(error)")
            return 1
        }
    }

    mutating func present(width: Int, height: Int) throws(ClientError) {
        if let bad = options.misbehave {
            try misbehave(bad, width: width, height: height)
            return
        }
        let buffer: ShmBuffer
        do { buffer = try ShmBuffer(width: width, height: height) } catch { throw .system(error) }
        draw(into: buffer)
        try connection.commit(buffer)
        shown = buffer
    }

    func draw(into buffer: ShmBuffer) {
        let image = PixelImage(
            mapping: buffer.mapping, offset: 0, width: Int(buffer.layout.width), height: Int(buffer.layout.height),
            stride: Int(buffer.layout.stride), format: .xrgb8888)
        switch options.app {
        case .pattern(let color): PatternPainter.paint(image, color: color)
        case .notes: PatternPainter.paint(image, color: RGB(red: 0xFA, green: 0xF6, blue: 0xE8))
        case .markets: PatternPainter.paint(image, color: RGB(red: 0x10, green: 0x20, blue: 0x30))
        }
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

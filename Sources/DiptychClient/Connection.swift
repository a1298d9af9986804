// SPDX-License-Identifier: MIT
// The client side of the Diptych protocol: connect, hello, configure/ack, shm buffers, commit.

import DiptychCore
import DiptychLinux
import DiptychWire

/// A shared-memory buffer a client draws into: a memfd sealed against shrinking, mapped
/// writable. Owns the memfd and the mapping.
public final class ShmBuffer {
    package let fd: SharedDescriptor
    package let mapping: MemoryMapping
    /// Where the pixels are in the memfd and how they are laid out.
    public let layout: BufferLayout

    /// Calls `body` with the buffer's pixels (`layout.stride` bytes a row), to draw into them.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try mapping.withUnsafeMutableBytes(body)
    }

    /// A new buffer of `width` × `height` pixels, sealed against shrinking.
    public convenience init(width: Int, height: Int, format: FourCC = .xrgb8888) throws(SystemError) {
        try self.init(width: width, height: height, format: format, seal: true, fileSize: nil)
    }

    /// With `seal` false the memfd is left unsealed, and `fileSize` overrides its size: only
    /// for the tests of the compositor's checks, so not part of the library's API.
    package init(width: Int, height: Int, format: FourCC = .xrgb8888, seal: Bool, fileSize: Int?) throws(SystemError) {
        let stride = width * 4
        let size = fileSize ?? stride * height
        let memfd = try FileDescriptor.memfd(name: "diptych-buffer", size: max(size, 4))
        if seal { try memfd.addSeals([.shrink, .seal]) }
        mapping = try MemoryMapping(fd: memfd, length: max(size, 4), writable: true)
        layout = BufferLayout(offset: 0, width: UInt32(width), height: UInt32(height), stride: UInt32(stride), format: format)
        fd = SharedDescriptor(memfd)
    }
}

/// Why the connection ended or failed.
public enum ClientError: Error, CustomStringConvertible {
    case system(SystemError)
    case protocolViolation(ProtocolError)
    case noSocket(String)

    public var description: String {
        switch self {
        case .system(let e): "system error: \(e)"
        case .protocolViolation(let e): "protocol error from the compositor: \(e)"
        case .noSocket(let why): why
        }
    }
}

/// A connection to the compositor. Blocking; use from one thread.
public final class Connection {
    private let socket: SharedDescriptor
    private var assembler = MessageAssembler()

    /// Connects the way a launched app should: the socket inherited as `$DIPTYCH_SOCKET_FD`
    /// if set, else `$DIPTYCH_SOCKET`, else `diptych-0` in the runtime directory.
    public static func fromEnvironment() throws(ClientError) -> Connection {
        if let raw = Files.environment(RuntimeDirectory.inheritedSocketVariable), let fd = Int32(raw), fd >= 0 {
            return Connection(socket: FileDescriptor(taking: fd))
        }
        do {
            let path = try RuntimeDirectory.clientSocketPath()
            return Connection(socket: try UnixSocket.connect(path: path))
        } catch {
            throw .noSocket("cannot connect to the compositor: \(error)")
        }
    }

    /// Connects to the socket at `path`.
    public convenience init(path: String) throws(ClientError) {
        do { self.init(socket: try UnixSocket.connect(path: path)) } catch { throw .system(error) }
    }

    /// Takes ownership of a connected socket.
    package init(socket: consuming FileDescriptor) {
        self.socket = SharedDescriptor(socket)
    }

    /// Sends raw bytes and descriptors (used by `send` and by the tests' misbehaving client).
    package func sendRaw(_ bytes: [UInt8], descriptors: [Int32] = []) throws(ClientError) {
        do { try UnixSocket.sendAll(socket.rawValue, bytes, descriptors: descriptors) } catch { throw .system(error) }
    }

    /// Sends a request that carries no buffer (`commit` and `snapshot` send those).
    public func send(_ message: ClientMessage) throws(ClientError) {
        try send(message, descriptors: [])
    }

    /// Sends a request with the descriptors it carries.
    package func send(_ message: ClientMessage, descriptors: [Int32]) throws(ClientError) {
        precondition(descriptors.count == message.fdCount)
        try sendRaw(message.encoded(), descriptors: descriptors)
    }

    /// Shows `buffer` with the given damage (buffer pixels; nil means the whole buffer).
    public func commit(_ buffer: ShmBuffer, damage: [Rect]? = nil) throws(ClientError) {
        let whole = Rect(x: 0, y: 0, width: Int(buffer.layout.width), height: Int(buffer.layout.height))
        try send(.commit(buffer.layout, damage: damage ?? [whole]), descriptors: [buffer.fd.rawValue])
    }

    /// Returns an offscreen rendering for a snapshot request.
    public func snapshot(_ buffer: ShmBuffer, serial: UInt32) throws(ClientError) {
        try send(.snapshot(serial: serial, buffer.layout), descriptors: [buffer.fd.rawValue])
    }

    /// The next event, blocking; nil when the compositor closed the connection.
    public func nextEvent() throws(ClientError) -> ServerEvent? {
        while true {
            do {
                if let (opcode, body) = try assembler.next() {
                    return try ServerEvent.decode(opcode: opcode, body: body)
                }
            } catch {
                throw .protocolViolation(error)
            }
            let received: Received?
            do { received = try UnixSocket.receive(socket.rawValue) } catch { throw .system(error) }
            guard let r = received else { continue }
            for extra in r.descriptors { FileDescriptor(taking: extra).close() }
            if r.endOfStream { return nil }
            assembler.append(r.bytes)
        }
    }
}

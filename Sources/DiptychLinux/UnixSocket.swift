// SPDX-License-Identifier: MIT
// Unix stream sockets: listening, connecting, and sending or receiving bytes with descriptors.

import CLinuxShims
import Glibc

/// The credentials of the process at the other end of a Unix socket (SO_PEERCRED).
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
}

/// What one receive gave: bytes and descriptors (owned by the caller), or the end of the stream.
public struct Received {
    public var bytes: [UInt8]
    public var descriptors: [Int32]
    /// The peer sent more descriptors than fit; the extra ones were closed.
    public var descriptorsTruncated: Bool
    public var endOfStream: Bool { bytes.isEmpty && descriptors.isEmpty }
}

/// Unix-domain stream socket operations. Operations on a connected socket take its raw
/// descriptor; the caller's owner keeps it open for the call.
public enum UnixSocket {
    private static func address(_ path: String) throws(SystemError) -> (sockaddr_un, socklen_t) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { throw SystemError("socket path \(path) is too long", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return (addr, socklen_t(MemoryLayout<sockaddr_un>.size))
    }

    /// The path a Unix socket `fd` is bound at (nil: none, or not a path).
    public static func localPath(_ fd: Int32) -> String? {
        var addr = sockaddr_un()
        var len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let r = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard r == 0, addr.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: addr.sun_path) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return path.isEmpty ? nil : path
    }

    /// Creates a listening socket bound at `path` (non-blocking, close-on-exec).
    public static func listen(path: String, backlog: Int32 = 16) throws(SystemError) -> FileDescriptor {
        let fd = FileDescriptor(taking: try retrying("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) })
        var (addr, len) = try address(path)
        let r = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd.rawValue, $0, len) }
        }
        if r < 0 { throw SystemError("bind \(path)") }
        try retrying("listen \(path)") { Glibc.listen(fd.rawValue, backlog) }
        return fd
    }

    /// Connects to the socket at `path` (blocking, close-on-exec).
    public static func connect(path: String) throws(SystemError) -> FileDescriptor {
        let fd = FileDescriptor(taking: try retrying("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) })
        var (addr, len) = try address(path)
        let r = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.rawValue, $0, len) }
        }
        if r < 0 { throw SystemError("connect \(path)") }
        return fd
    }

    /// A connected pair (close-on-exec). The caller owns both descriptors and wraps each in
    /// a `FileDescriptor` at once.
    public static func pair() throws(SystemError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try retrying("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (fds[0], fds[1])
    }

    /// Accepts one connection (non-blocking, close-on-exec), or nil if none is waiting.
    public static func accept(_ listener: Int32) throws(SystemError) -> FileDescriptor? {
        while true {
            let fd = dp_accept(listener)
            if fd >= 0 { return FileDescriptor(taking: fd) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw SystemError("accept")
        }
    }

    /// The peer's credentials.
    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        var c = PeerCredentials(pid: 0, uid: 0, gid: 0)
        try retrying("getsockopt SO_PEERCRED") { dp_peer_credentials(fd, &c.pid, &c.uid, &c.gid) }
        return c
    }

    /// Sends bytes with descriptors attached (SCM_RIGHTS). Returns the bytes sent, which may be
    /// fewer than given on a non-blocking socket, or 0 when it would block.
    public static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>, descriptors: [Int32] = [], nonBlocking: Bool = false) throws(SystemError) -> Int {
        let n = bytes.withUnsafeBytes { raw in
            descriptors.withUnsafeBufferPointer { fds in
                dp_send_with_fds(fd, raw.baseAddress, raw.count, fds.baseAddress, Int32(fds.count), nonBlocking ? 1 : 0)
            }
        }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw SystemError("sendmsg")
        }
        return n
    }

    /// Sends all of `bytes` on a blocking socket, descriptors with the first chunk.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8], descriptors: [Int32] = []) throws(SystemError) {
        var sent = 0
        var fds = descriptors
        while sent < bytes.count {
            sent += try send(fd, bytes[sent...], descriptors: fds)
            fds = []
        }
    }

    /// Receives up to `capacity` bytes and up to 28 descriptors. Returns nil when a non-blocking
    /// socket has nothing; an empty result means the peer closed the stream.
    public static func receive(_ fd: Int32, capacity: Int = 65536, nonBlocking: Bool = false) throws(SystemError) -> Received? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        var fds = [Int32](repeating: -1, count: 28)
        var nfds: Int32 = 28
        var truncated: Int32 = 0
        let n = buffer.withUnsafeMutableBytes { raw in
            dp_recv_with_fds(fd, raw.baseAddress, raw.count, &fds, &nfds, &truncated, nonBlocking ? 1 : 0)
        }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            if errno == ECONNRESET { return Received(bytes: [], descriptors: [], descriptorsTruncated: false) }
            throw SystemError("recvmsg")
        }
        buffer.removeSubrange(n...)
        return Received(bytes: buffer, descriptors: Array(fds.prefix(Int(nfds))), descriptorsTruncated: truncated != 0)
    }

    /// The bytes sent on `fd` that its peer has not read yet (SIOCOUTQ); 0 when it read them
    /// all or went away, -1 when it cannot be told.
    public static func unreadBytes(_ fd: Int32) -> Int { Int(dp_socket_unread(fd)) }
}

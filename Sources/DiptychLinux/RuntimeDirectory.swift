// SPDX-License-Identifier: MIT
// Where the compositor's socket lives, and how a compositor claims a socket name.

import Glibc

/// The socket directory and socket names.
public enum RuntimeDirectory {
    /// The environment variable that names the socket explicitly.
    public static let socketVariable = "DIPTYCH_SOCKET"
    /// The environment variable that hands a launched client its connected socket's fd number.
    public static let inheritedSocketVariable = "DIPTYCH_SOCKET_FD"

    /// `$XDG_RUNTIME_DIR`, checked: a directory owned by us and closed to others' writes. When
    /// it is unset there is no shared fallback (another user could make a predictable folder in
    /// /tmp first and keep the compositor from starting): nil, and the compositor makes a
    /// private one (`privateDirectory`), as libwayland requires the variable.
    public static func directory() throws(SystemError) -> String? {
        guard let dir = Files.environment("XDG_RUNTIME_DIR"), !dir.isEmpty else { return nil }
        // Another user's directory, or one others may write to, could hold a planted socket
        // or lock: refused.
        var st = stat()
        if lstat(dir, &st) < 0 { throw SystemError("stat XDG_RUNTIME_DIR \(dir)") }
        guard st.st_mode & S_IFMT == S_IFDIR, st.st_uid == getuid() else {
            throw SystemError("XDG_RUNTIME_DIR \(dir) is not a directory owned by uid \(getuid())", errno: EPERM)
        }
        guard st.st_mode & 0o022 == 0 else {
            throw SystemError("XDG_RUNTIME_DIR \(dir) is writable by other users (mode \(String(st.st_mode & 0o777, radix: 8)))", errno: EPERM)
        }
        return dir
    }

    /// A new directory of ours alone (mode 0700, an unpredictable name under `$TMPDIR` or
    /// /tmp), for a compositor started without `XDG_RUNTIME_DIR`.
    public static func privateDirectory() throws(SystemError) -> String {
        let base = Files.environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/diptych-\(getuid())-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw SystemError("mkdtemp \(base)/diptych-\(getuid())-XXXXXX") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The socket a client connects to: `$DIPTYCH_SOCKET`, else `diptych-0` in
    /// `$XDG_RUNTIME_DIR`; without either there is none to guess.
    public static func clientSocketPath() throws(SystemError) -> String {
        if let p = Files.environment(socketVariable), !p.isEmpty { return p }
        guard let dir = try directory() else {
            throw SystemError(
                "neither DIPTYCH_SOCKET nor XDG_RUNTIME_DIR is set: set DIPTYCH_SOCKET to the socket the compositor names when it starts", errno: ENOENT)
        }
        return dir + "/diptych-0"
    }
}

/// A claimed socket name: the lock file is held (flock) for the compositor's lifetime, so a
/// second compositor never takes a live socket, and a stale socket from a crashed one is
/// replaced.
public final class SocketLock {
    public let path: String
    private let lockFD: Int32

    private init(path: String, lockFD: Int32) {
        self.path = path
        self.lockFD = lockFD
    }

    /// A private directory made for this compositor (removed with it), if it made one.
    private var ownDirectory: String?

    /// Claims `path`, or returns nil when another live compositor holds it. A file at `path`
    /// that is not a socket (a regular file, a directory, a symlink) is never replaced: refused,
    /// named.
    public static func claim(_ path: String) throws(SystemError) -> SocketLock? {
        let lockPath = path + ".lock"
        // Never through a symlink: one planted there would make us create or lock its target.
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw SystemError("open \(lockPath)") }
        if flock(fd, LOCK_EX | LOCK_NB) < 0 {
            let e = errno
            close(fd)
            if e == EWOULDBLOCK { return nil }
            throw SystemError("flock \(lockPath)", errno: e)
        }
        // We hold the lock, so a socket there was left by a compositor that died: replaced.
        // Anything else there is not ours to delete.
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                close(fd)
                throw SystemError("\(path) exists and is not a socket: not replacing it (remove it, or name another socket)", errno: EEXIST)
            }
            unlink(path)
        }
        return SocketLock(path: path, lockFD: fd)
    }

    /// Claims `$DIPTYCH_SOCKET` if set (failing if it is live), else the first free
    /// `diptych-N` (N from 0 to 31) in `$XDG_RUNTIME_DIR`, as Wayland's socket names go, else
    /// `diptych-0` in a private directory made for this compositor.
    public static func claimDefault() throws(SystemError) -> SocketLock {
        if let p = Files.environment(RuntimeDirectory.socketVariable), !p.isEmpty {
            guard let lock = try claim(p) else {
                throw SystemError("socket \(p) belongs to a running compositor", errno: EADDRINUSE)
            }
            return lock
        }
        guard let dir = try RuntimeDirectory.directory() else {
            let own = try RuntimeDirectory.privateDirectory()
            let lock: SocketLock?
            do { lock = try claim("\(own)/diptych-0") } catch {
                rmdir(own)
                throw error
            }
            guard let lock else {
                rmdir(own)
                throw SystemError("\(own)/diptych-0 is taken", errno: EADDRINUSE)
            }
            lock.ownDirectory = own
            return lock
        }
        for n in 0..<32 {
            // A name someone else holds (a live compositor, another user's lock, a planted
            // symlink, a file that is no socket) is skipped for the next one.
            do {
                if let lock = try claim("\(dir)/diptych-\(n)") { return lock }
            } catch where [ELOOP, EACCES, EPERM, EEXIST].contains(error.errno) {
                continue
            }
        }
        throw SystemError("no free socket name diptych-0 to diptych-31 in \(dir)", errno: EADDRINUSE)
    }

    deinit {
        unlink(path)
        unlink(path + ".lock")
        close(lockFD)
        if let ownDirectory { rmdir(ownDirectory) }
    }
}

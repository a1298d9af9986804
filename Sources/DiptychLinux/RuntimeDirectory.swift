// SPDX-License-Identifier: MIT
// Where the compositor's socket lives, and how a compositor claims a socket name.

import Glibc

/// The socket directory and socket names.
public enum RuntimeDirectory {
    /// The environment variable that names the socket explicitly.
    public static let socketVariable = "DIPTYCH_SOCKET"
    /// The environment variable that hands a launched client its connected socket's fd number.
    public static let inheritedSocketVariable = "DIPTYCH_SOCKET_FD"

    /// `$XDG_RUNTIME_DIR`, or `/tmp/diptych-runtime-UID` created with mode 0700. The directory
    /// must belong to us and be closed to others.
    public static func directory() throws(SystemError) -> String {
        if let dir = Files.environment("XDG_RUNTIME_DIR"), !dir.isEmpty {
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
        let dir = "/tmp/diptych-runtime-\(getuid())"
        if mkdir(dir, 0o700) < 0 && errno != EEXIST { throw SystemError("mkdir \(dir)") }
        var st = stat()
        if lstat(dir, &st) < 0 { throw SystemError("stat \(dir)") }
        guard st.st_mode & S_IFMT == S_IFDIR, st.st_uid == getuid() else {
            throw SystemError("\(dir) is not a directory owned by uid \(getuid())", errno: EPERM)
        }
        if st.st_mode & 0o077 != 0 { chmod(dir, 0o700) }
        return dir
    }

    /// The socket a client connects to: `$DIPTYCH_SOCKET`, else `diptych-0` in the directory.
    public static func clientSocketPath() throws(SystemError) -> String {
        if let p = Files.environment(socketVariable), !p.isEmpty { return p }
        return try directory() + "/diptych-0"
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

    /// Claims `path`, or returns nil when another live compositor holds it.
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
        // We hold the lock, so whatever socket file is there was left by a compositor that died.
        unlink(path)
        return SocketLock(path: path, lockFD: fd)
    }

    /// Claims `$DIPTYCH_SOCKET` if set (failing if it is live), else the first free
    /// `diptych-N` (N from 0 to 31) in the runtime directory, as Wayland's socket names go.
    public static func claimDefault() throws(SystemError) -> SocketLock {
        if let p = Files.environment(RuntimeDirectory.socketVariable), !p.isEmpty {
            guard let lock = try claim(p) else {
                throw SystemError("socket \(p) belongs to a running compositor", errno: EADDRINUSE)
            }
            return lock
        }
        let dir = try RuntimeDirectory.directory()
        for n in 0..<32 {
            // A name someone else holds (a live compositor, another user's lock, a planted
            // symlink) is skipped for the next one.
            do {
                if let lock = try claim("\(dir)/diptych-\(n)") { return lock }
            } catch where [ELOOP, EACCES, EPERM].contains(error.errno) {
                continue
            }
        }
        throw SystemError("no free socket name diptych-0 to diptych-31 in \(dir)", errno: EADDRINUSE)
    }

    deinit {
        unlink(path)
        unlink(path + ".lock")
        close(lockFD)
    }
}

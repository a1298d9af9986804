// SPDX-License-Identifier: MIT
// Owners of file descriptors.

import CLinuxShims
import Glibc

/// Owns one file descriptor and closes it exactly once.
///
/// Not copyable: ownership moves with the value. `take()` hands the raw fd out (the caller then
/// owns it); `deinit` closes it otherwise.
public struct FileDescriptor: ~Copyable {
    /// The raw descriptor, valid while this value lives.
    public let rawValue: Int32
    /// Another process gave it (a client's buffer): closed on the closer thread, since its
    /// last close may block (a FUSE file's FLUSH, a lingering socket).
    public let isForeign: Bool

    /// Takes ownership of `rawValue`.
    public init(taking rawValue: Int32) {
        precondition(rawValue >= 0, "not a file descriptor")
        self.rawValue = rawValue
        isForeign = false
    }

    /// Takes ownership of `rawValue`, which another process sent: it is closed off this thread.
    public init(foreign rawValue: Int32) {
        precondition(rawValue >= 0, "not a file descriptor")
        self.rawValue = rawValue
        isForeign = true
    }

    /// Closes a descriptor another process sent, off this thread (`dp_close_later`).
    public static func closeForeign(_ fd: Int32) { dp_close_later(fd) }

    /// Foreign descriptors given to the closer thread and not closed yet.
    public static var foreignClosesPending: Int { Int(dp_close_later_pending()) }

    /// Gives up ownership without closing.
    public consuming func take() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    /// Closes now.
    public consuming func close() {
        if isForeign { dp_close_later(rawValue) } else { _ = Glibc.close(rawValue) }
        discard self
    }

    deinit {
        if isForeign { dp_close_later(rawValue) } else { _ = Glibc.close(rawValue) }
    }

    /// What kind of file it is, when it is not shared memory the compositor may map: nil for a
    /// regular file on tmpfs (memfds, `/dev/shm`) or hugetlbfs; else a description naming the
    /// file type or file system ("a pipe", "a file on a FUSE file system", …). A file elsewhere
    /// can change size or block a reader (FUSE, NFS, a disk file truncated by its owner).
    public func notSharedMemory() -> String? {
        if dp_is_shared_memory(rawValue) == 1 { return nil }
        var st = stat()
        if fstat(rawValue, &st) < 0 { return "a descriptor that cannot be inspected (errno \(errno))" }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a directory"
        default: return "not a regular file"
        }
        var type: UInt64 = 0
        if dp_fs_type(rawValue, &type) < 0 { return "a file whose file system cannot be inspected (errno \(errno))" }
        switch type {
        case 0x6573_5546: return "a file on a FUSE file system"
        case 0x9FA0: return "a file in /proc"
        case 0x6969: return "a file on NFS"
        case 0xEF53: return "a file on an ext2/3/4 file system"
        case 0x794C_7630: return "a file on an overlay file system"
        default: return "a file on a file system of type 0x\(String(type, radix: 16)) (not tmpfs or hugetlbfs)"
        }
    }

    /// fstat's size in bytes.
    public func size() throws(SystemError) -> Int {
        var st = stat()
        try retrying("fstat") { fstat(rawValue, &st) }
        return Int(st.st_size)
    }

    /// Sets or clears O_NONBLOCK.
    public func setNonBlocking(_ on: Bool = true) throws(SystemError) {
        let flags = try retrying("fcntl F_GETFL") { fcntl(rawValue, F_GETFL) }
        try retrying("fcntl F_SETFL") { fcntl(rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) }
    }

}

/// A reference-counted owner of a descriptor, for descriptors that several objects share.
public final class SharedDescriptor {
    /// The raw descriptor, valid while this object lives.
    public let rawValue: Int32
    public init(_ fd: consuming FileDescriptor) {
        // (A descriptor another process sent is closed off the thread: not shared here.)
        precondition(!fd.isForeign, "a foreign descriptor is not shared")
        rawValue = fd.take()
    }
    deinit { _ = Glibc.close(rawValue) }
}

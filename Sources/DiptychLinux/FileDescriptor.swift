// SPDX-License-Identifier: MIT
// Owners of file descriptors.

import Glibc

/// Owns one file descriptor and closes it exactly once.
///
/// Not copyable: ownership moves with the value. `take()` hands the raw fd out (the caller then
/// owns it); `deinit` closes it otherwise.
public struct FileDescriptor: ~Copyable {
    /// The raw descriptor, valid while this value lives.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(taking rawValue: Int32) {
        precondition(rawValue >= 0, "not a file descriptor")
        self.rawValue = rawValue
    }

    /// Gives up ownership without closing.
    public consuming func take() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    /// Closes now.
    public consuming func close() {
        _ = Glibc.close(rawValue)
        discard self
    }

    deinit { _ = Glibc.close(rawValue) }

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
    public init(_ fd: consuming FileDescriptor) { rawValue = fd.take() }
    deinit { _ = Glibc.close(rawValue) }
}

// SPDX-License-Identifier: MIT
// memfd shared memory: creation, sealing, and read or write mappings.

import CLinuxShims
import Glibc

/// Seals on a memfd.
public struct FileSeals: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The corresponding C constant is `F_SEAL_SHRINK`.
    public static let shrink = FileSeals(rawValue: dp_seal_shrink())
    /// The corresponding C constant is `F_SEAL_GROW`.
    public static let grow = FileSeals(rawValue: dp_seal_grow())
    /// The corresponding C constant is `F_SEAL_SEAL`.
    public static let seal = FileSeals(rawValue: dp_seal_seal())
}

extension FileDescriptor {
    /// A new memfd of `size` bytes, close-on-exec, that allows sealing.
    public static func memfd(name: String, size: Int) throws(SystemError) -> FileDescriptor {
        let fd = FileDescriptor(taking: try retrying("memfd_create") { dp_memfd_create(name) })
        try retrying("ftruncate memfd to \(size) bytes") { ftruncate(fd.rawValue, off_t(size)) }
        return fd
    }

    /// Adds seals (`F_ADD_SEALS`).
    public func addSeals(_ seals: FileSeals) throws(SystemError) {
        try retrying("fcntl F_ADD_SEALS") { dp_add_seals(rawValue, seals.rawValue) }
    }

    /// The seals present (`F_GET_SEALS`); empty for a file that cannot be sealed.
    public func seals() -> FileSeals {
        let r = dp_get_seals(rawValue)
        return r < 0 ? [] : FileSeals(rawValue: UInt32(r))
    }
}

/// A shared mapping of a file, unmapped when the last reference goes.
///
/// A `final class` because the renderer's image over the pixels must keep them alive.
public final class MemoryMapping {
    /// The mapped length in bytes.
    public let length: Int
    let base: UnsafeMutableRawPointer
    public let writable: Bool

    /// Maps `length` bytes of `fd` from `offset` (a multiple of the page size) shared;
    /// read-only unless `writable`.
    public init(fd: borrowing FileDescriptor, offset: Int = 0, length: Int, writable: Bool) throws(SystemError) {
        precondition(length > 0 && offset >= 0 && offset % Self.pageSize == 0)
        let prot = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let p = mmap(nil, length, prot, MAP_SHARED, fd.rawValue, off_t(offset)), p != MAP_FAILED else {
            throw SystemError("mmap \(length) bytes at offset \(offset)")
        }
        base = p
        self.length = length
        self.writable = writable
    }

    deinit { munmap(base, length) }

    /// Lets go of this process's hold on the mapped pages (`MADV_DONTNEED`): a shared mapping's
    /// contents stay in the file, and are read back in when next touched. The process's
    /// resident memory drops by what it had touched.
    public func dropResidentPages() { _ = madvise(base, length, MADV_DONTNEED) }

    /// The system's page size in bytes.
    public static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Scoped read access to the bytes.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: length))
    }

    /// Scoped write access to the bytes; the mapping must be writable.
    public func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        precondition(writable, "read-only mapping")
        return try body(UnsafeMutableRawBufferPointer(start: base, count: length))
    }
}

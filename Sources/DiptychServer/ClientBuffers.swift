// SPDX-License-Identifier: MIT
// Buffer objects (protocol version 2): each app's registered memfds, validated and mapped once
// when created and unmapped when destroyed (or, if on screen then, when replaced), with the
// bounds that keep one app from holding unbounded address space.

import DiptychCore
import DiptychImage
import DiptychLinux
import DiptychWire

/// A buffer an app registered: its id and its mapped pixels. A class: the live surface and
/// snapshots refer to it, and it stays mapped while any of them does.
final class ClientBuffer {
    let id: UInt32
    /// The pixels as the app registered them (ARGB for an icon).
    let pixels: PixelImage
    /// The same pixels as a pane, a Picture in Picture window or a screen shows them: opaque
    /// (an ARGB buffer's alpha is not read; what it leaves transparent shows as black, never
    /// what lies under the pane). Panes are opaque, so an app cannot lay an invisible overlay
    /// over another.
    let opaquePixels: PixelImage
    /// The bytes mapped for it: offset + stride × height, widened to whole pages.
    let mappedBytes: Int
    /// The mapping itself (nil for a buffer made in memory, in tests).
    let mapping: MemoryMapping?
    /// How many places read it now (the live surface, snapshots shown in a drag).
    var uses = 0 {
        didSet {
            if uses == 0 { idleSince = MonotonicClock.milliseconds } else { idleSince = nil }
        }
    }
    /// Since when no place has read it (monotonic ms), while its pages are still held: a buffer
    /// of a size the app no longer draws at (before a rotation, a drag's snapshot sizes) lets
    /// its pages go after `BufferTable.idleHold`, so the compositor's memory comes back after
    /// each transient. The app's own memory is the app's.
    private(set) var idleSince: UInt64? = MonotonicClock.milliseconds
    /// Destroyed by the app while in use: let go when its last use ends, never released.
    var destroyed = false

    init(id: UInt32, pixels: PixelImage, opaquePixels: PixelImage? = nil, mappedBytes: Int, mapping: MemoryMapping? = nil) {
        self.id = id
        self.pixels = pixels
        self.opaquePixels = opaquePixels ?? pixels
        self.mappedBytes = mappedBytes
        self.mapping = mapping
    }

    /// Lets the pages go if the buffer has been idle since before `cutoff` (monotonic ms).
    func dropPagesIfIdle(since cutoff: UInt64) {
        guard let since = idleSince, since <= cutoff else { return }
        mapping?.dropResidentPages()
        idleSince = nil
    }

    /// Validates `layout` against the memfd and maps only the pages the pixels span, read-only.
    ///
    /// The seals are read before the size: once `F_SEAL_SHRINK` is on, the size read next can
    /// never go down, so the pixels the mapping spans stay backed and reading them cannot fault
    /// (read the other way round, an app could shrink and seal the file between the two reads
    /// and take the compositor down with SIGBUS). `betweenChecks` runs between the two (a seam
    /// for the test that races them; nothing in the compositor uses it).
    ///
    /// Only shared memory is mapped (a memfd, a file on tmpfs or hugetlbfs): a file on FUSE,
    /// NFS or a disk, a pipe or a device is refused, named, before anything else is read of it
    /// (reading a FUSE file's pages would wait on its server).
    static func map(id: UInt32, layout: BufferLayout, fd: borrowing FileDescriptor, betweenChecks: () -> Void = {}) throws(ProtocolError) -> ClientBuffer {
        if let what = fd.notSharedMemory() {
            throw ProtocolError(.unsealedBuffer, "buffer \(id)'s descriptor is \(what), not shared memory (a sealed memfd)")
        }
        let sealed = fd.seals().contains(.shrink)
        betweenChecks()
        let size: Int
        do { size = try fd.size() } catch { throw ProtocolError(.malformedMessage, "the buffer descriptor cannot be inspected: \(error)") }
        try layout.validate(fileSize: size, sealedAgainstShrinking: sealed)
        let page = MemoryMapping.pageSize
        let start = Int(layout.offset) / page * page
        let end = (layout.requiredBytes + page - 1) / page * page
        // The last page may reach past the end of the file (it is not read past the pixels).
        let mapping: MemoryMapping
        do { mapping = try MemoryMapping(fd: fd, offset: start, length: end - start, writable: false) } catch {
            throw ProtocolError(.malformedMessage, "the buffer cannot be mapped: \(error)")
        }
        func image(_ format: PixelFormat) -> PixelImage {
            PixelImage(mapping: mapping, offset: Int(layout.offset) - start, width: Int(layout.width), height: Int(layout.height), stride: Int(layout.stride), format: format)
        }
        let argb = layout.format == .argb8888
        return ClientBuffer(id: id, pixels: image(argb ? .argb8888 : .xrgb8888), opaquePixels: argb ? image(.xrgb8888) : nil, mappedBytes: end - start, mapping: mapping)
    }
}

/// One app's buffers by id, with its limits.
struct BufferTable {
    private(set) var buffers: [UInt32: ClientBuffer] = [:]
    /// Ids destroyed lately (the newest `destroyedMemory`), to name the rule a later use breaks.
    private var destroyedIDs: [UInt32] = []
    /// Bytes mapped for this app: its buffers, and destroyed ones still on screen.
    private(set) var mappedBytes = 0

    /// The most buffers one app may hold (a pool of three at a few sizes needs a dozen).
    static let maxBuffers = 64
    /// The most bytes one app may have mapped: 1 GiB, some forty full screens of ipad-pro.
    static let maxMappedBytes = 1 << 30
    static let destroyedMemory = 64

    var count: Int { buffers.count }

    /// How long a buffer no place reads keeps its pages in the compositor (ms).
    static let idleHold: UInt64 = 2000

    /// Since when the app has been in the background (monotonic ms), while its buffers' pages
    /// are still held: they go after `idleHold` too (its last frame, kept to show it again, is
    /// read back in when it is).
    private var backgroundSince: UInt64?

    /// When the next idle buffer's pages go (monotonic ms), if one holds any.
    var nextPageDrop: UInt64? {
        (buffers.values.compactMap(\.idleSince) + [backgroundSince].compactMap { $0 }).min().map { $0 + Self.idleHold }
    }

    /// Lets the pages of buffers idle for `idleHold` go (all of them, the app in the background
    /// that long).
    mutating func dropIdlePages(now: UInt64) {
        guard now >= Self.idleHold else { return }
        let cutoff = now - Self.idleHold
        if let since = backgroundSince, since <= cutoff {
            for b in buffers.values { b.mapping?.dropResidentPages() }
            backgroundSince = nil
        }
        for b in buffers.values { b.dropPagesIfIdle(since: cutoff) }
    }

    /// The app went into the background (`true`, at `now`) or came back.
    mutating func background(_ entered: Bool, now: UInt64) { backgroundSince = entered ? now : nil }

    /// Registers buffer `id`: the id and the count are checked before the memfd is mapped
    /// (by `map`, which validates it), the mapped bytes after.
    mutating func create(_ id: UInt32, map: () throws(ProtocolError) -> ClientBuffer) throws(ProtocolError) {
        guard buffers[id] == nil else { throw ProtocolError(.bufferExists, "createBuffer with id \(id), which this app already uses") }
        guard buffers.count < Self.maxBuffers else {
            throw ProtocolError(.tooManyBuffers, "more than \(Self.maxBuffers) buffers (destroy the ones no longer needed)")
        }
        let buffer = try map()
        guard mappedBytes + buffer.mappedBytes <= Self.maxMappedBytes else {
            throw ProtocolError(
                .tooManyBuffers,
                "buffer \(id) would bring this app's mapped buffers to \(mappedBytes + buffer.mappedBytes) bytes, over the limit of \(Self.maxMappedBytes)")
        }
        buffers[id] = buffer
        destroyedIDs.removeAll { $0 == id }
        mappedBytes += buffer.mappedBytes
    }

    /// The buffer `id` names, for `use` (a commit or a snapshot).
    func buffer(_ id: UInt32, for use: String) throws(ProtocolError) -> ClientBuffer {
        if let b = buffers[id] { return b }
        if destroyedIDs.contains(id) {
            throw ProtocolError(.destroyedBuffer, "\(use) of buffer \(id), which this app destroyed")
        }
        throw ProtocolError(.unknownBuffer, "\(use) of buffer \(id), which is not one of this app's buffers (never created by it)")
    }

    /// Forgets `id`; returns the buffer (still mapped while in use).
    mutating func destroy(_ id: UInt32) throws(ProtocolError) -> ClientBuffer {
        let b = try buffer(id, for: "destroyBuffer")
        buffers[id] = nil
        destroyedIDs.push(id, keeping: Self.destroyedMemory)
        b.destroyed = true
        if b.uses == 0 { mappedBytes -= b.mappedBytes }
        return b
    }

    /// A destroyed buffer's last use ended: its mapping goes with the last reference.
    mutating func letGo(_ b: ClientBuffer) {
        precondition(b.destroyed && b.uses == 0)
        mappedBytes -= b.mappedBytes
    }
}

// SPDX-License-Identifier: MIT
// Framing on the way in: whole messages taken out of a byte stream, one version a connection.

/// Reassembles framed messages from a byte stream: feed it what the socket gave, then take
/// whole messages out. Bounded: it never holds more than one maximum-size message plus a read.
public struct MessageAssembler: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// The versions a first message may be framed with; the first one read pins the rest.
    private var versions: ClosedRange<UInt16>

    /// Reads messages framed with one version of `versions` (the compositor: every version it
    /// serves; an app: its own).
    public init(versions: ClosedRange<UInt16> = Wire.version...Wire.version) {
        self.versions = versions
    }

    /// The version the peer speaks, once its first message was read whole.
    public private(set) var version: UInt16?

    /// Bytes received but not yet taken as messages.
    public var pendingBytes: Int { buffer.count - start }

    /// The protocol version the peer framed its messages with, once a header was read (an
    /// unsupported one included, so the refusal can be framed in it).
    public private(set) var peerVersion: UInt16?

    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether `next()` has something to give without more bytes: a whole message, or a
    /// header it will refuse.
    public var hasWholeMessage: Bool {
        let available = buffer[start...]
        do {
            guard let h = try Wire.header(available, versions: versions) else { return false }
            return available.count >= h.length
        } catch {
            return true
        }
    }

    /// The next whole message as (opcode, body), or nil if more bytes are needed.
    ///
    /// - Throws: a `ProtocolError` from the header checks; the stream cannot recover after that.
    public mutating func next() throws(ProtocolError) -> (opcode: UInt16, body: ArraySlice<UInt8>)? {
        let available = buffer[start...]
        if available.count >= 6 { peerVersion = UInt16(available[start + 4]) | UInt16(available[start + 5]) << 8 }
        guard let h = try Wire.header(available, versions: versions) else { return nil }
        guard available.count >= h.length else { return nil }
        // One connection, one version.
        if version == nil {
            version = h.version
            versions = h.version...h.version
        }
        let body = buffer[(start + Wire.headerSize)..<(start + h.length)]
        start += h.length
        if start > 65536 {
            buffer.removeFirst(start)
            start = 0
            return (h.opcode, ArraySlice(Array(body)))
        }
        return (h.opcode, body)
    }
}

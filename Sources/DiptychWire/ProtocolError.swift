// SPDX-License-Identifier: MIT
// Protocol errors: what a client did wrong, named so that a log or a test can tell them apart.

/// A protocol violation by a client (or, on the client side, by the compositor). The
/// compositor answers one with an `error` event naming the code and then disconnects that client.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of violation; its raw value is the name on the wire and in logs.
    public enum Code: UInt16, Sendable, CaseIterable {
        case malformedMessage = 1
        case unsupportedVersion = 2
        case messageTooLong = 3
        case unknownOpcode = 4
        case missingFD = 5
        case unsealedBuffer = 6
        case bufferTooSmall = 7
        case sizeOverflow = 8
        case badStride = 9
        case badFormat = 10
        case badDimensions = 11
        case badState = 12
        case tooManyFDs = 13
        case unknownSerial = 14
        /// A buffer id the app never created (or that another app's).
        case unknownBuffer = 15
        /// A commit or snapshot of a buffer the app destroyed.
        case destroyedBuffer = 16
        /// `createBuffer` with an id the app already uses.
        case bufferExists = 17
        /// More buffers, or more mapped bytes, than one app may hold.
        case tooManyBuffers = 18
        /// Reserved: not sent by this compositor (version 3 and before sent it for a request
        /// only the primary may make; version 4 on answers with the event `refused`,
        /// `not-primary`). Kept so the code is never reused.
        case notPrimary = 19
        /// Reserved: not sent by this compositor (version 3 and before sent it for a commit to
        /// a screen that is not connected; version 4 on answers with the event `refused`,
        /// `not-connected`). Kept so the code is never reused.
        case screenNotConnected = 20

        /// The name as it appears in error events, logs and event logs.
        public var name: String {
            switch self {
            case .malformedMessage: "malformed-message"
            case .unsupportedVersion: "unsupported-version"
            case .messageTooLong: "message-too-long"
            case .unknownOpcode: "unknown-opcode"
            case .missingFD: "missing-fd"
            case .unsealedBuffer: "unsealed-buffer"
            case .bufferTooSmall: "buffer-too-small"
            case .sizeOverflow: "size-overflow"
            case .badStride: "bad-stride"
            case .badFormat: "bad-format"
            case .badDimensions: "bad-dimensions"
            case .badState: "bad-state"
            case .tooManyFDs: "too-many-fds"
            case .unknownSerial: "unknown-serial"
            case .unknownBuffer: "unknown-buffer"
            case .destroyedBuffer: "destroyed-buffer"
            case .bufferExists: "buffer-exists"
            case .tooManyBuffers: "too-many-buffers"
            case .notPrimary: "not-primary"
            case .screenNotConnected: "screen-not-connected"
            }
        }
    }

    public var code: Code
    /// A human-readable reason with the offending values.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name): \(message)" }
}

// SPDX-License-Identifier: MIT
// Why a connection ended or a request failed.

import DiptychLinux
import DiptychWire

/// Why the connection ended or failed.
public enum ClientError: Error, CustomStringConvertible {
    case system(SystemError)
    case protocolViolation(ProtocolError)
    case noSocket(String)
    /// The compositor closed the connection while the app waited for it.
    case closed
    /// The compositor refused a request with this error and closed the connection (found when
    /// a send failed because of it).
    case refused(ProtocolError)
    /// The app asked for something the protocol does not allow, caught before it was sent
    /// (an ack of a serial no configure carried, a second hello): what, in words.
    case misuse(String)

    public var description: String {
        switch self {
        case .system(let e): "system error: \(e)"
        case .protocolViolation(let e): "protocol error from the compositor: \(e)"
        case .noSocket(let why): why
        case .closed: "the compositor closed the connection"
        case .refused(let e): "the compositor reported a protocol error: \(e)"
        case .misuse(let why): "not sent: \(why)"
        }
    }
}

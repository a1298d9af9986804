// SPDX-License-Identifier: MIT
// What each descriptor in the compositor's epoll set is, as a typed token.

/// The source of an event in the loop. Encoded in epoll's 64-bit user data as a kind in the
/// top byte and a value below it.
enum LoopToken: Hashable, CustomStringConvertible {
    /// The listening socket.
    case listener
    /// One of the output backend's descriptors (page flips, hotplug).
    case output(Int32)
    /// A client connection.
    case client(ClientID)
    /// An input source, by its index.
    case input(Int)
    /// A descriptor watched for the caller (signals), by its watch number.
    case watch(UInt64)
    /// The repaint timer: a wanted frame's deadline came.
    case repaintTimer

    private static let valueMask: UInt64 = (1 << 56) - 1

    var rawValue: UInt64 {
        switch self {
        case .listener: 1 << 56
        case .output(let fd): 2 << 56 | UInt64(UInt32(bitPattern: fd))
        case .client(let id): 3 << 56 | (id.rawValue & Self.valueMask)
        case .input(let i): 4 << 56 | UInt64(i)
        case .watch(let n): 5 << 56 | (n & Self.valueMask)
        case .repaintTimer: 6 << 56
        }
    }

    init?(rawValue: UInt64) {
        let value = rawValue & Self.valueMask
        switch rawValue >> 56 {
        case 1: self = .listener
        case 2: self = .output(Int32(bitPattern: UInt32(truncatingIfNeeded: value)))
        case 3: self = .client(ClientID(rawValue: value))
        case 4: self = .input(Int(value))
        case 5: self = .watch(value)
        case 6: self = .repaintTimer
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .listener: "listener"
        case .output(let fd): "output fd \(fd)"
        case .client(let id): "\(id)"
        case .input(let i): "input \(i)"
        case .watch(let n): "watch \(n)"
        case .repaintTimer: "repaint timer"
        }
    }
}

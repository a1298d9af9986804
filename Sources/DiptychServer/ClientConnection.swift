// SPDX-License-Identifier: MIT
// One connected client: its socket, incoming message assembly, queued descriptors, outgoing
// bytes, and its protocol state (hello, configure and ack, the committed surface).

import DiptychCore
import DiptychLinux
import DiptychRender
import DiptychWire
import Glibc

/// Identifies a client for its lifetime (also its epoll token).
public struct ClientID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public var description: String { "client-\(rawValue)" }
}

/// A committed buffer as the compositor holds it.
struct CommittedSurface {
    var image: PixelImage
    /// The configure serial the client had acked when it committed.
    var serial: UInt32
    var damage: [Rect]
}

/// A connected client. Confined to the compositor's thread.
final class ClientConnection {
    let id: ClientID
    let socket: SharedDescriptor
    let credentials: PeerCredentials?
    var assembler = MessageAssembler()
    /// Descriptors received and not yet claimed by a message; owned here.
    var queuedDescriptors: [Int32] = []
    var outgoing: [UInt8] = []
    var wantsWritable = false

    /// The app's name from hello (nil before hello).
    var name: String?
    var requiresFullScreen = false
    /// The role asked for at launch (apps that connect by themselves take the first free one).
    let launchRole: Role?
    /// Whether the shell holds this app (after hello, once admitted).
    var admitted = false
    /// Snapshot requests sent and not answered, by serial.
    var snapshotRequests: [UInt32: Pane] = [:]
    /// Snapshots received during the current drag.
    var snapshots: [PixelImage] = []
    /// The last `sync` serial answered.
    var syncAnswered: UInt32 = 0
    /// When the last sync was answered (monotonic ns).
    var syncAnsweredAt: UInt64 = 0
    /// Missed a round trip: no longer waited for (a scenario then costs one timeout, not one
    /// per frame).
    var unresponsive = false
    /// A label for messages: the launch name or the hello name.
    var label: String
    /// The last configure sent, and every serial sent but not yet acked.
    var configure: Configure?
    var unackedSerials: [UInt32] = []
    var ackedSerial: UInt32?
    var surface: CommittedSurface?
    var frameDonePending = false
    var commits = 0

    /// The most bytes queued for a client that does not read before it is dropped.
    static let outgoingLimit = 1 << 20

    init(id: ClientID, socket: consuming FileDescriptor, role: Role?, label: String) {
        self.id = id
        credentials = try? UnixSocket.peerCredentials(socket.rawValue)
        self.socket = SharedDescriptor(socket)
        launchRole = role
        self.label = label
    }

    deinit {
        for fd in queuedDescriptors { close(fd) }
    }

    /// Whether the client has committed a buffer after acking its latest configure.
    var app: AppID { AppID(id.rawValue) }

    var hasCommittedForConfigure: Bool {
        guard let c = configure, let s = surface else { return false }
        return s.serial == c.serial
    }

    /// Takes the oldest queued descriptor, now owned by the caller.
    func takeDescriptor() throws(ProtocolError) -> FileDescriptor {
        guard !queuedDescriptors.isEmpty else {
            throw ProtocolError(.missingFD, "the message needs a file descriptor and none was sent with it")
        }
        return FileDescriptor(taking: queuedDescriptors.removeFirst())
    }
}

// SPDX-License-Identifier: MIT
// The values a session keeps of what an app showed: a buffer's content as a scene shows it, the
// surface committed in a slot (the pane, the second screen) and its frame owed, how a session
// ended, and where its round trips stand.

import DiptychCore
import DiptychImage
import DiptychWire

/// A buffer's content as a scene shows it: the buffer, and an identity for this commit (a
/// buffer committed again is new content for the damage tracker).
struct HeldImage {
    var ref: ImageRef
    var buffer: ClientBuffer
    /// As shown: opaque (see `ClientBuffer.opaquePixels`).
    var pixels: PixelImage { buffer.opaquePixels }
}

/// A committed buffer as the compositor holds it.
struct CommittedSurface {
    var image: HeldImage
    /// The configure serial the client had acked when it committed.
    var serial: UInt32
    var damage: [Rect]
}

/// One surface of an app (its pane's, its Picture in Picture window's, the second screen's):
/// the buffer it shows, the commit stamp of its last commit, and whether the app waits for a
/// frame that shows it. The session changes it only through these calls.
struct SurfaceSlot {
    private(set) var committed: CommittedSurface?
    /// The app waits for a frame showing its last commit.
    private(set) var frameDonePending = false
    /// The compositor's commit count at the last commit (`ClientRegistry.stampCommit`).
    private(set) var stamp: UInt64 = 0

    /// Shows `new`, committed at `stamp`; returns the surface it replaces.
    mutating func commit(_ new: CommittedSurface, stamp: UInt64) -> CommittedSurface? {
        defer { committed = new }
        frameDonePending = true
        self.stamp = stamp
        return committed
    }

    /// Shows nothing any more; returns the surface it showed.
    mutating func clear() -> CommittedSurface? {
        defer { committed = nil }
        frameDonePending = false
        return committed
    }

    /// A frame laid out at commit stamp `laidOut` was shown: whether the app waited for it
    /// (it then hears `frameDone`, once); a commit that came after the layout waits on.
    mutating func shown(laidOut: UInt64) -> Bool {
        guard frameDonePending, stamp <= laidOut else { return false }
        frameDonePending = false
        return true
    }
}

/// Why a session ended.
enum SessionEnd: CustomStringConvertible {
    /// The client broke the protocol (it was told so).
    case violation(ProtocolError)
    /// The connection went away, or the compositor dropped it.
    case closed(String)

    var description: String {
        switch self {
        case .violation(let e): "protocol error \(e)"
        case .closed(let why): why
        }
    }
}

/// An app's round trips: the last `sync` serial it answered, and when (monotonic ns); one that
/// missed a round trip is no longer waited for (a scenario then costs one timeout, not one per
/// frame).
struct RoundTripState {
    var answered: UInt32 = 0
    var answeredAt: UInt64 = 0
    var unresponsive = false
}

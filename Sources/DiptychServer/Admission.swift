// SPDX-License-Identifier: MIT
// Who gets in, and when: the connections that have not said hello yet and their deadlines,
// each user's budgets for connecting and for setting icons, whether apps join the shell as
// soon as they say hello, and the configures held back for a newcomer that has not drawn.

import DiptychCore

/// The compositor's admission of apps. A class: the compositor holds it and its parts change
/// through it.
final class Admission: Timed {
    /// The connections waiting to say hello, and when each must have.
    var helloGate = HelloGate(limit: Compositor.helloWaitLimit, timeout: Compositor.helloTimeout)
    /// How often each user's processes may connect.
    var connectBudget: ConnectBudget
    /// How often each user's apps together may set an icon (a new session has no fresh
    /// allowance: connecting, setting an icon and leaving over and over is bounded too).
    var iconBudget = ConnectBudget(burst: 4, perSecond: 1)
    /// Icons scaled so far (each costs the loop a downscale).
    var iconsTaken = 0
    /// Admit apps to the shell as soon as they say hello. When false, they wait for
    /// `admitWaitingApps()`, so a start-up does not depend on which app spoke first.
    var atHello = true
    /// Whether configures are held back for a newcomer (sent when it draws, leaves or its
    /// `newcomerWait` runs out).
    var deferredConfigures = false

    init(connectBudget: ConnectBudget) { self.connectBudget = connectBudget }

    /// The earliest hello deadline of the connections waiting.
    var nextDeadline: UInt64? { helloGate.nextDeadline }
}

// SPDX-License-Identifier: MIT
// What the app in each role is now: the queries that scenarios, the CLI and the tests ask of a
// running compositor.

import DiptychCore

extension Compositor {
    /// Whether the app in `role` has committed a buffer for its latest configure.
    public func hasCommittedForConfigure(_ role: Role) -> Bool { session(role)?.hasCommittedForConfigure ?? false }

    /// How many buffers the app in `role` has committed.
    public func commits(_ role: Role) -> Int { session(role)?.commits ?? 0 }

    /// How many buffer objects the app in `role` has registered (destroyed ones not counted),
    /// and the bytes the compositor has mapped for it (destroyed ones still on screen counted).
    public func buffers(_ role: Role) -> (count: Int, mappedBytes: Int) {
        session(role).map { ($0.buffers.count, $0.buffers.mappedBytes) } ?? (0, 0)
    }

    /// Whether an app holds `role`.
    public func isConnected(_ role: Role) -> Bool { session(role) != nil }

    /// The label of the app in `role` (or launched for it).
    public func label(_ role: Role) -> String? { session(role)?.label ?? launcher.app(role)?.label }

    /// Whether every launched app has said hello (or is gone).
    public var launchedAppsHaveSpoken: Bool {
        clients.all.allSatisfy { $0.launchRole == nil || $0.name != nil }
    }

    /// The app holding `role`, if one does.
    public func client(_ role: Role) -> ClientID? { session(role)?.id }
}

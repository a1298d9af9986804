// SPDX-License-Identifier: MIT
// App lifecycle notifications and input phases, shared by the shell, the wire and the apps.

/// The lifecycle notifications of SPEC §7, in iOS's names.
public enum LifecycleEvent: UInt8, Sendable, CaseIterable {
    case willResignActive = 0
    case didBecomeActive = 1
    case didEnterBackground = 2
    case willEnterForeground = 3

    public var name: String {
        switch self {
        case .willResignActive: "willResignActive"
        case .didBecomeActive: "didBecomeActive"
        case .didEnterBackground: "didEnterBackground"
        case .willEnterForeground: "willEnterForeground"
        }
    }
}

/// A touch phase.
public enum TouchPhase: UInt8, Sendable, CaseIterable {
    case down = 0, motion, up, cancel
    public var name: String { ["down", "motion", "up", "cancel"][Int(rawValue)] }
}

/// A pen phase.
public enum PenPhase: UInt8, Sendable, CaseIterable {
    case proximityIn = 0, down, motion, up, proximityOut
    public var name: String { ["proximityIn", "down", "motion", "up", "proximityOut"][Int(rawValue)] }
}


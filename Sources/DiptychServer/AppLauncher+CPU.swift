// SPDX-License-Identifier: MIT
// The CPU follows the user: of the launched apps, the one whose pane last received touch, pen or
// keys (and one whose Picture in Picture plays while its app is off screen) comes first. Under a
// delegated cgroup v2 subtree with the cpu controller, by each app cgroup's `cpu.weight` (the
// compositor's own leaf above both); otherwise by nice values on each app's whole process tree
// (WebKit's processes with their client), where this process may raise an app's priority back
// (the unit's `LimitNICE=`, or CAP_SYS_NICE); otherwise not at all, and `status` says why.
// Favour goes by role, so an app relaunched or replaced in the pane the user is using keeps it.

import DiptychCore
import DiptychLinux

/// How the launched apps share the CPU.
struct CPUShare: Timed {
    enum Scheme: String {
        /// Each app's cgroup weighed (`cpu.weight`).
        case weight = "cpu.weight"
        /// Each app's processes reniced.
        case nice
        /// Left as launched.
        case none
    }

    private(set) var scheme = Scheme.none
    /// Why the scheme is the one in force (said by `status` and once in the log).
    private(set) var why = "not a live kiosk"
    /// The roles whose apps come first now (none: every app does).
    private(set) var favoured: Set<Role> = []
    /// A change asked for and not yet applied (see `settleMilliseconds`).
    private var wanted: Set<Role>?
    private var appliedAt: UInt64 = 0

    /// The weight of an app that comes first, and of one that does not (against the compositor's
    /// `DelegatedCgroup.compositorWeight`): the ratios of nice 5, 10 and 0.
    static let favouredWeight = 300
    static let otherWeight = 100
    /// How many nice levels below the compositor an app that does not come first runs (one that
    /// does runs at `AppLauncher.appNiceness`).
    static let otherNiceness: Int32 = 10
    /// The least time between two changes of who comes first: input in both panes at once
    /// changes it at most this often (each change renices whole process trees).
    static let settleMilliseconds: UInt64 = 250

    /// Chooses the scheme: `cgroupsShareCPU` when the apps' cgroups have the cpu controller.
    mutating func choose(cgroupsShareCPU: Bool, cgroupWhy: String) {
        if cgroupsShareCPU {
            (scheme, why) = (.weight, "each app's cgroup weighed (cpu.weight)")
        } else if ProcessPriority.mayRaise(to: ProcessPriority.mine + AppLauncher.appNiceness) {
            (scheme, why) = (.nice, "each app's processes reniced (\(cgroupWhy))")
        } else {
            (scheme, why) = (.none, "the apps keep the nice they were launched with (\(cgroupWhy)), "
                + "and raising an app's priority again needs LimitNICE=+\(AppLauncher.appNiceness) or CAP_SYS_NICE")
        }
    }

    /// Asks that `roles` come first from `now` (ms); the roles whose standing changed once the
    /// change is due (nil: nothing to do yet).
    mutating func favour(_ roles: Set<Role>, now: UInt64) -> Set<Role>? {
        wanted = roles == favoured ? nil : roles
        guard let next = wanted, now >= appliedAt + Self.settleMilliseconds else { return nil }
        // (Every app comes first while none is favoured.)
        let all: Set<Role> = [.primary, .secondary]
        let changed = (favoured.isEmpty ? all : favoured).symmetricDifference(next.isEmpty ? all : next)
        (favoured, wanted, appliedAt) = (next, nil, now)
        return changed
    }

    /// When a change asked for is due (ms).
    var nextDeadline: UInt64? { wanted == nil ? nil : appliedAt + Self.settleMilliseconds }

    /// Whether `role`'s app comes first.
    func first(_ role: Role) -> Bool { favoured.isEmpty || favoured.contains(role) }

    /// What `status` says of it: `"apps"`, `"apps_why"` and `"favoured"` (the loop's own part
    /// is the caller's).
    var status: [(String, JSONValue)] {
        [("apps", .string(scheme.rawValue)), ("apps_why", .string(why)), ("favoured", .array(favoured.sorted { $0.rawValue < $1.rawValue }.map { .string($0.rawValue) }))]
    }
}

extension AppLauncher {
    /// Chooses how the apps share the CPU (`CPUShare.choose`) and applies it to those running;
    /// `noCgroupWhy`: why the apps have no cgroups, when they have none.
    func shareCPU(noCgroupWhy: String) {
        cpu.choose(cgroupsShareCPU: cgroup?.sharesCPU == true, cgroupWhy: cgroup.map { $0.cpuWhy } ?? "no delegated cgroup: \(noCgroupWhy)")
        for app in apps {
            if case .retired = app.standing { continue }
            share(app)
        }
    }

    /// `roles` come first from now (`now` in ms; see `CPUShare.favour`): the apps whose
    /// standing changed are reniced or weighed again.
    func favour(_ roles: Set<Role>, now: UInt64) {
        guard cpu.scheme != .none, let changed = cpu.favour(roles, now: now), !changed.isEmpty else { return }
        for app in apps where changed.contains(app.role) { share(app) }
    }

    /// Applies the scheme to `app`: first when its role is favoured (or none is), else after.
    func share(_ app: App) {
        let first = cpu.first(app.role)
        switch cpu.scheme {
        case .weight:
            app.cgroup?.weigh(first ? CPUShare.favouredWeight : CPUShare.otherWeight)
        case .nice:
            ProcessPriority.setNice(min(19, ProcessPriority.mine + (first ? Self.appNiceness : CPUShare.otherNiceness)), tree: app.process.pid)
        case .none:
            break
        }
    }
}

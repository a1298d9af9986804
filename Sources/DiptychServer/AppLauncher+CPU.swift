// SPDX-License-Identifier: MIT
// The CPU follows the user: of the launched apps, the one that last received touch, pen or keys
// (and one playing Picture in Picture) comes first. Under a delegated cgroup v2 subtree with the
// cpu controller, by each app cgroup's `cpu.weight` (the compositor's own leaf above both);
// otherwise by nice values on each app's whole process tree (WebKit's processes with their
// client), where this process may raise an app's priority back (the unit's `LimitNICE=`, or
// CAP_SYS_NICE); otherwise not at all, and `status` says why.

import DiptychCore
import DiptychLinux

/// How the launched apps share the CPU.
struct CPUShare {
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
    /// The apps that come first now.
    private(set) var favoured: Set<ClientID> = []

    /// The weight of an app that comes first, and of one that does not (against the compositor's
    /// `DelegatedCgroup.compositorWeight`): the ratios of nice 0, 5 and 10.
    static let favouredWeight = 300
    static let otherWeight = 100
    /// How many nice levels below the compositor an app that does not come first runs (one that
    /// does runs at `AppLauncher.appNiceness`).
    static let otherNiceness: Int32 = 10

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

    /// Sets the apps that come first; whether that changed anything.
    mutating func favour(_ clients: Set<ClientID>) -> Bool {
        guard clients != favoured else { return false }
        favoured = clients
        return true
    }

    /// What `status` says of it: `{"apps", "why", "favoured"}` (the loop's own part is the
    /// caller's).
    func status(_ roles: [Role]) -> [(String, JSONValue)] {
        [("apps", .string(scheme.rawValue)), ("apps_why", .string(why)), ("favoured", .array(roles.map { .string($0.rawValue) }))]
    }
}

extension AppLauncher {
    /// Chooses how the apps share the CPU (`CPUShare.choose`) and applies it to those running;
    /// `noCgroupWhy`: why the apps have no cgroups, when they have none.
    func shareCPU(noCgroupWhy: String) {
        cpu.choose(cgroupsShareCPU: cgroup?.sharesCPU == true, cgroupWhy: cgroup.map { $0.cpuWhy } ?? "no delegated cgroup: \(noCgroupWhy)")
        for app in apps where app.standing == .current { share(app) }
    }

    /// `clients` come first from now on (the app with the user's last input, one playing
    /// Picture in Picture): reapplied to every app when that changed.
    func favour(_ clients: Set<ClientID>) {
        guard cpu.favour(clients), cpu.scheme != .none else { return }
        for app in apps where app.standing != .candidate { share(app) }
    }

    /// The roles of the apps that come first (for `status`).
    var favouredRoles: [Role] { apps.filter { $0.standing == .current && cpu.favoured.contains($0.client) }.map(\.role) }

    /// Applies the scheme to `app`: first when favoured (or when none is), else after.
    func share(_ app: App) {
        let first = cpu.favoured.isEmpty || cpu.favoured.contains(app.client)
        switch cpu.scheme {
        case .weight:
            app.cgroup?.weigh(first ? CPUShare.favouredWeight : CPUShare.otherWeight)
        case .nice:
            ProcessPriority.setNice(
                min(19, ProcessPriority.mine + (first ? Self.appNiceness : CPUShare.otherNiceness)), tree: app.process.pid)
        case .none:
            break
        }
    }
}

// SPDX-License-Identifier: MIT
// What the keyboard's system shortcuts do to the shell (iPadOS keeps these for itself): bring in
// or send away the Slide Over, and move the divider between the splits. Each settles like the
// gesture it stands for; none does anything while a finger holds a gesture.

extension Shell {
    /// Super+\: brings the secondary in as a Slide Over when it is in the background, and
    /// sends a Slide Over away; nothing in a split, with one app, or during a gesture.
    public mutating func toggleSlideOver(now: UInt64) -> [ShellEffect] {
        guard multitasking, routes.isEmpty, let p = primary, let s = secondary, !fullScreenOnly.contains(s) else { return [] }
        let from = presentation(at: now)
        if secondaryShown {
            guard arrangement == .slideOver else { return [] }
            secondaryShown = false
            return [.lifecycle(s, .willResignActive)] + settle(from: from, now: now, onFinish: [.lifecycle(s, .didEnterBackground)])
                + [.layoutChanged, .activateWhenDrawn(p)]
        }
        secondaryShown = true
        requested = .slideOver
        return [.lifecycle(s, .willEnterForeground)] + settle(from: from, now: now, onFinish: []) + [.layoutChanged, .activateWhenDrawn(s)]
    }

    /// Super+← (`towardsLeading`) or Super+→: the divider moves to the next split that way
    /// (in landscape between ½ and ⅔; portrait has one split); nothing past the last one, in
    /// a Slide Over or full screen, or during a gesture.
    public mutating func moveDivider(towardsLeading: Bool, now: UInt64) -> [ShellEffect] {
        guard multitasking, routes.isEmpty, let p = primary, let s = secondary, arrangement.isSplit else { return [] }
        // Ordered by where the divider stands, left to right.
        let order = splits.sorted { $0.1 < $1.1 }.map(\.0)
        guard let i = order.firstIndex(of: arrangement) else { return [] }
        let j = towardsLeading ? i - 1 : i + 1
        guard order.indices.contains(j) else { return [] }
        let from = presentation(at: now)
        requested = order[j]
        return [.lifecycle(p, .willResignActive), .lifecycle(s, .willResignActive)] + settle(from: from, now: now, onFinish: [])
            + [.layoutChanged, .activateWhenDrawn(p), .activateWhenDrawn(s)]
    }

    /// A Picture in Picture window's "back to the app": `app` comes back on screen as the
    /// primary, full screen (the other app goes to the background); nothing when it is the
    /// primary already or a gesture is in progress.
    public mutating func restore(_ app: AppID, now: UInt64) -> [ShellEffect] {
        guard routes.isEmpty, app == secondary, let p = primary else { return [] }
        let from = presentation(at: now)
        let wasShown = secondaryShown
        (primary, secondary) = (app, p)
        secondaryShown = false
        var effects: [ShellEffect] = wasShown ? [] : [.lifecycle(app, .willEnterForeground)]
        effects.append(.lifecycle(p, .willResignActive))
        return effects + settle(from: from, now: now, onFinish: [.lifecycle(p, .didEnterBackground)]) + [.layoutChanged, .activateWhenDrawn(app)]
    }
}

extension Shell {
    /// Why an arrangement asked for (by the operator's `ctl arrangement`) cannot be shown.
    public enum ArrangeRefusal: Error, Equatable, Sendable {
        /// A finger or the pen is in a gesture.
        case busy
        /// Split View and Slide Over need two apps, multitasking on, and a secondary that does
        /// not require the full screen.
        case needsTwoApps
    }

    /// Shows `target` as if the user had arranged it: the panes settle there, the secondary
    /// comes in from (or goes to) the background, every shown app is told its bounds. A
    /// `split-1/2` asked for in portrait shows `split-2/3` and is kept for landscape.
    public mutating func arrange(_ target: Arrangement, now: UInt64) -> Result<[ShellEffect], ArrangeRefusal> {
        guard routes.isEmpty, penRoute == nil else { return .failure(.busy) }
        guard let p = primary else { return target == .full ? .success([]) : .failure(.needsTwoApps) }
        let from = presentation(at: now)
        guard target.showsSecondary else {
            guard secondaryShown, let s = secondary else { return .success([]) }
            secondaryShown = false
            return .success([.lifecycle(s, .willResignActive)] + settle(from: from, now: now, onFinish: [.lifecycle(s, .didEnterBackground)])
                + [.layoutChanged, .activateWhenDrawn(p)])
        }
        guard multitasking, let s = secondary, !fullScreenOnly.contains(s) else { return .failure(.needsTwoApps) }
        if secondaryShown && requested == target { return .success([]) }
        var effects: [ShellEffect] = secondaryShown ? [.lifecycle(s, .willResignActive)] : [.lifecycle(s, .willEnterForeground)]
        effects.insert(.lifecycle(p, .willResignActive), at: 0)
        requested = target
        secondaryShown = true
        return .success(effects + settle(from: from, now: now, onFinish: []) + [.layoutChanged, .activateWhenDrawn(p), .activateWhenDrawn(s)])
    }
}

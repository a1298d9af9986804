// SPDX-License-Identifier: MIT
// The menus and alerts shown for apps (at most one an app), with where each was last laid out:
// the desk hands them the contacts that are theirs before the shell sees any.


package struct Presentations {
    /// Each app's menu or alert.
    package private(set) var shown: [AppID: Presentation] = [:]
    /// Where each was laid out last, in its app's pane (screen points).
    private var layouts: [AppID: (layout: Presentation.Layout, pane: RectD)] = [:]
    /// The pane each came in (screen points): a menu goes when its pane changes.
    package private(set) var panes: [AppID: Rect] = [:]

    package var isEmpty: Bool { shown.isEmpty }

    package mutating func present(_ p: Presentation, in pane: Rect?) {
        shown[p.owner] = p
        layouts[p.owner] = nil
        panes[p.owner] = pane
    }

    /// Takes `app`'s presentation away.
    @discardableResult
    package mutating func remove(_ app: AppID) -> Presentation? {
        layouts[app] = nil
        panes[app] = nil
        return shown.removeValue(forKey: app)
    }

    /// Where `app`'s presentation is drawn now (the compositor lays it out with its fonts).
    package mutating func laidOut(_ app: AppID, _ layout: Presentation.Layout, pane: RectD) {
        guard shown[app] != nil else { return }
        layouts[app] = (layout, pane)
        shown[app]?.clampScroll(layout)
    }

    /// A contact: nil when no presentation takes it, else what it answered. An answer takes
    /// the presentation away. `under`: the app whose pane is topmost where it went down: only
    /// that app's presentation may take it (a primary's alert never takes a touch on the Slide
    /// Over above it).
    package mutating func touch(_ c: Contact, phase: TouchPhase, x: Double, y: Double, under: AppID?) -> [ShellEffect]? {
        for app in shown.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            if phase == .down, app != under { continue }
            guard var p = shown[app], let l = layouts[app] else { continue }
            guard let answered = p.touch(c, phase: phase, x: x, y: y, layout: l.layout, pane: l.pane) else { continue }
            shown[app] = p
            // A finger or click going down on it is the user's: its app takes the keyboard.
            let focus: [ShellEffect] = phase == .down ? [.focusByUser(app)] : []
            guard let answer = answered else { return focus }
            remove(app)
            return focus + [.presented(app, answer)]
        }
        return nil
    }

    /// Text the keyboard typed into `app`'s alert field (false: it has none).
    package mutating func type(_ output: KeyboardOutput, for app: AppID) -> [ShellEffect]? {
        guard var p = shown[app], p.takesText else { return nil }
        switch output {
        case .commit(let text): p.type(text)
        case .key(.return): if let a = p.returnAnswer { remove(app); return [.presented(app, a)] }
        case .key(.backspace): p.deleteBackward()
        case .key(.tab), .key(.backTab): break
        case .dismiss, .showKeys, .nextLanguage, .language: return nil
        }
        shown[app] = p
        return []
    }
}

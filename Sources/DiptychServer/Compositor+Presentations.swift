// SPDX-License-Identifier: MIT
// Menus and alerts as the compositor carries them out (`presentMenu`, `presentAlert`): taken
// while the app's pane shows and it has none showing (else `refused`), a menu gathered from its
// pieces (bounded: 10,000 items of 256 bytes), answered with `menuChosen`, `alertAnswered` or
// `dismissed`; an alert's field typed on the on-screen keyboard; drawn over the app's pane in
// Inter as UIKit draws them.

import DiptychCore
import DiptychKeyboard
import DiptychWire

/// A menu whose pieces are still coming, or the id of one refused (its further pieces are
/// dropped).
enum MenuArrival {
    case arriving(MenuRequest, total: UInt32)
    case refused(id: UInt32, total: UInt32)
}

/// What the compositor keeps of the apps' menu and alert requests.
final class PresentationRequests {
    /// How many menus and alerts an app may show: `burst` at once, `perSecond` after (more are
    /// refused `rate`): what one app makes the compositor show, move (an alert's field moves the
    /// keyboard) and tell the other app is bounded.
    static let burst = 10, perSecond = 5
    /// Menus whose pieces are still coming, by app.
    var arriving: [AppID: MenuArrival] = [:]
    /// Each app's presentations left (keyed by the app's number).
    var budget = ConnectBudget(burst: burst, perSecond: perSecond)
    /// Each presentation's last layout and what it was laid out for: text an app supplies is
    /// wrapped and measured once per content and place, never every frame.
    var layouts: [AppID: (key: LayoutKey, layout: Presentation.Layout)] = [:]
    /// How many layouts were made (for tests: one a content and place).
    var layoutsMade = 0

    struct LayoutKey: Equatable {
        var id: UInt32, pane: RectD, top: Double, bottom: Double?, compact: Bool, scale: Int
    }
}

extension Compositor {
    /// Why `c` may not show a menu or alert now (nil: it may). `opening`: a new one is asked
    /// for (it takes one of the app's presentations a second).
    private func presentationRefusal(_ c: ClientSession, opening: Bool = true) -> (reason: String, message: String)? {
        if desk.shell.pane(of: c.app) == nil { return ("hidden", "the app's pane is not on screen") }
        if let p = desk.presented.shown[c.app] { return ("busy", "the app's \(p.kindName) \(p.id) shows (dismiss it first)") }
        if opening, !presentationRequests.budget.take(UInt32(truncatingIfNeeded: c.app.rawValue), at: now) {
            return ("rate", "more than \(PresentationRequests.perSecond) menus and alerts a second (after \(PresentationRequests.burst) at once)")
        }
        return nil
    }

    /// A `presentMenu` piece: the first (`first` 0) opens a menu, the rest must follow in order.
    func presentMenu(_ m: MenuPiece, from c: ClientSession) throws(ProtocolError) {
        let complete = Int(m.first) + m.items.count == Int(m.total)
        guard m.first > 0 else {
            presentationRequests.arriving[c.app] = nil
            if let why = presentationRefusal(c) {
                refuse(c, request: "presentMenu", reason: why.reason, why.message)
                if !complete { presentationRequests.arriving[c.app] = .refused(id: m.id, total: m.total) }
                return
            }
            let menu = MenuRequest(id: m.id, anchor: m.anchor, title: m.title, items: m.items)
            if complete { show(.menu(menu), for: c) } else { presentationRequests.arriving[c.app] = .arriving(menu, total: m.total) }
            return
        }
        switch presentationRequests.arriving[c.app] {
        case .refused(let id, let total)? where id == m.id && total == m.total:
            if complete { presentationRequests.arriving[c.app] = nil }
        case .arriving(var menu, let total)? where menu.id == m.id && total == m.total && menu.items.count == Int(m.first):
            presentationRequests.arriving[c.app] = nil
            menu.items += m.items
            if !complete { presentationRequests.arriving[c.app] = .arriving(menu, total: total); return }
            // The pane may have gone while the pieces came.
            if let why = presentationRefusal(c, opening: false) { refuse(c, request: "presentMenu", reason: why.reason, why.message); return }
            show(.menu(menu), for: c)
        default:
            throw ProtocolError(.malformedMessage, "presentMenu piece at \(m.first) of menu \(m.id): not the next piece of a menu being sent")
        }
    }

    /// `presentAlert`.
    func presentAlert(_ a: AlertRequest, from c: ClientSession) {
        if let why = presentationRefusal(c) { return refuse(c, request: "presentAlert", reason: why.reason, why.message) }
        show(.alert(a), for: c)
    }

    /// `dismissPresented`: the app takes its menu or alert away.
    func dismissPresented(_ id: UInt32, from c: ClientSession) {
        if case .arriving(let m, _)? = presentationRequests.arriving[c.app], m.id == id { presentationRequests.arriving[c.app] = nil }
        guard desk.presented.shown[c.app]?.id == id else { return }
        desk.removePresentation(of: c.app)
        presentationChanged()
    }

    private func show(_ content: Presentation.Content, for c: ClientSession) {
        var content = content
        // The anchor kept within the pane.
        if case .menu(var m) = content, let pane = desk.paneFrame(of: c.app) {
            let x = min(max(m.anchor.x, 0), pane.width), y = min(max(m.anchor.y, 0), pane.height)
            m.anchor = Rect(x: x, y: y, width: min(m.anchor.width, pane.width - x), height: min(m.anchor.height, pane.height - y))
            content = .menu(m)
        }
        desk.present(Presentation(owner: c.app, content: content))
        presentationRequests.layouts[c.app] = nil
        // The keyboard focus stays where the user put it: an alert of an app that has it takes
        // its keys (Return, Escape, its field's typing); one of an app without it shows in its
        // pane without keys until the user touches it (as xdg-activation gives focus only for
        // a user's action).
        logger.debug("presented", metadata: ["client.app": "\(c.label)", "kind": "\(desk.presented.shown[c.app]?.kindName ?? "")"])
        presentationChanged()
    }

    /// What the user did with an app's menu or alert: the app hears it.
    func presentationAnswered(_ answer: PresentationAnswer, of app: AppID) {
        if let c = session(app) {
            switch answer {
            case .chosen(let id, let index): send(.menuChosen(id: id, index: UInt32(index)), to: c)
            case .answered(let id, let button, let text): send(.alertAnswered(id: id, button: UInt32(button), text: text), to: c)
            case .dismissed(let id): send(.dismissed(id: id), to: c)
            }
        }
        presentationChanged()
    }

    /// A menu goes when its pane moves or changes size (as a popover does on iPad), a menu or
    /// an alert when its app leaves the screen or goes away; the app hears `dismissed`.
    func presentationsFollowPanes() {
        guard !desk.presented.isEmpty else { return }
        for (app, p) in desk.presented.shown.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let pane = desk.shell.pane(of: app)?.frame
            let moved = pane != desk.presented.panes[app] || desk.shell.isFollowingFinger
            guard session(app) == nil || pane == nil || (moved && !p.isAlert) else { continue }
            desk.removePresentation(of: app)
            presentationAnswered(.dismissed(id: p.id), of: app)
        }
        for app in presentationRequests.layouts.keys where desk.presented.shown[app] == nil { presentationRequests.layouts[app] = nil }
        for app in presentationRequests.arriving.keys where session(app) == nil { presentationRequests.arriving[app] = nil }
    }

    private func presentationChanged() {
        scheduleFrame()
        keyboardMayChange()
    }

    /// The text field state of `app`'s alert, when it has a field (the keyboard types into it).
    func alertFieldState(of app: AppID) -> TextInputState? {
        guard let p = desk.presented.shown[app], case .alert(let a) = p.content, a.field != .none else { return nil }
        return TextInputState(enabled: true, purpose: a.field == .secure ? .password : .text, hints: [], returnKey: .default,
                              caret: (0, 0, 0, 0), surrounding: a.field == .secure ? "" : String(p.text.suffix(64)))
    }

    /// A hardware key while `app`'s menu or alert shows: Escape and Return answer it, an
    /// alert's field takes text and BackSpace. False: the app gets the key.
    func presentationKey(_ result: KeyResult, of app: AppID) -> Bool {
        guard let p = desk.presented.shown[app] else { return false }
        let answer: PresentationAnswer?
        switch result.keysym {
        case 0xFF1B: answer = p.escapeAnswer
        case 0xFF0D, 0xFF8D: answer = p.returnAnswer
        case 0xFF08: if let e = desk.presentationTyped(.key(.backspace), for: app) { apply(e) }; return true
        default:
            if !result.text.isEmpty, let e = desk.presentationTyped(.commit(result.text), for: app) { apply(e) }
            return true
        }
        if let answer {
            desk.removePresentation(of: app)
            presentationAnswered(answer, of: app)
        }
        return true
    }

    /// The presentations' layer: each app's menu or alert over its pane, in logical pixels.
    func presentationLayer(scale: Int) -> [SceneNode]? {
        guard !desk.presented.isEmpty else { return nil }
        var nodes: [SceneNode] = []
        for (app, p) in desk.presented.shown.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let l = presentationLayout(of: app) else { continue }
            nodes += PresentationPainter(scale: scale, metrics: renderer.chrome.metrics).nodes(p, l.layout, part: Int(app.rawValue))
        }
        return nodes
    }

    /// Where `app`'s presentation goes now (its pane as drawn, below the status bar, above the
    /// keyboard for an alert's field).
    func presentationLayout(of app: AppID) -> (layout: Presentation.Layout, pane: RectD)? {
        guard let p = desk.presented.shown[app], let shown = desk.shell.pane(of: app) else { return nil }
        let pane = RectD(shown.frame)
        let keyboardTop = p.takesText ? desk.keyboard.map { Double($0.restFrame(screen: desk.shell.layout.screen, orientation: desk.shell.orientation).y) } : nil
        let top = pane.y + safeAreaInsets(of: shown).top
        let compact = shown.horizontalSizeClass == .compact
        let key = PresentationRequests.LayoutKey(id: p.id, pane: pane, top: top, bottom: keyboardTop, compact: compact, scale: desk.shell.profile.scale)
        if let cached = presentationRequests.layouts[app], cached.key == key { return (cached.layout, pane) }
        let scale = Double(desk.shell.profile.scale), metrics = renderer.chrome.metrics
        let layout = p.layout(pane: pane, top: top, bottom: keyboardTop, compact: compact) { text, size in
            Double(metrics.size(of: text, pixelSize: Int((size * scale).rounded())).width) / scale
        }
        presentationRequests.layouts[app] = (key, layout)
        presentationRequests.layoutsMade += 1
        return (layout, pane)
    }

    /// Lays the presentations out where input will find them (before a contact is handed out).
    func layOutPresentations() {
        for app in desk.presented.shown.keys {
            if let l = presentationLayout(of: app) { desk.presentationLaidOut(app, l.layout, pane: l.pane) }
        }
    }

    /// What shows for `role`'s app now, for tests: its menu's or alert's id and kind, and where
    /// its rows or buttons are (screen points).
    public func presented(_ role: Role) -> (id: UInt32, kind: String, frame: RectD, targets: [(index: Int, frame: RectD)], text: String)? {
        guard let app = desk.app(role), let p = desk.presented.shown[app], let l = presentationLayout(of: app) else { return nil }
        let targets = p.isAlert ? Array(l.layout.buttons.enumerated()).map { ($0.offset, $0.element) } : p.visibleRows(in: l.layout)
        return (p.id, p.kindName, l.layout.frame, targets, p.text)
    }
}

extension Presentation {
    var kindName: String { isAlert ? "alert" : "menu" }
}

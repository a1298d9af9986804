// SPDX-License-Identifier: MIT
// The compositor's event loop: one epoll set with typed tokens for the listener, the output's
// descriptors, clients, input sources and watched descriptors; the waits that start-up and
// scenarios need; and round trips with every app.

import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux
import DiptychWire

extension Compositor {
    /// Runs the loop until `done()` is true or `timeoutMilliseconds` pass. `done()` is checked
    /// after every batch of events and at least every 10 ms, so it may also watch things that
    /// raise no event here (a child process exiting). Returns whether `done()` became true.
    @discardableResult
    public func run(timeoutMilliseconds: Int, until done: () throws -> Bool) throws -> Bool {
        let deadline = MonotonicClock.milliseconds + UInt64(timeoutMilliseconds)
        while try !done() {
            let now = MonotonicClock.milliseconds
            if now >= deadline { return false }
            try dispatch(timeoutMilliseconds: min(10, Int(deadline - now)))
        }
        return true
    }

    /// Waits up to `timeoutMilliseconds` (nil: until something happens) for events and
    /// handles them.
    public func dispatch(timeoutMilliseconds: Int?) throws {
        // What this turn's handlers and the frame since the last wait queued goes out first,
        // and the viewers' copy of that frame.
        flushClients()
        sendVNCFrame()
        // Apps with messages left from the last turn are served again at once.
        let backlogged = clients.all.filter(\.connection.hasBacklog).map(\.id)
        var served: Set<ClientID> = []
        for (raw, readiness) in try loop.wait(timeoutMilliseconds: backlogged.isEmpty ? timeoutMilliseconds : 0) {
            guard let token = LoopToken(rawValue: raw) else { continue }
            switch token {
            case .listener:
                accept()
            case .output(let fd):
                if backend.eventDescriptors.contains(fd) {
                    handle(backend.dispatch(fd))
                } else if let s = secondScreen {
                    handleSecondScreen(s.backend.dispatch(fd))
                }
            case .input(let i):
                readInput(i)
            case .watch(let n):
                watchers.call(n)
            case .repaintTimer:
                // The loop looks at its wanted frames after every turn.
                _ = repaintTimer.acknowledge()
            case .client(let id):
                guard let c = clients[id] else { continue }
                if readiness.contains(.writable) { c.flush() }
                if readiness.contains(.readable) || readiness.contains(.hangUp) {
                    read(c)
                    served.insert(id)
                }
            }
        }
        for id in backlogged where !served.contains(id) {
            if let c = clients[id], c.connection.hasBacklog { read(c) }
        }
        enforceHelloDeadlines()
        reapLaunchedApps()
        if virtualTime == nil { tick() }
        // And what these events made the compositor send, all of it in one write per app.
        flushClients()
    }

    /// Writes every session's queued events: one write per app for all the events since the
    /// last call (a drag's release sends an app its configure, lifecycle and buffer releases
    /// together, and wakes it once). The loop calls it before it waits and after it handles a
    /// batch of events; frames call it at the end of their input and present stages, so that
    /// those stages pay for their writes.
    public func flushClients() {
        sendKeyboardNews()
        clients.flush()
    }

    /// What the output reported: one that came back is repainted whole.
    public func handle(_ events: [OutputEvent]) {
        for case .frameDone(let time) in events {
            main.shown(at: time)
            let flip = main.flipCompleted()
            hooks.onFrameShown?(flip.commits, time)
            if !flip.apps.isEmpty { tellFrameShown(to: flip.apps, at: time / 1_000_000) }
        }
        for e in events where e == .reconnected {
            main.redraw()
        }
        // A hotplug may concern the second screen: it is looked for, or re-read.
        if events.contains(.connectorsChanged) { connectorsChanged() }
    }

    /// Calls `handler` on the loop whenever `descriptor` (owned by the caller, open for the
    /// compositor's lifetime) is readable.
    public func watch(_ descriptor: Int32, handler: @escaping () -> Void) {
        let n = watchers.add(handler, descriptor: descriptor)
        do { try loop.add(descriptor, token: LoopToken.watch(n).rawValue) } catch {
            watchers.remove(n)
            logger.error("system error: cannot watch a descriptor", metadata: ["error": "\(error)"])
        }
    }

    /// Stops watching `descriptor` (before the caller closes it).
    public func unwatch(_ descriptor: Int32) {
        guard let n = watchers.number(of: descriptor) else { return }
        watchers.remove(n)
        loop.remove(descriptor)
    }

    // MARK: - Input sources

    /// Reads `source` whenever it has input, mapping its touchscreens to the panel through
    /// `calibration`. The source must stay open while the compositor runs.
    public func addInput(_ source: any InputSource, calibration: Calibration = .identity) throws {
        try loop.add(source.descriptor, token: LoopToken.input(input.count).rawValue)
        input.add(source, translator: InputTranslator(panel: geometry.panel, calibration: calibration))
    }

    private func readInput(_ index: Int) {
        let started = MonotonicClock.nanoseconds
        for (event, time) in input.read(index) {
            switch event {
            case .deviceAdded(let name): logger.info("input device added", metadata: ["input.device": "\(name)"])
            case .deviceRemoved(let name, let sysname):
                logger.info("input device removed", metadata: ["input.device": "\(name)"])
                inputDeviceRemoved(sysname)
            case .input(let e):
                // The device's own time stamps what is sent from this event.
                panelInput(e, time: time)
            }
        }
        input.spent(Double(MonotonicClock.nanoseconds - started) / 1_000_000)
    }

    /// Time spent handling input since the last call, and whether there was any.
    public func takeInputTime() -> (milliseconds: Double, hadInput: Bool) { input.takeSpent() }

    // MARK: - Waits

    /// Runs the loop until the output can take a frame (its last page flip completed), or
    /// at once when the output is away (its frames are dropped). In a scenario the second
    /// screen keeps step too (its last flip is waited for here, before the frame, not inside
    /// its present), so both outputs show the same frames as headless.
    public func waitUntilOutputReady(timeoutMilliseconds: Int = 1000) throws {
        func ready(_ b: any OutputBackend) -> Bool { b.readyForFrame || !b.isConnected }
        try run(timeoutMilliseconds: timeoutMilliseconds) {
            ready(backend) && (virtualTime == nil || secondScreen.map { ready($0.backend) } ?? true)
        }
    }

    /// Waits until every shown app has committed a buffer for its configure.
    ///
    /// - Throws: `CompositorError` naming the app that went away first, or every app that had
    ///   not drawn when `timeoutMilliseconds` ran out.
    public func waitUntilShownAppsHaveDrawn(timeoutMilliseconds: Int) throws {
        let deadline = MonotonicClock.milliseconds + UInt64(timeoutMilliseconds)
        var failure: String?
        func lost() -> Bool {
            for app in launcher.apps where launchedSession(app.role) == nil || launcher.exitStatus(app.role) != nil {
                guard let why = disconnections[app.role] ?? launcher.exitStatus(app.role).map({ "it exited with status \($0)" }) else { continue }
                failure = "app '\(app.label)' (\(app.role.rawValue)) went away before drawing: \(why)"
                return true
            }
            return false
        }
        if !admission.atHello {
            let spoke = try run(timeoutMilliseconds: timeoutMilliseconds) { lost() || launchedAppsHaveSpoken }
            if let failure { throw CompositorError(failure) }
            if !spoke { throw CompositorError("app \(silentApps) did not say hello within \(Double(timeoutMilliseconds) / 1000) s") }
            admitWaitingApps()
        }
        let left = Int(deadline > MonotonicClock.milliseconds ? deadline - MonotonicClock.milliseconds : 0)
        let ok = try run(timeoutMilliseconds: left) {
            if lost() { return true }
            return !layout.panes.isEmpty && layout.panes.allSatisfy { hasCommittedForConfigure($0.role) }
        }
        if let failure { throw CompositorError(failure) }
        if !ok {
            var late = layout.panes.map(\.role).filter { !hasCommittedForConfigure($0) }
            if layout.panes.isEmpty || desk.shell.primary == nil { late = launcher.apps.map(\.role) }
            let names = late.map { "'\(label($0) ?? $0.rawValue)' (\($0.rawValue))" }.joined(separator: " and ")
            throw CompositorError("app \(names) did not commit a buffer for its configure within \(Double(timeoutMilliseconds) / 1000) s")
        }
    }

    private var silentApps: String {
        clients.all.compactMap { s in s.launchRole.flatMap { s.name == nil ? "'\(s.label)' (\($0.rawValue))" : nil } }.joined(separator: " and ")
    }

    private func launchedSession(_ role: Role) -> ClientSession? {
        clients.all.first { $0.launchRole == role }
    }

    // MARK: - Round trips

    /// A round trip with every app: sends `sync` (with the clock) and waits until each has
    /// answered, gone away, or `timeoutMilliseconds` of real time passed. Everything an app
    /// sent before answering has been handled when this returns, which makes a scenario's
    /// virtual frames deterministic.
    @discardableResult
    public func roundTrip(timeoutMilliseconds: Int = 5000) throws -> Bool {
        let serial = clients.newSync()
        let targets = clients.all.filter { $0.name != nil && !$0.roundTrip.unresponsive }.map(\.id)
        clients.roundTripStarted(at: MonotonicClock.nanoseconds)
        for id in targets { if let c = clients[id] { send(.sync(serial: serial, time: now), to: c) } }
        let answered = try run(timeoutMilliseconds: timeoutMilliseconds) {
            targets.allSatisfy { id in clients[id].map { $0.roundTrip.answered == serial } ?? true }
        }
        for id in targets {
            guard let c = clients[id], c.roundTrip.answered != serial else { continue }
            c.missedRoundTrip()
            logger.warning("client error: no answer to a round trip (sync) within the time allowed; not waiting for it again. An app answers each sync with syncDone after handling the events before it (DiptychClient does it in nextEvent and pollEvent)", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)"])
        }
        return answered
    }

    /// How long a wait for apps to be ready may take: a web page's bound (10 s) and its answer.
    public static let readyTimeoutMilliseconds = 12_000

    /// Waits, the virtual clock stopped, until the apps of `roles` (all shown, by default) are
    /// ready: each has committed for its latest configure, and has answered a round trip (a web
    /// page answers once it is loaded and has drawn nothing new for a while).
    public func waitUntilAppsAreReady(_ roles: [Role] = [.primary, .secondary], timeoutMilliseconds: Int) throws {
        let shown = roles.filter { launchedSession($0) != nil }
        _ = try run(timeoutMilliseconds: timeoutMilliseconds) { shown.allSatisfy { hasCommittedForConfigure($0) } }
        try roundTrip(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Each app's answer time in the last round trip (label, start and end in monotonic ns).
    public var lastRoundTrip: [(label: String, start: UInt64, end: UInt64)] {
        clients.all.filter { $0.name != nil }.sorted { $0.id.rawValue < $1.id.rawValue }.map {
            ($0.label, clients.roundTripStart, max(clients.roundTripStart, $0.roundTrip.answeredAt))
        }
    }
}

/// Handlers of descriptors watched for the compositor's caller, by watch number.
final class Watchers {
    private var handlers: [UInt64: (descriptor: Int32, call: () -> Void)] = [:]
    private var next: UInt64 = 1

    /// Keeps `handler` for `descriptor`; its watch number.
    func add(_ handler: @escaping () -> Void, descriptor: Int32) -> UInt64 {
        defer { next += 1 }
        handlers[next] = (descriptor, handler)
        return next
    }

    func remove(_ n: UInt64) { handlers[n] = nil }

    /// The watch number of `descriptor`, if it is watched.
    func number(of descriptor: Int32) -> UInt64? { handlers.first { $0.value.descriptor == descriptor }?.key }

    func call(_ n: UInt64) { handlers[n]?.call() }
}

/// The input sources and their translators to panel pixels, and the time spent reading them
/// since the last frame.
final class InputSources {
    private var sources: [(source: any InputSource, translator: InputTranslator)] = []
    private var spentTime = (milliseconds: 0.0, events: false)

    /// What a source's raw event is to the compositor.
    enum Event {
        case input(PanelInput)
        case deviceAdded(String)
        case deviceRemoved(String, sysname: String)
    }

    var count: Int { sources.count }

    func add(_ source: any InputSource, translator: InputTranslator) { sources.append((source, translator)) }

    /// Everything source `index` has now, translated, each with its device's time in
    /// milliseconds (if it has one).
    func read(_ index: Int) -> [(Event, Double?)] {
        guard sources.indices.contains(index) else { return [] }
        var out: [(Event, Double?)] = []
        for raw in sources[index].source.read() {
            let time = raw.time.map { Double($0) / 1000 }
            switch raw {
            case .deviceAdded(let name): out.append((.deviceAdded(name), time))
            case .deviceRemoved(let name, let sysname): out.append((.deviceRemoved(name, sysname: sysname), time))
            default: out += sources[index].translator.translate(raw).map { (.input($0), time) }
            }
        }
        return out
    }

    func spent(_ milliseconds: Double) {
        spentTime.milliseconds += milliseconds
        spentTime.events = true
    }

    /// The time spent since the last call, and whether there was any input.
    func takeSpent() -> (milliseconds: Double, hadInput: Bool) {
        defer { spentTime = (0, false) }
        return (spentTime.milliseconds, spentTime.events)
    }
}

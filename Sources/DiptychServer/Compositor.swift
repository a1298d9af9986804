// SPDX-License-Identifier: MIT
// The compositor: the coordinator between client sessions, the shell (who is where, what
// gestures do), the output and the apps it launched. This file holds its state, start-up,
// shutdown and the clients' lifecycle (registering, launching, joining, ending); what apps ask
// for is handled in `Compositor+Requests.swift`, and the shell's effects and input, frames,
// the event loop and the rest are its extensions in the `Compositor+*.swift` files beside it.

import DiptychCore
import DiptychImage
import DiptychKeyboard
import DiptychOutput
import DiptychLinux
import DiptychRender
import DiptychText
import DiptychVNC
import DiptychWire
import Glibc
import Logging

/// What the compositor starts with.
public struct CompositorConfiguration: Sendable {
    public var profile: DeviceProfile
    public var orientation: Orientation
    public var arrangement: Arrangement
    /// Listen on a socket for clients that connect themselves (launched apps always get their
    /// own inherited socket). With `socketPath` nil the first free default name is used.
    public var listen: Bool
    public var socketPath: String?
    /// How often one user's processes may connect: `connectBurst` at once, then
    /// `connectsPerSecond` a second (a connection past that is told why and closed).
    public var connectBurst = Compositor.connectBurst
    public var connectsPerSecond = Compositor.connectsPerSecond
    /// False for "Settings > Multitasking" off: every app full screen.
    public var multitasking: Bool
    /// Palm rejection while a pen is in use, and its hold-off in milliseconds.
    public var palmRejection: PalmRejection.Mode = .penPriority
    public var penHoldoff: UInt64 = 90
    /// Resolution-scaling emulation: the panel size the logical screen is scaled onto.
    public var emulateOn: Size?
    /// The output's rotation on the panel.
    public var outputRotation: OutputRotation = .none
    /// Tint repainted regions (a debugging aid).
    public var debugDamage = false
    /// Draw the status bar.
    public var statusBar = true
    /// A headless second screen of this many pixels.
    public var secondScreen: Size?
    /// Whether launched apps that go away are started again.
    public var relaunch: RelaunchPolicy = .never
    /// The status bar's time, when fixed (`render` shows 09:41, as a scenario starts);
    /// otherwise the virtual clock in a scenario and the local time live.
    public var statusBarTime: String?
    /// The status bar's title (nil: the device profile's, e.g. "iPad"; "" for none).
    public var statusBarTitle: String?
    /// The battery the status bar shows.
    public var battery: BatterySource = .none
    /// How long before the vblank frames are composed (on an output that shows frames at its
    /// vblank: a panel, or headless with a simulated refresh).
    public var repaintWindow: RepaintWindow = .auto
    /// A headless output made by the compositor shows its frames at a simulated vblank of this
    /// rate (nil: at once, as `render` and scenarios want).
    public var headlessRefreshMillihertz: Int?
    /// The keymap's names (unset parts from `XKB_DEFAULT_*`, then `us`), and how keys repeat.
    public var keymap = KeymapNames()
    public var keyRepeat = KeyRepeat()
    /// The on-screen keyboard's languages (`keyboard-layouts`; none: US English); the first
    /// types first, the globe key takes the next.
    public var keyboardLanguages: [KeyboardLanguage] = []
    /// iOS's Reduce Motion: moves not under the finger (settles, rotation, a Picture in Picture
    /// window growing or shrinking) become short cross-fades.
    public var reduceMotion = false
    /// When the pointer's cursor shows.
    public var cursor = CursorMode.auto
    /// Screen power: blank after this many ms without input (nil: not for idleness), during
    /// the schedule's periods, and how.
    public var idleTimeout: UInt64?
    public var blankSchedule: BlankSchedule?
    public var blank = BlankMode.dpms
    /// A scenario's local time of the week at its start (its status bar and a blank schedule
    /// read it; nil: a Monday at 09:41).
    public var clock: WeekTime?
    /// The most PSS each role's launched app tree may hold (bytes), and how often it is
    /// sampled (ms).
    public var memoryLimits: [Role: Int] = [:]
    public var memorySampleInterval: UInt64 = 60_000

    public init(profile: DeviceProfile, orientation: Orientation, arrangement: Arrangement, listen: Bool = true, socketPath: String? = nil, multitasking: Bool = true) {
        self.profile = profile
        self.orientation = orientation
        self.arrangement = arrangement
        self.listen = listen
        self.socketPath = socketPath
        self.multitasking = multitasking
    }
}

/// A runtime failure that is not the user's input: exit status 1.
public struct CompositorError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What the host running the compositor gives it: how to switch VT (the seat's), where a second
/// screen comes from when the card's connectors change, and, for measurements, who is told of
/// every commit (the app and its stamp) and of every frame that reached the main screen (the
/// stamp of the newest commit it shows, and its vblank in monotonic ns).
public final class CompositorHooks {
    /// Who records frames (the live figures, a scenario's or the profiler's records), told
    /// what each frame did; nil: nobody.
    public weak var frameObserver: (any FrameObserver)?
    /// Switches the console to a VT (Ctrl+Alt+Fn).
    public var switchVT: ((Int) -> Void)?
    /// Looks for a second screen (the DRM backend's second connector); nil when there is none.
    public var secondScreen: (() -> (any OutputBackend)?)?
    public var onCommit: ((ClientID, UInt64) -> Void)?
    public var onFrameShown: ((UInt64, UInt64) -> Void)?
    public init() {}
}

/// The compositor. Single-threaded: create it and call everything on one thread.
public final class Compositor {
    public let configuration: CompositorConfiguration
    /// What is shown where: the shell, palm rejection, Picture in Picture, the cross-fade, the
    /// apps waiting to be activated (`Desk.swift`).
    var desk: Desk
    /// The multitasking state: roles, arrangement, gestures.
    public var shell: Shell { desk.shell }
    /// Which finger touches get through while a pen is in use.
    public var palm: PalmRejection { desk.palm }
    /// How the logical screen lands on the panel.
    public var geometry: OutputGeometry { main.geometry }
    /// The main screen: its backend, damage and frames.
    let main: Output
    /// What the host gives: VT switches, second screens, observers of commits and frames.
    public let hooks = CompositorHooks()
    /// Asks for a frame: something changed the picture (a commit, the layout, input, the
    /// output). The live loop draws it as soon as the output can take it.
    func scheduleFrame() { main.wantFrame() }
    /// Frames the live loop found wanted though none was asked for (debug builds look on every
    /// idle turn): a place that changes the picture without `scheduleFrame`. Zero, or a bug.
    public var unscheduledFrames: Int { main.unscheduledFrames }
    /// Who records frames (the live figures, a scenario's or the profiler's records), told
    /// what each frame did; nil: nobody.
    public var frameObserver: (any FrameObserver)? {
        get { hooks.frameObserver }
        set { hooks.frameObserver = newValue }
    }
    /// What the last frame drawn repainted since the one before (nil: everything).
    public var lastFrameDamage: Region? { main.drawing }
    /// The bytes the chrome's pictures (the keyboard's keys and labels among them) hold now.
    public var chromeBytes: Int { renderer.chrome.bytes }
    /// The configured layout.
    public var layout: Layout { desk.shell.layout }
    /// Where frames go. Without emulation its size is the logical screen in pixels.
    public var backend: any OutputBackend { main.backend }
    /// The last frame drawn.
    public var output: PixelImage { backend.lastFrame }
    public let logger: Logger
    /// The socket path clients can connect to, if listening.
    public var socketPath: String? { listener?.path }
    /// When set, the compositor's clock (milliseconds): scenarios play in virtual time.
    public var virtualTime: UInt64? {
        get { clockOverride }
        set { clockOverride = newValue }
    }
    /// Stored where no other module reaches it, so that reading the clock (many times a frame)
    /// needs no run-time exclusivity check.
    private var clockOverride: UInt64?
    /// The clock of the policies that count time between events: the hello deadlines, the
    /// connection budget, the supervision's back-off, the log limiter. Monotonic; a test sets it
    /// and moves it (`PolicyClock.set`, `advance`) to play those policies at its own speed,
    /// driving the compositor with `run` or `dispatch` (checked at least every 10 ms).
    public let policyClock = PolicyClock()
    /// Admit apps to the shell as soon as they say hello. When false, they wait for
    /// `admitWaitingApps()`, so a start-up does not depend on which app spoke first.
    public var admitsAtHello: Bool {
        get { admission.atHello }
        set { admission.atHello = newValue }
    }
    /// How long an app may take to draw for a configure before it is activated anyway.
    public static let activationTimeout: UInt64 = 250
    /// How long the apps on screen keep their configures for an app that joined and has not
    /// drawn yet (milliseconds).
    public static let newcomerWait: UInt64 = 500
    let loop: Epoll
    /// Wakes the loop at a wanted frame's deadline (nanosecond precision, as epoll's timeout
    /// has not).
    let repaintTimer: TimerDescriptor
    /// The socket apps that connect themselves use, if listening, and the connections on it
    /// that have not said hello yet.
    let listener: Listener?
    /// Who gets in, and when: the hello deadlines, the budgets, admission at hello, the
    /// configures held for a newcomer (`Admission.swift`).
    let admission: Admission
    /// Launched apps relaunched so far (after they exited or crashed).
    public var relaunches: Int { relaunchesByRole.values.reduce(0, +) }
    /// Icons scaled so far (each costs the loop a downscale).
    var iconsTaken: Int { admission.iconsTaken }
    /// The connected apps, and the numbers handed out to them.
    let clients = ClientRegistry()
    let renderer: PixmanRenderer
    /// The VNC server (`vnc`), if one runs.
    var vnc: VNCServer?
    /// Why an app launched for a role went away, for error messages.
    public var disconnections: [Role: String] { clients.disconnections }
    /// The most recent protocol errors sent (client label and error), oldest first; at most
    /// `protocolErrorLimit` are kept, however long the compositor runs.
    public var protocolErrors: [(client: String, error: ProtocolError)] { clients.protocolErrors }
    public static let protocolErrorLimit = ClientRegistry.protocolErrorLimit
    /// Frames presented so far.
    public var frameCount: Int { Int(main.frames) }
    /// Descriptors watched for the caller (signals, the seat).
    let watchers = Watchers()
    /// The input sources and what reading them cost since the last frame.
    let input = InputSources()
    /// The second physical screen, if there is one (attached and let go in
    /// `Compositor+SecondScreen.swift`, through `secondScreenChanged`).
    private(set) var secondScreen: SecondScreen?
    /// Text input between turns: whether the keyboard stepped aside, the hardware keyboard
    /// that typed last, what the apps were told of the keyboard's frame (one `keyboardFrame` an
    /// app a turn, the newest), whether an app's text input changed.
    let textRelay = TextInputRelay()
    /// The apps' menu and alert requests: pieces still coming, the rate they may come at,
    /// their layouts (the panes they came in are the desk's).
    let presentationRequests = PresentationRequests()
    /// The launched apps, kept to be relaunched, the candidates of `set-app`, the relaunch
    /// counts (`Compositor+Supervision.swift`).
    let supervision: Supervision
    /// Whether the screen is blank, and the gesture that woke it.
    let screen = ScreenState()
    /// The apps' memory: when it is sampled next, the apps past their limits.
    let memoryWatch = MemoryWatch()
    /// Relaunches by role (the apps that came back after exiting, or were restarted).
    public var relaunchesByRole: [Role: Int] { supervision.relaunchesByRole }
    /// The apps the kernel killed past their memory limit, by role.
    public var oomKillsByRole: [Role: Int] { supervision.oomKillsByRole }
    /// The keyboard: its keymap, the keys the focused app was told, the key repeating.
    let keys: KeyInput
    /// Log lines that could repeat without bound, held to a few per kind.
    let logLimiter = LogLimiter()

    /// The second screen came or went (`Compositor+SecondScreen.swift`).
    func secondScreenChanged(_ s: SecondScreen?) { secondScreen = s }

    /// A compositor on `backend` (a panel: the logical screen is fitted to it), or on a new
    /// headless backend that follows the logical screen (or `emulateOn`).
    public init(configuration: CompositorConfiguration, backend: (any OutputBackend)? = nil, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        admission = Admission(connectBudget: ConnectBudget(burst: max(1, configuration.connectBurst), perSecond: max(1, configuration.connectsPerSecond)))
        _ = try LayoutEngine.layout(profile: configuration.profile, orientation: configuration.orientation, arrangement: configuration.arrangement)
        var shell = Shell(
            profile: configuration.profile, orientation: configuration.orientation, arrangement: configuration.arrangement,
            multitasking: configuration.multitasking)
        shell.reduceMotion = configuration.reduceMotion
        desk = Desk(
            shell: shell,
            palm: PalmRejection(mode: configuration.palmRejection, holdoff: configuration.penHoldoff))
        desk.setCursorMode(configuration.cursor)
        desk.setLanguages(configuration.keyboardLanguages)
        screen.power = ScreenPower(idleTimeout: configuration.idleTimeout, schedule: configuration.blankSchedule)
        screen.mode = configuration.blank
        memoryWatch.limits = configuration.memoryLimits
        supervision = Supervision(policy: configuration.relaunch)
        let keymaps = try Self.keymaps(configuration.keymap, languages: configuration.keyboardLanguages, logger)
        keys = KeyInput(keymap: keymaps.fixed, repetition: configuration.keyRepeat)
        keys.use(keymaps.perLanguage, fixed: keymaps.fixed, current: 0)
        let logical = configuration.profile.pixelSize(configuration.orientation)
        let fit = (panel: backend?.size ?? configuration.emulateOn, rotation: configuration.outputRotation)
        let panel = Output.geometry(logical: logical, panel: fit.panel, rotation: fit.rotation).panel
        let headless = try configuration.headlessRefreshMillihertz.map { try HeadlessBackend(size: panel, refreshMillihertz: $0) } ?? HeadlessBackend(size: panel)
        main = Output(backend: backend ?? headless, logical: logical, fit: fit, window: configuration.repaintWindow)
        loop = try Epoll()
        repaintTimer = try TimerDescriptor()
        try loop.add(repaintTimer.fd.rawValue, token: LoopToken.repaintTimer.rawValue)
        ignoreBrokenPipes()
        if configuration.listen {
            let l = try Listener(path: configuration.socketPath)
            try loop.add(l.socket.rawValue, token: LoopToken.listener.rawValue)
            listener = l
        } else {
            listener = nil
        }
        for fd in main.backend.eventDescriptors { try loop.add(fd, token: LoopToken.output(fd).rawValue) }
        renderer = PixmanRenderer(chrome: ChromeCache(typesetter: Self.typesetter(logger)))
        if let size = configuration.secondScreen { try attachSecondScreen(HeadlessBackend(size: size)) }
    }

    /// The chrome's font (FreeType), or nil, said once, when none can be read: text is then
    /// drawn in the bitmap font.
    private static func typesetter(_ logger: Logger) -> Typesetter? {
        do {
            return try Typesetter.standard(override: Files.environment("DIPTYCH_FONT"))
        } catch {
            logger.warning("status bar and placeholder names in the bitmap font: \(error)")
            return nil
        }
    }

    /// Letting go of a compositor never waits: its sessions are closed and the apps it
    /// launched are killed (call `shutdown` first to give them a grace period).
    deinit {
        for c in clients.all { c.close(reason: "the compositor went away") }
        launcher.kill()
    }


    /// The compositor's clock in milliseconds: virtual time in a scenario, else monotonic.
    public var now: UInt64 { virtualTime ?? MonotonicClock.milliseconds }

    /// Closes every client connection and stops the apps this compositor launched (SIGTERM,
    /// then SIGKILL for one that does not exit within `graceMilliseconds`).
    public func shutdown(graceMilliseconds: Int = 2000) {
        supervision.shutDown()
        stopVNC()
        flushClients()
        for c in clients.inOrder {
            c.setAdmitted(at: nil)
            c.close(reason: "the compositor is shutting down")
        }
        launcher.close(graceMilliseconds: graceMilliseconds)
        // What the apps left behind (their orphans, adopted by `run`) goes too.
        if Orphans.adopting { Orphans.endAll(graceMilliseconds: 500) }
    }

    // MARK: - Clients

    func register(_ socket: consuming FileDescriptor, id: ClientID, role: Role?, label: String) throws(SystemError) -> ClientSession {
        // Weak: sessions closed by the compositor's deinit must not call back into it.
        let session = ClientSession(id: id, socket: socket, role: role, label: label, loop: loop) { [weak self] s, end in
            self?.sessionEnded(s, end)
        }
        try loop.add(session.connection.socket.rawValue, token: session.token.rawValue)
        session.connection.onTableFull = { [weak self] in self?.descriptorTableFull() }
        clients.add(session)
        return session
    }

    /// Starts an app as a separate process holding one end of a socket pair as fd 3, asking
    /// for `role`.
    ///
    /// - Parameter eventLog: a file to append every event the compositor sends the app to,
    ///   one JSON object per line (for an app that does not log its events itself; the demo
    ///   apps do, with their state).
    public func launch(_ arguments: [String], role: Role, label: String, eventLog: String? = nil) throws {
        let id = clients.newClientID()
        let socket = try launcher.launch(arguments, role: role, label: label, client: id, socketPath: socketPath)
        for failure in launcher.takeFailures() { logger.warning("system error: \(failure)") }
        let session = try register(socket, id: id, role: role, label: label)
        session.connection.eventLog = eventLog
        let now = policyClock.milliseconds
        supervision.launched(arguments, role: role, label: label, eventLog: eventLog, at: now)
        logger.debug("launched app", metadata: ["client.id": "\(id)", "client.pid": "\(launcher.app(role)?.process.pid ?? -1)", "client.role": "\(role.rawValue)", "client.app": "\(label)"])
    }

    /// The session holding `role`, if any.
    func session(_ role: Role) -> ClientSession? { desk.app(role).flatMap { session($0) } }

    func session(_ app: AppID) -> ClientSession? { clients[ClientID(rawValue: app.rawValue)] }

    /// Admits apps waiting since hello, primary role first, so the start-up layout is the
    /// same whichever app spoke first.
    public func admitWaitingApps() {
        let waiting = clients.all.filter { $0.name != nil && !$0.admitted }.sorted { a, b in
            (a.launchRole == .secondary ? 1 : 0, a.id.rawValue) < (b.launchRole == .secondary ? 1 : 0, b.id.rawValue)
        }
        // Every app joins the shell before anything is sent, so each first configure is
        // already the final start-up layout.
        var effects: [ShellEffect] = []
        for c in waiting {
            if let e = join(c) { effects += e }
        }
        apply(effects, byUser: waiting.allSatisfy { $0.launchRole != nil })
    }

    /// Adds an app to the shell; nil (and a protocol error) when both roles are taken.
    func join(_ c: ClientSession) -> [ShellEffect]? {
        // An app the operator set takes the place of the one it replaces; a relaunched app
        // takes its predecessor's.
        if let effects = takeOver(c) ?? rejoin(c) {
            c.setAdmitted(at: now)
            return effects
        }
        var role = c.launchRole ?? .primary
        if c.launchRole == nil {
            // The roles of launched apps are theirs, whoever connects first: an app that
            // connects by itself takes a role that is free and not waiting for its launched app.
            let reserved = Set(clients.all.filter { $0.id != c.id && !$0.admitted }.compactMap(\.launchRole))
            guard let free = [Role.primary, .secondary].first(where: { desk.app($0) == nil && !reserved.contains($0) }) else {
                c.fail(ProtocolError(.badState, "no role is free: the compositor shows two apps, or keeps their roles for the apps it launched"))
                return nil
            }
            role = free
        }
        let effects = desk.add(c.app, preferring: role, requiresFullScreen: c.requiresFullScreen)
        guard desk.shell.primary == c.app || desk.shell.secondary == c.app else {
            c.fail(ProtocolError(.badState, "the compositor already shows two apps"))
            return nil
        }
        c.setAdmitted(at: now)
        return effects
    }

    /// A session ended: it leaves the shell (its partner takes the screen) and is forgotten.
    private func sessionEnded(_ c: ClientSession, _ end: SessionEnd) {
        if case .violation(let error) = end {
            warnLimited("violation", "client error: protocol violation, disconnecting", ["client.id": "\(c.id)", "client.app": "\(c.label)", "error.code": "\(error.code.name)", "error.message": "\(error.message)"])
        }
        clients.remove(c, end)
        admission.helloGate.left(c.id.rawValue)
        // Its pane shows its placeholder, or the partner takes the screen.
        scheduleFrame()
        desk.forgetActivation(c.app)
        // Its Picture in Picture window goes with it, and its hold on the screen.
        desk.closePiP(c.app)
        setIdleInhibit(c.app, false)
        logger.debug("client disconnected", metadata: ["client.id": "\(c.id)", "client.app": "\(c.label)", "reason": "\(end)"])
        // A launched app that may be relaunched keeps its place until that is known.
        let kept = supervisedSessionEnded(c)
        if c.admitted {
            c.setAdmitted(at: nil)
            if !kept { apply(desk.remove(c.app)) }
        }
        // A newcomer that leaves before drawing: what waited for it goes out now.
        sendDeferredConfigures()
    }
}

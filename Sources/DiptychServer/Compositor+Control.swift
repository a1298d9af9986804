// SPDX-License-Identifier: MIT
// What `diptych ctl` may ask of a running compositor: its status (device, orientation,
// arrangement, each pane's app with its process), a screenshot (the current scene composited
// again in memory, never read back from the screen), its statistics (JSON, or Prometheus's
// text format for node-exporter's textfile collector), a new orientation, an app restarted.

import DiptychCore
import DiptychRender
import DiptychImage
import DiptychLinux
import Glibc

extension Compositor {
    /// The processes of the apps the compositor launched (a control connection from one of
    /// them, or from their descendants, is refused).
    public var launchedProcessIDs: [Int32] { launcher.apps.map(\.process.pid) }

    /// The status `ctl status --json` prints: `uptimeSeconds` since start, the compositor's
    /// resident memory; `loop`, the live loop's scheduling.
    public func controlStatus(uptimeSeconds: Double, loop: RealtimeLoop? = nil) -> JSONValue {
        let panes: [JSONValue] = [Role.primary, .secondary].map { role in
            let launched = launcher.app(role)
            let state = session(role).map { c in
                desk.shell.pane(of: c.app) == nil ? "background" : c.hasCommittedForConfigure ? "shown" : "drawing"
            } ?? (launched != nil ? "starting" : "none")
            return .object([
                ("role", .string(role.rawValue)), ("app", label(role).map { .string($0) } ?? .null),
                ("pid", launched.map { .int(Int($0.process.pid)) } ?? .null), ("state", .string(state)),
                ("relaunches", .int(relaunchesByRole[role] ?? 0)), ("memory_bytes", memoryBytes(role).map { .int($0) } ?? .null),
                ("memory_source", memorySource(role).map { .string($0) } ?? .null),
                ("oom_kills", .int(supervision.oomKillsByRole[role] ?? 0)),
            ])
        }
        // A limit that samples (no delegated cgroup) says so, and why.
        let note: [(String, JSONValue)] = memoryWatch.limits.isEmpty || launcher.cgroup != nil ? [] : [("memory_note", .string(
            "memory-limit is held by sampling every minute (PSS, or RSS where an app's PSS cannot be read), not by the kernel: \(memoryWatch.noCgroupReason)"))]
        return .object([
            ("device", .string(desk.shell.profile.name)), ("orientation", .string(desk.shell.orientation.rawValue)),
            ("rotate", .int(geometry.rotation.rawValue)), ("arrangement", .string(desk.shell.arrangement.rawValue)),
            ("blanked", .bool(isBlanked)),
            ("uptime_s", .double((uptimeSeconds * 10).rounded() / 10)), ("memory_bytes", .int(Self.residentBytes() ?? 0)),
            ("relaunches", .int(relaunches)),
            ("outputs", .array([.object([("width", .int(geometry.panel.width)), ("height", .int(geometry.panel.height))])])),
            ("kernel", .string(BoxKernel.current.rawValue)),
            ("panes", .array(panes)),
            // Who comes first for the CPU: the loop's scheduling, and how the apps share.
            ("cpu", .object([
                ("loop", .string(loop?.scheme ?? "normal")), ("loop_why", (loop?.why).map { .string($0) } ?? .null),
                ("loop_rests", .int(loop?.rests ?? 0)),
            ] + launcher.cpu.status)),
            // The keyboard's languages, the one in use, and the hardware keymap typing now.
            ("keyboard", .object([
                ("layout", .string(desk.languages[desk.languageIndex].name)), ("layouts", .array(desk.languages.map { .string($0.name) })),
                ("keymap", .string(keymapNames)),
            ])),
            ("vnc", vncStatus ?? .null),
        ] + note)
    }

    /// The compositor's resident memory in bytes (`/proc/self/statm`).
    public static func residentBytes() -> Int? {
        guard let bytes = try? Files.read("/proc/self/statm", limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * MemoryMapping.pageSize
    }

    /// The size in pixels of screen `screen` (1 the main screen's panel, 2 the second screen),
    /// nil when there is no such screen.
    public func screenSize(_ screen: Int) -> Size? {
        if screen == 1 { return geometry.panel }
        guard screen == 2, let s = secondScreen, s.backend.isConnected else { return nil }
        return s.backend.size
    }

    /// The scene as it is now, composited again straight into `image` (of `screenSize`'s size:
    /// a screenshot's memfd), without the pointer's cursor: the main screen (1), or the second
    /// screen (2: its holder's buffer, or the main screen mirrored, fitted to it). False when
    /// there is no such screen or `image` is not its size.
    public func screenshot(screen: Int, into image: PixelImage) -> Bool {
        guard let size = screenSize(screen), size == Size(width: image.width, height: image.height) else { return false }
        if screen == 2 { return secondScreenImage(into: image) }
        compose(sceneGraph(cursor: false), transform: geometry.transform, into: image)
        return true
    }

    /// A screenshot into an image of its own (see `screenshot(screen:into:)`).
    public func screenshot(screen: Int) -> PixelImage? {
        guard let size = screenSize(screen) else { return nil }
        let image = PixelImage(width: size.width, height: size.height)
        return screenshot(screen: screen, into: image) ? image : nil
    }
}

/// The figures `ctl stats` prints.
public enum ControlStatistics {
    /// `figures` as JSON: frames, late frames, frame-time and input-latency quantiles (ms).
    public static func json(_ figures: FrameStatistics, blanked: Bool = false) -> JSONValue {
        func quantiles(_ h: FrameStatistics.Histogram) -> JSONValue {
            .object([0.5, 0.9, 0.99].map { q in ("p\(Int(q * 100))", h.quantile(q).map { .double($0) } ?? .null) })
        }
        return .object([
            ("frames", .int(figures.frames)), ("late_frames", .int(figures.lateFrames)), ("frame_ms", quantiles(figures.frameTimes)),
            ("input_to_frame_ms", quantiles(figures.inputLatencies)), ("relaunches", .int(figures.relaunches)),
            ("resident_memory_bytes", .int(Compositor.residentBytes() ?? 0)), ("blanked", .bool(blanked)),
        ])
    }

    /// `figures` in Prometheus's text exposition format (seconds, as its conventions say).
    public static func prometheus(
        _ figures: FrameStatistics, protocolErrors: Int = 0, blanked: Bool = false, relaunches: [Role: Int] = [:], oomKills: [Role: Int] = [:], vncClients: Int = 0
    ) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for s in samples { out += "\(name)\(s.labels) \(format(s.value))\n" }
        }
        func summary(_ h: FrameStatistics.Histogram) -> [(labels: String, value: Double)] {
            [0.5, 0.9, 0.99].compactMap { q in h.quantile(q).map { ("{quantile=\"\(q)\"}", $0 / 1000) } }
        }
        metric("diptych_frame_seconds", "summary", "Time from a frame's first input (or start) to its buffer handed to the output.", summary(figures.frameTimes))
        out += "diptych_frame_seconds_sum \(format(figures.frameTimes.sum / 1000))\ndiptych_frame_seconds_count \(figures.frameTimes.count)\n"
        metric("diptych_frames_total", "counter", "Frames drawn.", [("", Double(figures.frames))])
        metric("diptych_late_frames_total", "counter", "Frames that took longer than their refresh.", [("", Double(figures.lateFrames))])
        metric("diptych_input_to_frame_seconds", "summary", "Input handled to the frame that showed it.", summary(figures.inputLatencies))
        out += "diptych_input_to_frame_seconds_sum \(format(figures.inputLatencies.sum / 1000))\ndiptych_input_to_frame_seconds_count \(figures.inputLatencies.count)\n"
        metric("diptych_app_relaunches_total", "counter", "Apps relaunched after they exited or were restarted, by role.",
               [Role.primary, .secondary].map { ("{role=\"\($0.rawValue)\"}", Double(relaunches[$0] ?? 0)) })
        metric("diptych_app_oom_kills_total", "counter", "Apps the kernel killed past their memory limit (in their cgroup), by role.",
               [Role.primary, .secondary].map { ("{role=\"\($0.rawValue)\"}", Double(oomKills[$0] ?? 0)) })
        metric("diptych_protocol_errors_total", "counter", "Apps disconnected for breaking the protocol.", [("", Double(protocolErrors))])
        metric("diptych_resident_memory_bytes", "gauge", "The compositor's resident memory.", [("", Double(Compositor.residentBytes() ?? 0))])
        metric("diptych_blanked", "gauge", "1 while the screen is blanked.", [("", blanked ? 1 : 0)])
        metric("diptych_vnc_clients", "gauge", "VNC viewers connected now.", [("", Double(vncClients))])
        return out
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

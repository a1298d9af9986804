// SPDX-License-Identifier: MIT
// `diptych profile`: frame times per stage on real workloads, with the baselines measured in
// the same run on the same scene.

import DiptychCore
import DiptychServer
import DiptychLinux
import DiptychImage
import DiptychOutput
import DiptychRender
import Logging

/// A built-in profiling workload.
public enum ProfileWorkload: String, CaseIterable, Sendable {
    /// `ipad-pro` split-2/3, both apps committing a full-damage buffer every frame.
    case splitStatic = "split-static"
    /// The divider sweeping back and forth, apps idle, snapshots shown.
    case dividerDrag = "divider-drag"
    /// `ipad-pro` on a 2048×1536 panel, both apps animating.
    case emulated
    /// A Slide Over swiped in from the right edge, following the finger, and settling; then
    /// dragged out and sliding off; over and over. Apps idle.
    case slideOverIn = "slide-over-in"
    /// The divider dragged past the middle between the splits and released, settling at the
    /// other split; back and forth. Apps idle.
    case snap
    /// `ipad-pro` split-2/3, both apps idle, the primary (`tv --pip`) playing in a Picture in
    /// Picture window at 30 frames a second: the figures are those of the frames that repaint.
    case pip
    /// Pen-to-screen latency through a real app on the wall clock, with the repaint window and
    /// as soon as ready (`LatencyProfiler`).
    case latency
    /// Whether an app (`--app`) keeps up with `frameDone` on the wall clock, with its
    /// allocations per frame (`ClientBenchmark`).
    case client
    /// `ipad-pro` split-2/3, notes the primary: its title tapped, the on-screen keyboard slides
    /// in, a key is pressed, its dismiss key tapped, it slides out; over and over. The figures
    /// are those of the frames where the keyboard moved, with the pixels a key press repaints.
    case keyboard
    /// The compositor's resident memory at idle and after rounds of transients (a Slide Over,
    /// a turn, the divider, the keyboard, a screenshot), on the wall clock (`MemoryBenchmark`).
    case memory

    /// Whether the workload measures motion: its figures are those of the frames in motion
    /// (`motion` set) that repaint something, against full-frame repaints of the same screen
    /// in the same run.
    var measuresMotion: Bool { self == .slideOverIn || self == .snap }

    /// Whether whole frames of the same screen are timed in the same run as the reference.
    var comparesToWholeFrames: Bool { measuresMotion || self == .pip || self == .keyboard }
}

/// Where profiled frames go.
public enum PresentMode: String, CaseIterable, Sendable {
    /// One image in memory (the headless output).
    case memory
    /// Two buffers shown in turn, as on a KMS output, paying what the DRM backend pays.
    case scanout
}

/// What a profiling run measured.
public struct ProfileResult {
    public var name: String
    public var records: [FrameRecord]
    public var output: Size
    public var peakResidentBytes: Int
    public var maxSnapshotBytes: Int
    public var traceEvents: [JSONValue]
    /// The blurred pictures drags made (each once per snapshot), and the mean time of one.
    public var blurs: (count: Int, meanMilliseconds: Double) = (0, 0)
    /// Emulation quality of the last frame against an exact area average (PSNR, dB): the
    /// frame as drawn and pixman's bilinear filter (the path before the box filter), over the
    /// whole frame and over the panes' interiors (output pixels whose area lies inside one
    /// surface: the filter alone, without the pane edges where each surface is drawn apart).
    public var quality: (drawn: Double, bilinear: Double, drawnInterior: Double, bilinearInterior: Double)?
    /// For `emulated`: each path of the area-average kernel this CPU runs, timed on every
    /// frame's operations alternately with pixman's bilinear (`FrameDriver.kernelBaselines`),
    /// with its PSNR against the exact area average; and a copy of the scaled sources, the
    /// memory's share of the work.
    public var kernels: [(kernel: BoxKernel, p50: Double, psnr: Double)] = []
    public var sourceCopyP50: Double?
    /// For a motion workload: the frames that ran (in motion or not), and the p50 of whole
    /// frames repainted on the same screen in the same run (the split-static reference).
    public var framesRun: Int?
    public var fullFrameP50: Double?
    /// The frames the figures are taken from (the frames in motion, for a motion workload).
    public var motionFrames: [String: Int] = [:]
    /// For `pip`: the window's area in output pixels.
    public var pipArea: Int?
    /// For `keyboard`: a key press's frame (p50): the region it repainted and the pixels the
    /// compositor wrote there (each layer: the keyboard, the key, its label), and the key's own.
    public var keyPress: (damage: Int, written: Int, key: Int)?
    /// For `keyboard`: its languages' popup, switches and cached images.
    public var languages: KeyboardFigures?

    /// The frames as `run` has them: it draws no frame when nothing changed (a settle's last
    /// steps can land on the pixels of the one before, a finger can rest), and the input it
    /// handled meanwhile counts in the next frame it draws.
    static func drawn(_ records: [FrameRecord]) -> [FrameRecord] {
        var kept: [FrameRecord] = []
        var carried = 0.0
        for var r in records {
            guard r.repaintedPixels > 0 else {
                carried += r.input
                continue
            }
            r.input += carried
            r.total += carried
            carried = 0
            kept.append(r)
        }
        return kept
    }

    /// The `q` quantile (0…1) of `values`, nearest rank.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = max(1, Int((q * Double(sorted.count)).rounded(.up)))
        return sorted[min(rank, sorted.count) - 1]
    }

    func summary(_ values: [Double]) -> JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        return .object([
            ("p50_ms", r(Self.quantile(values, 0.5))), ("p90_ms", r(Self.quantile(values, 0.9))),
            ("p99_ms", r(Self.quantile(values, 0.99))), ("max_ms", r(values.max() ?? 0)),
        ])
    }

    public var totalP50: Double { Self.quantile(records.map(\.total), 0.5) }
    public var totalP99: Double { Self.quantile(records.map(\.total), 0.99) }
    public var pixmanP50: Double { Self.quantile(records.compactMap(\.pixman), 0.5) }
    public var freshPixmanP50: Double { Self.quantile(records.compactMap(\.freshPixman), 0.5) }
    /// The memcpy baseline: of the frames that repainted at least half the output, or else
    /// of copies timed apart from the frames.
    public var memcpyP50: Double {
        let perFrame = records.compactMap(\.memcpy)
        return Self.quantile(perFrame.count * 2 >= records.count ? perFrame : memcpyApart, 0.5)
    }
    /// Copies of a whole frame timed apart from the frames.
    public var memcpyApart: [Double] = []

    /// The report with the contract's binding keys, and more.
    public var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        let latencies = records.compactMap(\.inputLatency)
        let kernel: JSONValue = .string(BoxKernel.current.rawValue), kernels = kernelsJSON
        let sourceCopy: JSONValue = sourceCopyP50.map(r) ?? .null
        return .object([
            ("frames", .int(records.count)),
            ("output", .object([("width", .int(output.width)), ("height", .int(output.height))])),
            ("stages", .object([
                ("input", summary(records.map(\.input))), ("layout", summary(records.map(\.layout))),
                ("composite", summary(records.map(\.composite))), ("present", summary(records.map(\.present))),
                ("total", summary(records.map(\.total))),
            ])),
            ("baseline", .object([
                ("pixman_p50_ms", r(pixmanP50)), ("memcpy_p50_ms", r(memcpyP50)), ("fresh_pixman_p50_ms", r(freshPixmanP50)),
            ])),
            ("ratio", .object([
                ("total_vs_pixman", r(pixmanP50 > 0 ? totalP50 / pixmanP50 : 0)),
                ("total_vs_memcpy", r(memcpyP50 > 0 ? totalP50 / memcpyP50 : 0)),
                ("total_vs_fresh_pixman", r(freshPixmanP50 > 0 ? totalP50 / freshPixmanP50 : 0)),
            ])),
            ("workload", .string(name)),
            ("kernel", kernel), ("kernels", kernels), ("source_copy_p50_ms", sourceCopy),
            ("motion", fullFrameP50.map { full in
                .object([
                    ("frames_run", .int(framesRun ?? records.count)),
                    ("frames_by_motion", .object(motionFrames.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                    ("full_frame_p50_ms", r(full)),
                    ("total_p99_vs_full_frame", r(full > 0 ? totalP99 / full : 0)),
                ])
            } ?? .null),
            ("pip", pipJSON),
            ("keyboard", keyboardJSON),
            ("quality", quality.map { q in
                .object([
                    ("psnr_db", r(q.drawn)), ("psnr_bilinear_db", r(q.bilinear)),
                    ("interior_psnr_db", r(q.drawnInterior)), ("interior_psnr_bilinear_db", r(q.bilinearInterior)),
                    ("reference", .string("exact area average")),
                ])
            } ?? .null),
            ("apps", summary(records.map(\.apps))),
            ("latency", .object([
                ("events", .int(latencies.count)), ("p50_ms", r(Self.quantile(latencies, 0.5))), ("max_ms", r(latencies.max() ?? 0)),
            ])),
            ("repainted_px_p50", .int(Int(Self.quantile(records.map { Double($0.repaintedPixels) }, 0.5)))),
            ("page_faults_per_frame_p50", .int(Int(Self.quantile(records.compactMap { $0.pageFaults.map(Double.init) }, 0.5)))),
            ("memory", .object([
                ("peak_rss_mb", r(Double(peakResidentBytes) / 1_048_576)), ("snapshot_peak_bytes", .int(maxSnapshotBytes)), ("blurs", .int(blurs.count)), ("blur_ms", r(blurs.meanMilliseconds)),
            ])),
        ])
    }

    /// For `emulated`: every kernel path's figures.
    private var kernelsJSON: JSONValue {
        guard !kernels.isEmpty else { return .null }
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        let copy = sourceCopyP50 ?? 0
        return .array(kernels.map { k -> JSONValue in
            let vsPixman: JSONValue = r(pixmanP50 > 0 ? k.p50 / pixmanP50 : 0)
            let vsCopy: JSONValue = copy > 0 ? r(k.p50 / copy) : .null
            return .object([("kernel", .string(k.kernel.rawValue)), ("p50_ms", r(k.p50)), ("vs_pixman", vsPixman), ("psnr_db", r(k.psnr)), ("vs_source_copy", vsCopy)])
        })
    }

    /// For `pip`: the window's area, what the frames repainted, and their time against whole
    /// frames of the same screen.
    private var pipJSON: JSONValue {
        guard let area = pipArea else { return .null }
        let full = fullFrameP50 ?? 0
        let repainted = Int(Self.quantile(records.map { Double($0.repaintedPixels) }, 0.5))
        let ratio = full > 0 ? totalP50 / full : 0
        return .object([
            ("window_px", .int(area)), ("repainted_px_p50", .int(repainted)),
            ("full_frame_p50_ms", .double((full * 1000).rounded() / 1000)), ("total_p50_vs_full_frame", .double((ratio * 1000).rounded() / 1000)),
        ])
    }

    /// A short table for a terminal.
    public var text: String {
        var lines = ["\(name): \(records.count) frames at \(output.width)x\(output.height)", "stage       p50 ms   p90 ms   p99 ms   max ms"]
        for (stage, values) in [
            ("input", records.map(\.input)), ("layout", records.map(\.layout)), ("composite", records.map(\.composite)),
            ("present", records.map(\.present)), ("total", records.map(\.total)), ("(apps)", records.map(\.apps)),
        ] {
            func f(_ v: Double) -> String {
                let s = String((v * 1000).rounded() / 1000)
                return String(repeating: " ", count: max(0, 9 - s.count)) + s
            }
            lines.append(stage.padding(10) + f(Self.quantile(values, 0.5)) + f(Self.quantile(values, 0.9)) + f(Self.quantile(values, 0.99)) + f(values.max() ?? 0))
        }
        func ms(_ v: Double) -> String { "\((v * 1000).rounded() / 1000) ms" }
        func ratio(_ base: Double) -> String { base > 0 ? "\(((totalP50 / base) * 100).rounded() / 100)" : "-" }
        lines.append("baseline p50: pixman alone \(ms(pixmanP50)), pixman on freshly drawn sources \(ms(freshPixmanP50)), memcpy of a frame \(ms(memcpyP50))")
        lines.append("ratio: total/pixman \(ratio(pixmanP50)), total/fresh pixman \(ratio(freshPixmanP50)), total/memcpy \(ratio(memcpyP50))")
        if let k = keyPress {
            lines.append("keyboard: \(records.count) frames with it moving; a key press repaints \(k.damage) px (the key is \(k.key) px), writing \(k.written) px there")
            if let languages { lines.append(languages.text) }
        }
        if let area = pipArea, let full = fullFrameP50 {
            let repainted = Int(Self.quantile(records.map { Double($0.repaintedPixels) }, 0.5))
            lines.append(
                "pip: \(records.count) frames repainting the window (\(area) px) of \(framesRun ?? records.count) run; repainted p50 \(repainted) px; whole-frame repaint p50 \(ms(full)); total p50/whole frame \(full > 0 ? String(((totalP50 / full) * 100).rounded() / 100) : "-")")
        } else if let full = fullFrameP50 {
            let kinds = motionFrames.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("motion: \(records.count) frames in motion repainting (\(kinds)) of \(framesRun ?? records.count) run; whole-frame repaint p50 \(ms(full)); total p99/whole frame \(full > 0 ? String(((totalP99 / full) * 100).rounded() / 100) : "-")")
        }
        if let q = quality {
            func db(_ v: Double) -> String { "\((v * 100).rounded() / 100) dB" }
            lines.append("emulation vs an exact area average: PSNR \(db(q.drawn)) (pixman bilinear \(db(q.bilinear))); pane interiors \(db(q.drawnInterior)) (bilinear \(db(q.bilinearInterior)))")
        }
        if !kernels.isEmpty {
            func x(_ v: Double, _ base: Double?) -> String { (base ?? 0) > 0 ? String(((v / base!) * 100).rounded() / 100) + "x" : "-" }
            lines.append("kernel paths (frames use \(BoxKernel.current.rawValue)), p50 of the frame's operations alternated with pixman bilinear (\(ms(pixmanP50))); copy of the scaled sources \(sourceCopyP50.map(ms) ?? "-"):")
            for k in kernels {
                lines.append("  \(k.kernel.rawValue.padding(7)) \(ms(k.p50).padding(10)) \(x(k.p50, pixmanP50)) pixman, \(x(k.p50, sourceCopyP50)) source copy, PSNR \((k.psnr * 100).rounded() / 100) dB")
            }
        }
        lines.append("page faults per frame p50 \(Int(Self.quantile(records.compactMap { $0.pageFaults.map(Double.init) }, 0.5)))")
        lines.append("peak resident \(peakResidentBytes / 1_048_576) MB, snapshots peak \(maxSnapshotBytes / 1_048_576) MB")
        if blurs.count > 0 { lines.append("blurred pictures: \(blurs.count) made, \(ms(blurs.meanMilliseconds)) each (once per snapshot, not per frame)") }
        return lines.joined(separator: "\n")
    }

    /// Chrome trace-event JSON (opens in Perfetto).
    public var traceJSON: String {
        JSONValue.object([("traceEvents", .array(traceEvents)), ("displayTimeUnit", .string("ms"))]).serialized
    }

    /// Frame times over the run as a picture, with the 60 Hz and 120 Hz budgets.
    public func plot() -> PixelImage {
        let w = 1200, h = 500, margin = 40
        let image = PixelImage(width: w, height: h)
        image.fill(Rect(x: 0, y: 0, width: w, height: h), color: RGB(red: 255, green: 255, blue: 255))
        let top = max(20.0, (records.map(\.total).max() ?? 0) * 1.2)
        func y(_ ms: Double) -> Int { h - margin - Int(Double(h - 2 * margin) * min(ms, top) / top) }
        let n = max(1, records.count)
        let barWidth = max(1, (w - 2 * margin) / n)
        var bars: [Rect] = [], apps: [Rect] = [], pixman: [Rect] = []
        for (i, r) in records.enumerated() {
            let x = margin + i * (w - 2 * margin) / n
            bars.append(Rect(x: x, y: y(r.total), width: barWidth, height: h - margin - y(r.total)))
            apps.append(Rect(x: x, y: y(r.total + r.apps), width: barWidth, height: max(0, y(r.total) - y(r.total + r.apps))))
            if let p = r.pixman { pixman.append(Rect(x: x, y: y(p) - 1, width: barWidth, height: 2)) }
        }
        image.fill(apps, color: RGB(red: 0xC8, green: 0xD8, blue: 0xF0))
        image.fill(bars, color: RGB(red: 0x1E, green: 0x3A, blue: 0x8A))
        image.fill(pixman, color: RGB(red: 0x3C, green: 0xC8, blue: 0x78))
        image.fill(Rect(x: margin, y: h - margin, width: w - 2 * margin, height: 1), color: RGB(red: 0, green: 0, blue: 0))
        image.fill(Rect(x: margin, y: margin, width: 1, height: h - 2 * margin), color: RGB(red: 0, green: 0, blue: 0))
        for (budget, color) in [(1000.0 / 60, RGB(red: 0xE0, green: 0x30, blue: 0x30)), (1000.0 / 120, RGB(red: 0xF0, green: 0x90, blue: 0x20))] where budget < top {
            image.fill(Rect(x: margin, y: y(budget), width: w - 2 * margin, height: 2), color: color)
        }
        return image
    }
}

extension String {
    func padding(_ n: Int) -> String { self + String(repeating: " ", count: max(0, n - count)) }
}

/// Runs profiling workloads.
public enum Profiler {
    /// Runs a built-in workload for `frames` frames (after 10 unrecorded warm-up frames).
    /// `command` gives the command line of an app.
    public static func run(
        _ workload: ProfileWorkload, frames: Int, present: PresentMode = .memory, tracing: Bool, logger: Logger, command: (String) throws -> [String]
    ) throws -> ProfileResult {
        if workload == .latency || workload == .client { throw CompositorError("the \(workload.rawValue) workload is measured on the wall clock apart") }
        let profile = try DeviceProfile.named("ipad-pro")
        var configuration = CompositorConfiguration(
            profile: profile, orientation: .landscape, arrangement: workload == .slideOverIn ? .full : .split23, listen: false)
        if workload == .emulated { configuration.emulateOn = Size(width: 2048, height: 1536) }
        let panel = configuration.emulateOn ?? profile.pixelSize(.landscape)
        let backend = present == .scanout ? HeadlessBackend(size: panel, scanout: true) : nil
        let compositor = try Compositor(configuration: configuration, backend: backend, logger: logger)
        defer { compositor.shutdown() }
        compositor.admitsAtHello = false
        let animate = workload == .dividerDrag || workload.measuresMotion || workload == .pip || workload == .keyboard ? "" : " --animate"
        if workload == .pip {
            try compositor.launch(try command("tv --pip"), role: .primary, label: "tv")
        } else if workload == .keyboard {
            try compositor.launch(try command("notes"), role: .primary, label: "notes")
        } else {
            try compositor.launch(try command("pattern:#336699" + animate), role: .primary, label: "pattern:#336699")
        }
        try compositor.launch(try command("pattern:#993366" + animate), role: .secondary, label: "pattern:#993366")
        compositor.virtualTime = 0
        try compositor.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)

        let driver = FrameDriver(compositor: compositor)
        driver.baselines = true
        driver.kernelBaselines = workload == .emulated
        driver.tracing = tracing
        let w = Double(compositor.layout.screen.width)
        let divider = Double(compositor.layout.divider?.x ?? 0) + 5
        let gesture = workload.measuresMotion ? MotionChoreography(workload, compositor: compositor) : nil
        var keys = KeyboardChoreography(compositor: compositor)
        var keyPresses: [(damage: Double, written: Double)] = [], keyArea = 0
        // Frames before the measured ones: the apps settle in (and a Picture in Picture window
        // grows out of tv's video).
        let warmup = 10 + (workload == .pip ? Int(PictureInPicture.growMilliseconds / ScenarioPlayer.frameInterval) + 2 : 0)
        for i in 0..<(frames + warmup) {
            let r = try driver.frame(at: UInt64(i) * ScenarioPlayer.frameInterval, record: i >= warmup) {
                if workload == .keyboard { return keys.input() }
                if let gesture { return gesture.input(frame: i) }
                guard workload == .dividerDrag else { return false }
                if i == 0 {
                    compositor.touch(id: 1, phase: .down, x: divider, y: 400)
                    return true
                }
                // A triangle sweep between 45% and 85% of the width, 2 s per round.
                let phase = Double(i % 120) / 60
                let x = w * (0.45 + 0.4 * (phase < 1 ? phase : 2 - phase))
                compositor.touch(id: 1, phase: .motion, x: x, y: 400)
                return true
            }
            if workload == .keyboard, keys.pressesNow, i >= warmup, let k = keys.pressedKey {
                let scale = compositor.shell.profile.scale
                keyPresses.append((Double((compositor.lastFrameDamage?.rects ?? []).reduce(0) { $0 + $1.width * $1.height }), Double(r.repaintedPixels)))
                keyArea = k.width * k.height * scale * scale
            }
        }
        var records = driver.records
        var fullFrames: [Double] = []
        if workload.comparesToWholeFrames {
            // The reference, in the same run: the same screen repainted whole, as split-static
            // repaints it every frame.
            for k in 0..<60 {
                compositor.redrawAll()
                let r = try driver.frame(at: UInt64(frames + warmup + k) * ScenarioPlayer.frameInterval, record: false) { false }
                fullFrames.append(r.total)
            }
            // The frames that repaint something, as `run` draws them (see `drawn`).
            records = ProfileResult.drawn(records)
            if workload == .keyboard {
                // The frames where the keyboard moved (came, slid, went).
                records = zip([nil] + records.map(\.keyboard), records).filter { $0.0?.frame != $0.1.keyboard?.frame }.map(\.1)
            } else if workload != .pip {
                records = records.filter { $0.motion != nil && (workload != .snap || $0.motion == "settle") }
            }
        }
        var result = ProfileResult(
            name: workload.rawValue, records: records, output: Size(width: compositor.output.width, height: compositor.output.height),
            peakResidentBytes: ProcessStats.peakResidentBytes, maxSnapshotBytes: driver.maxSnapshotBytes, traceEvents: driver.traceEvents)
        result.memcpyApart = driver.memcpySamples(30)
        result.blurs = compositor.blurCost
        if workload == .keyboard {
            result.keyPress = (Int(ProfileResult.quantile(keyPresses.map(\.damage), 0.5)), Int(ProfileResult.quantile(keyPresses.map(\.written), 0.5)), keyArea)
            result.languages = try KeyboardFigures.measure(compositor, driver: driver, from: frames + warmup + 60)
        }
        if workload == .pip {
            let scale = compositor.shell.profile.scale
            result.pipArea = compositor.pipFrames.reduce(0) { $0 + $1.width * $1.height * scale * scale }
        }
        if workload.comparesToWholeFrames {
            result.framesRun = driver.records.count
            result.fullFrameP50 = ProfileResult.quantile(fullFrames, 0.5)
            for r in records { result.motionFrames[workload == .keyboard ? "keyboard" : r.motion ?? "still", default: 0] += 1 }
        }
        if workload == .emulated {
            let t = compositor.geometry.transform
            let reference = compositor.drawWholeFrame(logical: true).areaAverage(to: compositor.geometry.panel, through: t)
            // Output pixels whose whole area maps inside one surface's visible rectangle.
            let interior = compositor.sceneGraph().surfaces.compactMap { n -> Rect? in
                guard let v = n.clip.intersection(n.imageRect) else { return nil }
                let x0 = Int((t.a * Double(v.minX) + t.tx).rounded(.up)), x1 = Int((t.a * Double(v.maxX) + t.tx).rounded(.down))
                let y0 = Int((t.d * Double(v.minY) + t.ty).rounded(.up)), y1 = Int((t.d * Double(v.maxY) + t.ty).rounded(.down))
                return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
            }
            let drawn = compositor.drawWholeFrame(), bilinear = compositor.drawWholeFrame(pixmanOnly: true)
            result.quality = (
                drawn.psnr(against: reference), bilinear.psnr(against: reference),
                drawn.psnr(against: reference, within: interior), bilinear.psnr(against: reference, within: interior)
            )
            result.kernels = BoxKernel.available.map { k in
                (k, ProfileResult.quantile(driver.kernelSamples[k] ?? [], 0.5), compositor.drawWholeFrame(kernel: k).psnr(against: reference))
            }
            result.sourceCopyP50 = ProfileResult.quantile(driver.sourceCopySamples, 0.5)
        }
        return result
    }

    /// Profiles a scenario as it plays.
    public static func run(scenario: Scenario, file: String, outputDirectory: String, tracing: Bool, logger: Logger,
        command: @escaping (AppCommandLine, String) throws -> (arguments: [String], logsItself: Bool)
    ) throws -> ProfileResult {
        let player = ScenarioPlayer(scenario: scenario, outputDirectory: outputDirectory, logger: logger, command: command)
        player.baselines = true
        player.tracing = tracing
        try player.play()
        let driver = player.driver!
        var result = ProfileResult(
            name: file, records: driver.records, output: Size(width: driver.compositor.output.width, height: driver.compositor.output.height),
            peakResidentBytes: ProcessStats.peakResidentBytes, maxSnapshotBytes: driver.maxSnapshotBytes, traceEvents: driver.traceEvents)
        result.memcpyApart = driver.memcpySamples(30)
        return result
    }
}

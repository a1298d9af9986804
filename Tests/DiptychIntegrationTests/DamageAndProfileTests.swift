// SPDX-License-Identifier: MIT
// Damage tracking with real apps (not timed), and the profiler's report, trace and plot.

import DiptychCore
import DiptychLinux
import DiptychImage
import DiptychRender
import DiptychServer
import DiptychTestSupport
import Logging
import Testing

struct DamageTests {
    func compositor(_ dir: String) throws -> Compositor {
        let config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .split23, listen: false)
        let c = try Compositor(configuration: config, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        c.admitsAtHello = false
        try c.launch([Harness.demo, "pattern:#336699"], role: .primary, label: "a")
        try c.launch([Harness.demo, "pattern:#993366"], role: .secondary, label: "b")
        c.virtualTime = 0
        try c.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        return c
    }

    @Test func aStaticFrameRepaintsNothing() throws {
        let c = try compositor(Harness.temporaryDirectory("damage"))
        defer { c.shutdown() }
        try c.roundTrip()
        c.repaint()
        #expect(c.lastFrameDamage == nil)  // the first frame draws everything
        try c.roundTrip()
        let stats = c.repaint()
        #expect(c.lastFrameDamage?.isEmpty == true)
        #expect(stats.compositedPixels == 0 && stats.filledPixels == 0)
    }

    @Test func aDividerDragRepaintsOnlyTheStripItSwept() throws {
        let c = try compositor(Harness.temporaryDirectory("damage"))
        defer { c.shutdown() }
        c.repaint()
        c.touch(id: 1, phase: .down, x: 699, y: 300)
        try c.roundTrip()  // the snapshots arrive
        c.repaint()
        c.touch(id: 1, phase: .motion, x: 689, y: 300)
        try c.roundTrip()
        c.repaint()
        // The divider moved 10 pt left: the strip from its new left edge to its old right edge;
        // each pane's pill (36 × 5 pt at its top centre), which moved with its pane; and each
        // pane's icon (60 pt, centred on its blurred picture), 5 pt over. The blurred pictures
        // themselves stay put.
        let d = try #require(c.lastFrameDamage)
        let pills = d.rects.filter { $0.maxY <= 22 }
        let icons = d.rects.filter { $0.minY >= 1536 / 2 - 60 - 2 && $0.maxY <= 1536 / 2 + 60 + 2 && !($0.minX >= (689 - 5) * 2 && $0.maxX <= (694 + 10) * 2) }
        let strip = d.rects.filter { !pills.contains($0) && !icons.contains($0) }
        #expect(strip.allSatisfy { $0.minX >= (689 - 5) * 2 && $0.maxX <= (694 + 10) * 2 }, "\(d.rects)")
        #expect(pills.allSatisfy { $0.minY >= 12 && $0.maxY <= 22 }, "\(d.rects)")
        #expect(icons.allSatisfy { $0.width <= 130 && $0.height <= 122 }, "\(d.rects)")
        #expect(d.area <= (10 + 10) * 2 * 1536 + 4 * 72 * 10 + 4 * 120 * 120)
        // Nothing moves, nothing is repainted.
        try c.roundTrip()
        c.repaint()
        #expect(c.lastFrameDamage?.isEmpty == true)
    }
}

struct ProfileCommandTests {
    @Test func jsonTraceAndPlot() throws {
        let dir = Harness.temporaryDirectory("profile")
        let r = try Harness.run([
            Harness.diptych, "profile", "--workload", "split-static", "--frames", "20", "--json",
            "--trace", "\(dir)/trace.json", "--plot", "\(dir)/plot.png",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect(json["frames"]?.intValue == 20)
        #expect(json["output"]?["width"]?.intValue == 2732 && json["output"]?["height"]?.intValue == 2048)
        for stage in ["input", "layout", "composite", "present", "total"] {
            for key in ["p50_ms", "p90_ms", "p99_ms", "max_ms"] {
                #expect(json["stages"]?[stage]?[key]?.doubleValue != nil, "\(stage).\(key)")
            }
        }
        #expect((json["stages"]?["total"]?["p50_ms"]?.doubleValue ?? 0) > 0)
        #expect((json["stages"]?["composite"]?["p50_ms"]?.doubleValue ?? 0) > 0)
        #expect((json["baseline"]?["pixman_p50_ms"]?.doubleValue ?? 0) > 0)
        #expect((json["baseline"]?["memcpy_p50_ms"]?.doubleValue ?? 0) > 0)
        #expect((json["ratio"]?["total_vs_pixman"]?.doubleValue ?? 0) > 0)
        #expect((json["ratio"]?["total_vs_memcpy"]?.doubleValue ?? 0) > 0)
        #expect((json["memory"]?["peak_rss_mb"]?.doubleValue ?? 0) > 0)
        #expect((json["baseline"]?["fresh_pixman_p50_ms"]?.doubleValue ?? 0) > 0)
        #expect((json["ratio"]?["total_vs_fresh_pixman"]?.doubleValue ?? 0) > 0)
        // Buffers are mapped once when registered, not per commit: a frame takes (almost) no
        // page faults once the apps' buffers have been seen (it was hundreds per frame).
        #expect((json["page_faults_per_frame_p50"]?.intValue ?? -1) >= 0)
        #expect((json["page_faults_per_frame_p50"]?.intValue ?? Int.max) <= 10)

        let trace = try JSONValue.parse(String(decoding: try Files.read("\(dir)/trace.json"), as: UTF8.self))
        let events = trace["traceEvents"]?.arrayValue ?? []
        #expect(events.contains { $0["ph"]?.stringValue == "X" && $0["name"]?.stringValue == "composite" })
        #expect(events.contains { $0["ph"]?.stringValue == "M" && $0["args"]?["name"]?.stringValue == "app pattern:#336699" })
        #expect(events.allSatisfy { $0["ts"] == nil || $0["ts"]!.doubleValue != nil })
        let plot = try PixelImage.readPNG(from: "\(dir)/plot.png")
        #expect(plot.width == 1200 && plot.height == 500)
    }

    @Test func dividerDragReportsLatencyAndSnapshots() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "divider-drag", "--frames", "30", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect((json["latency"]?["events"]?.intValue ?? 0) > 20)
        #expect((json["memory"]?["snapshot_peak_bytes"]?.intValue ?? 0) > 0)
        // The drag repaints a strip, not the screen.
        #expect((json["repainted_px_p50"]?.intValue ?? Int.max) < 2732 * 2048 / 4)
    }

    /// A Picture in Picture window playing at 30 frames a second over an idle split repaints
    /// about its own area, on about every other 60 Hz frame, and nothing else.
    @Test func pipRepaintsOnlyTheWindow() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "pip", "--frames", "40", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        let pip = try #require(json["pip"])
        let window = try #require(pip["window_px"]?.intValue), repainted = try #require(pip["repainted_px_p50"]?.intValue)
        // A quarter of the 2732 px screen wide, 16:9.
        #expect(window > 600 * 330 && window < 760 * 430, "\(window)")
        #expect(repainted >= window * 9 / 10 && repainted <= window * 11 / 10, "\(repainted) px repainted for a \(window) px window")
        let frames = try #require(json["frames"]?.intValue), run = try #require(json["motion"]?["frames_run"]?.intValue ?? 40)
        #expect(frames >= 15 && frames <= 25, "\(frames) of \(run) frames repainted")
    }

    /// The keyboard workload: the keyboard slides in and out over an idle split, and a key
    /// press repaints that key's rectangle and nothing else.
    @Test func theKeyboardWorkloadSlidesAndAKeyPressRepaintsTheKey() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "keyboard", "--frames", "120", "--json"], timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        let k = try #require(json["keyboard"])
        #expect((k["slide_frames"]?.intValue ?? 0) >= 30, "\(k)")
        let key = try #require(k["key_px"]?.intValue)
        #expect(key > 100 * 100 && k["key_press_damage_px_p50"]?.intValue == key, "\(k)")
    }

    /// Emulation on scanout-like buffers reports the filter's quality against an exact area
    /// average, and beats pixman's bilinear in the panes' interiors.
    @Test func emulatedOnScanoutReportsQuality() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "emulated", "--present", "scanout", "--frames", "4", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect(json["output"]?["width"]?.intValue == 2048 && json["output"]?["height"]?.intValue == 1536)
        let q = try #require(json["quality"])
        let drawn = try #require(q["psnr_db"]?.doubleValue), bilinear = try #require(q["psnr_bilinear_db"]?.doubleValue)
        let inner = try #require(q["interior_psnr_db"]?.doubleValue), innerBilinear = try #require(q["interior_psnr_bilinear_db"]?.doubleValue)
        #expect(drawn >= bilinear && inner > innerBilinear + 10 && inner > 45, "\(q)")
        let bad = try Harness.run([Harness.diptych, "profile", "--present", "mirror"])
        #expect(bad.status == 2 && bad.stderr.contains("mirror"), "\(bad.stderr)")
    }

    @Test func badWorkloadIsNamed() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "sprint"])
        #expect(r.status == 2 && ["'sprint'", "split-static", "divider-drag", "emulated"].allSatisfy { r.stderr.contains($0) }, "\(r.stderr)")
    }

    @Test func debugDamageTintsRepaintedRegions() throws {
        let plain = try play("drag-ipad")
        let dir = Harness.temporaryDirectory("debug-damage")
        let r = try Harness.run([Harness.diptych, "run", "--scenario", "\(repositoryRoot)/Assets/scenarios/drag-ipad.json", "--out", dir, "--debug-damage"])
        #expect(r.status == 0, "\(r.stderr)")
        let tinted = try PixelImage.readPNG(from: "\(dir)/after.png")
        #expect(!tinted.compare(to: try plain.image("after.png"), tolerance: 0).matches)
    }
}

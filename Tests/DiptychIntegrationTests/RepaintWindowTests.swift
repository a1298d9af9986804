// SPDX-License-Identifier: MIT
// Frames at a vblank: the headless output's simulated vblank, frameDone carrying the vblank a
// frame was shown at, and the latency workload's report. Nothing here asserts on how long
// anything took: only on the vblank grid and on what is reported.

@testable import DiptychServer
import DiptychCore
import DiptychImage
import DiptychOutput
import DiptychLinux
import DiptychTestSupport
import Glibc
import Logging
import Testing

struct RepaintWindowTests {
    /// Waits (up to 2 s) until `fd` is readable.
    func waitReadable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 2000) == 1
    }

    @Test func aSimulatedVblankShowsAFrameAtTheNextVblankAndTakesNoOtherBefore() throws {
        let output = try HeadlessBackend(size: Size(width: 64, height: 48), refreshMillihertz: 60_000)
        #expect(output.reportsPresentation && output.readyForFrame)
        let before = MonotonicClock.nanoseconds
        guard case .presented(let ms) = output.present(damage: nil) else { Issue.record("dropped"); return }
        let vblank = try #require(output.nextVblank(after: before))
        #expect(ms == vblank / 1_000_000 || ms == (vblank + 16_666_666) / 1_000_000)
        #expect(!output.readyForFrame)
        let fd = try #require(output.eventDescriptors.first)
        #expect(waitReadable(fd))
        let events = output.dispatch(fd)
        guard case .frameDone(let at)? = events.first else { Issue.record("no frameDone: \(events)"); return }
        #expect(at / 1_000_000 == ms)
        #expect(output.readyForFrame)
        // The next frame lands a whole number of refreshes later, on the same grid.
        _ = output.present(damage: nil)
        #expect(waitReadable(fd))
        guard case .frameDone(let next)? = output.dispatch(fd).first else { Issue.record("no second frameDone"); return }
        #expect(next > at && (next - at) % 16_666_666 < 2, "\(next - at) ns apart")
    }

    /// Live on a headless output at 60 Hz, an app drawing after every frameDone hears the
    /// vblanks its frames were shown at: on one grid, each with the refresh and a rising
    /// frame number.
    @Test func frameDoneCarriesTheVblankTheFrameWasShownAt() throws {
        let dir = Harness.temporaryDirectory("vblank")
        var config = CompositorConfiguration(profile: try DeviceProfile.named("ipad"), orientation: .landscape, arrangement: .full, listen: false)
        config.statusBarTime = "09:41"
        config.headlessRefreshMillihertz = 60_000
        let c = try Compositor(configuration: config, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        defer { c.shutdown() }
        try c.launch([Harness.demo, "pattern:#336699", "--animate", "--event-log", "\(dir)/events.jsonl"], role: .primary, label: "pattern")
        try c.waitUntilShownAppsHaveDrawn(timeoutMilliseconds: 20_000)
        let loop = RepaintLoop(compositor: c)
        try loop.run { (try? Harness.events("\(dir)/events.jsonl").filter { $0["event"]?.stringValue == "frameDone" }.count) ?? 0 >= 12 }
        let done = try Harness.events("\(dir)/events.jsonl").filter { $0["event"]?.stringValue == "frameDone" }
        let times = done.compactMap { $0["time"]?.intValue }, seqs = done.compactMap { $0["seq"]?.intValue }
        #expect(times.count >= 12)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "\(seqs)")
        // Milliseconds of vblanks 16.667 ms apart: each within a millisecond of the grid.
        for t in times.dropFirst() {
            let periods = (Double(t - times[0]) / (1000 / 60.0)).rounded()
            #expect(abs(Double(t - times[0]) - periods * 1000 / 60.0) <= 1.0, "\(times)")
        }
        #expect(done.allSatisfy { abs(($0["refresh"]?.doubleValue ?? 0) - 1000 / 60.0) < 0.001 })
        #expect(c.unscheduledFrames == 0)
    }

    @Test func theLatencyWorkloadReportsBothWays() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "latency", "--frames", "20", "--refresh", "120", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect(json["workload"]?.stringValue == "latency" && json["refresh_hz"]?.doubleValue == 120)
        #expect((json["samples"]?.intValue ?? 0) > 10 && (json["asap_samples"]?.intValue ?? 0) > 10, "\(json)")
        for k in ["latency", "asap"] {
            let p50 = try #require(json[k]?["p50_ms"]?.doubleValue), p99 = try #require(json[k]?["p99_ms"]?.doubleValue)
            let max = try #require(json[k]?["max_ms"]?.doubleValue)
            #expect(p50 > 0 && p50 <= p99 && p99 <= max, "\(k): \(json)")
        }
        #expect((json["window_ms"]?.doubleValue ?? 0) >= 1 && (json["frames_at_deadline"]?.intValue ?? 0) > 0)
    }

    /// Beside a neighbour that burns every core: both runs in one report, the busy one under
    /// `"neighbour"` with the neighbour's own frame rate.
    @Test func theLatencyWorkloadBesideABusyNeighbourReportsBothRuns() throws {
        let r = try Harness.run([Harness.diptych, "profile", "--workload", "latency", "--neighbour", "busy", "--frames", "20", "--refresh", "120", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONValue.parse(r.stdout.trimmingNewline)
        #expect((json["samples"]?.intValue ?? 0) > 10 && (json["latency"]?["p50_ms"]?.doubleValue ?? 0) > 0, "\(json)")
        #expect((json["neighbour_fps"]?.doubleValue ?? 0) > 0, "\(json)")
        let busy = try #require(json["neighbour"], "\(json)")
        #expect((busy["samples"]?.intValue ?? 0) > 10 && (busy["window_ms"]?.doubleValue ?? 0) > 0, "\(busy)")
        let p50 = try #require(busy["latency"]?["p50_ms"]?.doubleValue), p99 = try #require(busy["latency"]?["p99_ms"]?.doubleValue)
        #expect(p50 > 0 && p50 <= p99, "\(busy)")
        // (How many frames the neighbour keeps is the README's figure, measured alone: here
        // other suites share the machine.)
        #expect(busy["neighbour_fps"]?.doubleValue != nil, "\(busy)")
        #expect(json["scheduling"]?.stringValue?.hasPrefix("loop ") == true, "\(json)")
    }

    @Test func badRepaintOptionsAreRefused() throws {
        for args in [["run", "--repaint-window", "soon"], ["run", "--refresh", "0"], ["profile", "--workload", "latency", "--pen-hz", "0"],
                     ["profile", "--workload", "latency", "--neighbour", "noisy"], ["profile", "--workload", "split-static", "--neighbour", "busy"]] {
            let r = try Harness.run([Harness.diptych] + args)
            #expect(r.status == 2 && r.stderr.contains(args[args.count - 2]), "\(args): \(r.stderr)")
        }
    }
}

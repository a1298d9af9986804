// SPDX-License-Identifier: MIT
// The repaint window's arithmetic: when a wanted frame is composed, on the grid of the last
// vblank, and how wide the automatic window is.

import DiptychCore
import Testing

struct RepaintTimingTests {
    let refresh: UInt64 = 16_666_667
    let ms: UInt64 = 1_000_000

    @Test func beforeAnyPresentationAFrameIsComposedAtOnce() {
        let s = RepaintSchedule(refresh: refresh, window: .fixed(2 * ms))
        #expect(s.deadline(now: 5 * ms) == 5 * ms)
        #expect(s.vblank(atOrAfter: 5 * ms) == nil)
    }

    @Test func aFrameIsComposedTheWindowBeforeTheNextVblankItCanMake() {
        var s = RepaintSchedule(refresh: refresh, window: .fixed(2 * ms))
        s.presented(at: 100 * ms)
        // Wanted 3 ms after the vblank: composed 2 ms before the next one.
        #expect(s.deadline(now: 103 * ms) == 100 * ms + refresh - 2 * ms)
        // Wanted 1 ms before the next vblank, inside the window: that vblank is missed, the
        // one after it is aimed at.
        #expect(s.deadline(now: 100 * ms + refresh - ms) == 100 * ms + 2 * refresh - 2 * ms)
        // Long after the last presentation, still on its grid.
        let now = 100 * ms + 10 * refresh + 5 * ms
        #expect(s.deadline(now: now) == 100 * ms + 11 * refresh - 2 * ms)
    }

    @Test func withTheWindowOffAFrameIsComposedAtOnce() {
        var s = RepaintSchedule(refresh: refresh, window: .off)
        s.presented(at: 100 * ms)
        #expect(s.deadline(now: 103 * ms) == 103 * ms)
        #expect(s.windowNanoseconds == 0)
    }

    @Test func theAutomaticWindowIsTheRecentP99OfTheWorkPlusAMillisecond() {
        var s = RepaintSchedule(refresh: refresh, window: .auto)
        #expect(s.windowNanoseconds == RepaintSchedule.minimumWindow)
        for i in 0..<100 { s.worked(UInt64(i) * 10_000) }  // 0 … 0.99 ms
        #expect(s.windowNanoseconds == 980_000 + ms)
        // One slow frame in a hundred and twenty is past the 99th percentile.
        for _ in 0..<RepaintSchedule.workSamples { s.worked(200_000) }
        s.worked(9 * ms)
        #expect(s.windowNanoseconds == 1_200_000)
        // Never more than three quarters of a refresh.
        for _ in 0..<RepaintSchedule.workSamples { s.worked(30 * ms) }
        #expect(s.windowNanoseconds == refresh * 3 / 4)
    }

    @Test func windowsAreParsedFromTheCommandLine() {
        #expect(RepaintWindow(parsing: "auto") == .auto)
        #expect(RepaintWindow(parsing: "off") == .off)
        #expect(RepaintWindow(parsing: "2.5") == .fixed(2_500_000))
        #expect(RepaintWindow(parsing: "-1") == nil)
        #expect(RepaintWindow(parsing: "soon") == nil)
    }
}

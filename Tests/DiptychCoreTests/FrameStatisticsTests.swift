// SPDX-License-Identifier: MIT
// The live figures: fixed in size whatever the number of frames, percentiles within a bin's
// width (4.9 %), late frames counted against the refresh.

import DiptychCore
import Testing

struct FrameStatisticsTests {
    @Test func percentilesAreWithinABinAndLateFramesCounted() {
        var s = FrameStatistics()
        // 1,000 frames of 1.000 … 10.990 ms (uniform), one of them with input at 5 ms.
        for i in 0..<1000 { s.frame(totalMilliseconds: 1 + Double(i) * 0.01, refreshMilliseconds: 8.333, inputLatency: i == 400 ? 5 : nil) }
        #expect(s.frames == 1000)
        #expect(s.lateFrames == 266)  // 8.34 … 10.99 ms
        let p50 = s.frameTimes.quantile(0.5)!, p99 = s.frameTimes.quantile(0.99)!
        #expect(p50 >= 5.99 && p50 <= 5.99 * 1.05, "\(p50)")
        #expect(p99 >= 10.89 && p99 <= 10.99, "\(p99)")
        #expect(s.frameTimes.maximum == 10.99)
        #expect(s.inputLatencies.count == 1 && s.inputLatencies.quantile(0.5)! >= 5 && s.inputLatencies.quantile(0.5)! <= 5 * 1.05)
        #expect(FrameStatistics().frameTimes.quantile(0.5) == nil)
    }

    @Test func aMillionFramesTakeNoMoreRoom() {
        var s = FrameStatistics()
        let empty = s
        for i in 0..<1_000_000 { s.frame(totalMilliseconds: Double(i % 97) * 0.3 + 0.001, refreshMilliseconds: 16.7, inputLatency: nil) }
        #expect(s.frames == 1_000_000)
        // The same fixed bins whatever was added (the histograms are arrays of one size).
        #expect(MemoryLayout.size(ofValue: s) == MemoryLayout.size(ofValue: empty))
        #expect(s.frameTimes.quantile(1.0)! <= 28.8 * 1.05 && s.frameTimes.quantile(0)! <= 0.0105)
        // Out of range: clamped into the end bins, never lost.
        s.frame(totalMilliseconds: 1e9, refreshMilliseconds: 16.7, inputLatency: nil)
        #expect(s.frameTimes.count == 1_000_001 && s.frameTimes.maximum == 1e9)
    }
}

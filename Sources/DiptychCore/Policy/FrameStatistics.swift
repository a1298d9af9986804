// SPDX-License-Identifier: MIT
// A live compositor's figures, always kept and fixed in size (a kiosk runs for months and
// writes no frames.json): frames drawn and late, frame times and input-to-frame latencies as
// histograms of log-spaced bins (each 4.9 % wide, from 10 µs to 10 s), from which any
// percentile is read within a bin's width, and the relaunches of apps. What a control command
// reads; memory O(1), each frame O(log bins).

public struct FrameStatistics: Sendable, Equatable {
    /// Bins per factor of ten (each about 5 % wide).
    static let binsPerDecade = 48
    /// The range: 0.01 ms to 10,000 ms (six decades); times outside land in the end bins.
    static let lowest = 0.01
    static let decades = 6
    static var binCount: Int { binsPerDecade * decades }
    /// The bins' upper edges: lowest · 10^((i + 1) / binsPerDecade), by repeated products.
    static let edges: [Double] = {
        let step = 1.0491397291363098  // 10^(1/48)
        var e: [Double] = [], v = lowest
        for _ in 0..<binCount {
            v *= step
            e.append(v)
        }
        return e
    }()

    /// A histogram of milliseconds.
    public struct Histogram: Sendable, Equatable {
        public private(set) var count = 0
        public private(set) var maximum = 0.0
        /// The sum of every value added (Prometheus's summary `_sum`).
        public private(set) var sum = 0.0
        private var bins = [UInt32](repeating: 0, count: FrameStatistics.binCount)

        public init() {}

        mutating func add(_ ms: Double) {
            guard ms.isFinite else { return }
            count += 1
            sum += ms
            maximum = Swift.max(maximum, ms)
            // The first bin whose upper edge is above it (binary search); the last takes the rest.
            var lo = 0, hi = binCount - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if FrameStatistics.edges[mid] > ms { hi = mid } else { lo = mid + 1 }
            }
            if bins[lo] < UInt32.max { bins[lo] += 1 }
        }

        /// The `q` quantile (0…1) in milliseconds: the upper edge of the bin it falls in (nil
        /// before any sample).
        public func quantile(_ q: Double) -> Double? {
            guard count > 0 else { return nil }
            let rank = Swift.max(1, Int((q * Double(count)).rounded(.up)))
            var seen = 0
            for (i, n) in bins.enumerated() {
                seen += Int(n)
                if seen >= rank { return Swift.min(maximum, FrameStatistics.edges[i]) }
            }
            return maximum
        }
    }

    /// Frames drawn, and those that took longer than the refresh they were drawn for.
    public private(set) var frames = 0
    public private(set) var lateFrames = 0
    /// Each frame's time from its first input (or its start) to its buffer handed to the output.
    public private(set) var frameTimes = Histogram()
    /// Input handled to the frame that showed it.
    public private(set) var inputLatencies = Histogram()
    /// Apps relaunched after they exited or crashed (counted by the supervision).
    public var relaunches = 0

    public init() {}

    /// A frame took `totalMilliseconds` against a refresh of `refreshMilliseconds`; if it showed
    /// input, `inputLatency` is the time from that input.
    public mutating func frame(totalMilliseconds: Double, refreshMilliseconds: Double, inputLatency: Double?) {
        frames += 1
        if totalMilliseconds > refreshMilliseconds { lateFrames += 1 }
        frameTimes.add(totalMilliseconds)
        if let inputLatency { inputLatencies.add(inputLatency) }
    }
}

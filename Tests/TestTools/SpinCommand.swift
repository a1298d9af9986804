// SPDX-License-Identifier: MIT
// A loop that never waits, as the compositor's would under a load it cannot keep up with, at
// realtime priority with `RealtimeLoop`'s bound (the test beside it: a lower-priority process on
// the same core still runs).

import ArgumentParser
import DiptychLinux
import Glibc

struct SpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spin", abstract: "Spin at realtime priority, each turn of the loop bounded by RealtimeLoop; print how often it rested.")

    @Option(help: "How long to spin, in seconds.")
    var seconds: Double = 3

    func run() throws {
        try reportingErrors {
            let loop = RealtimeLoop()
            guard loop.take() else { throw RuntimeFailure(loop.why ?? "no realtime priority") }
            let end = MonotonicClock.nanoseconds + UInt64(seconds * 1e9)
            var x: UInt64 = 1
            while MonotonicClock.nanoseconds < end {
                // A turn's work: a few milliseconds of arithmetic.
                let turnEnd = MonotonicClock.nanoseconds + 2_000_000
                while MonotonicClock.nanoseconds < turnEnd { x = x &* 6364136223846793005 &+ 1 }
                loop.turn(now: MonotonicClock.nanoseconds)
            }
            print("{\"rests\":\(loop.rests),\"scheme\":\"\(loop.scheme)\",\"x\":\(x % 2)}")
        }
    }
}

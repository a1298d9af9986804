// SPDX-License-Identifier: MIT
// A neighbour that takes all the CPU it is given (`diptych-demo --burn`, for the latency
// workload's `--neighbour busy`): busy threads, one a core, from its first frame on screen.

import DiptychLinux
import Glibc

/// Busy threads, one a core, spinning until the process ends.
enum Burner {
    static func start() {
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        for _ in 0..<cores {
            var thread = pthread_t()
            _ = pthread_create(&thread, nil, { _ in
                // (The clock, read each time, keeps an optimizing compiler from dropping a loop
                // that has no other effect.)
                var x: UInt64 = 1
                while MonotonicClock.nanoseconds != 0 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
                return UnsafeMutableRawPointer(bitPattern: UInt(x | 1))
            }, nil)
        }
    }
}

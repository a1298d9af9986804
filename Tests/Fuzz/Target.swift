// SPDX-License-Identifier: MIT
// The one libFuzzer entry point of the Swift fuzz binary (built once by Tests/Fuzz/run.sh with
// the pure tier's sources): DIPTYCH_FUZZ_TARGET names the target it feeds (wire or scenario).

import Glibc

private let fuzzTarget: (UnsafePointer<UInt8>, Int) -> Int32 = {
    switch getenv("DIPTYCH_FUZZ_TARGET").map({ String(cString: $0) }) {
    case "wire": return fuzzWire
    case "scenario": return fuzzScenario
    case let other:
        fputs("fuzz: DIPTYCH_FUZZ_TARGET must be wire or scenario (got \(other ?? "nothing"))\n", stderr)
        exit(2)
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzTarget(data, size)
}

// SPDX-License-Identifier: MIT
// libFuzzer target: the JSON parser and the scenario parser (every field check).
// Fed by Target.swift's entry point (DIPTYCH_FUZZ_TARGET=scenario).

public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let value = try? JSONValue.parse(text) {
        // What parses must serialize and parse back to the same value.
        precondition((try? JSONValue.parse(value.serialized)) == value, "JSON round trip differs")
    }
    _ = try? Scenario.parse(text, file: "fuzz.json")
    return 0
}

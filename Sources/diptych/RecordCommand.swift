// SPDX-License-Identifier: MIT
// `diptych record`: real libinput events written as a scenario that `run --scenario` replays.

import ArgumentParser
import DiptychCore
import DiptychKeyboard
import DiptychInput
import DiptychLinux

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record real touch, pen, keyboard and pointer input as a scenario, until SIGINT, SIGTERM or SIGHUP.",
        discussion: "Coordinates are panel pixels of the device profile's logical screen; times are milliseconds from the first event. Replay with: diptych run --scenario FILE --out DIR")

    @OptionGroup var inputOptions: InputOptions

    @Option(help: "The scenario file to write.")
    var out: String

    @Option(help: "The device profile whose panel the input maps to: \(DeviceProfile.validChoices).")
    var device: String = "ipad-pro"

    @Option(help: "Stop after this many milliseconds (default: at SIGINT, SIGTERM or SIGHUP).")
    var durationMs: Int?

    func run() throws {
        try reportingErrors {
            guard inputOptions.input != nil else { throw UsageError("record needs --input udev or --input /dev/input/eventN,...") }
            let profile: DeviceProfile
            do { profile = try DeviceProfile.named(device) } catch { throw UsageError("\(error)") }
            try checkWritableDirectory(of: out, what: "--out")
            if let d = durationMs, d <= 0 { throw UsageError("--duration-ms must be at least 1") }
            var translator = InputTranslator(panel: profile.pixelSize(.landscape), calibration: try inputOptions.calibration())
            // Keys are written by their keysym on the keymap given (`--keymap`).
            let keymap = try? Keyboard(names: try inputOptions.keymapNames())
            guard let input = try inputOptions.open() else { return }
            let signals = try SignalDescriptor(includeChild: false)
            let epoll = try Epoll()
            try epoll.add(input.descriptor, token: 1)
            try epoll.add(signals.fd.rawValue, token: 2)
            let start = MonotonicClock.milliseconds
            var first: UInt64?
            var events: [(at: UInt64, input: PanelInput)] = []
            Files.writeStandardError("diptych: recording; SIGINT, SIGTERM or SIGHUP stops\n")
            loop: while true {
                let left = durationMs.map { max(0, $0 - Int(MonotonicClock.milliseconds - start)) }
                if left == 0 { break }
                for (token, _) in try epoll.wait(timeoutMilliseconds: left) {
                    if token == 2, let s = signals.next(), s != .userOne { break loop }
                    guard token == 1 else { continue }
                    for raw in input.read() {
                        guard let time = raw.time else { continue }
                        let base = first ?? time
                        first = base
                        for e in translator.translate(raw) { events.append(((time - base) / 1000, e)) }
                    }
                }
            }
            let text = Scenario.recording(device: profile.name, orientation: .landscape, events: events) { keymap?.keysymName(ofKey: $0) }
            try Files.writeAtomically(out, bytes: Array(text.utf8))
            print("\(out): \(events.count) events")
        }
    }
}

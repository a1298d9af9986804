// SPDX-License-Identifier: MIT
// Translation of libinput event sequences (as recorded from a touchscreen and a pen that are
// separate devices) into the touch and pen events scenarios use.

import DiptychCore
import Testing

struct InputTranslationTests {
    let panel = Size(width: 2048, height: 1536)

    /// Two fingers on a touchscreen: slots become touch ids, normalised coordinates become
    /// panel pixels, frames produce nothing, an up repeats the last position.
    @Test func aTwoFingerSequence() {
        var t = InputTranslator(panel: panel)
        let recorded: [RawInput] = [
            .deviceAdded(name: "ELAN Touchscreen"),
            .touchDown(slot: 0, x: 0.5, y: 0.5, time: 1_000_000),
            .touchFrame(time: 1_000_000),
            .touchDown(slot: 1, x: 0.25, y: 0.75, time: 1_008_000),
            .touchMotion(slot: 0, x: 0.5, y: 0.6, time: 1_016_000),
            .touchFrame(time: 1_016_000),
            .touchUp(slot: 0, time: 1_024_000),
            .touchCancel(slot: 1, time: 1_030_000),
            .touchMotion(slot: 1, x: 0.3, y: 0.3, time: 1_031_000),  // after the cancel: nothing
            .deviceRemoved(name: "ELAN Touchscreen"),
        ]
        let out = recorded.flatMap { t.translate($0) }
        #expect(out == [
            .touch(id: 0, phase: .down, x: 1024, y: 768),
            .touch(id: 1, phase: .down, x: 512, y: 1152),
            .touch(id: 0, phase: .motion, x: 1024, y: 921.6),
            .touch(id: 0, phase: .up, x: 1024, y: 921.6),
            .touch(id: 1, phase: .cancel, x: 512, y: 1152),
        ])
    }

    /// A pen: proximity, tip, axis motion with pressure and tilt, tip up, proximity out.
    @Test func aPenStroke() {
        var t = InputTranslator(panel: panel)
        let recorded: [RawInput] = [
            .tabletAxis(x: 0.1, y: 0.1, pressure: 0, tiltX: 0, tiltY: 0, time: 1),  // not in proximity yet: dropped
            .tabletProximity(entering: true, x: 0.1, y: 0.2, pressure: 0, tiltX: 5, tiltY: -5, tool: .pen, time: 2),
            .tabletTip(down: true, x: 0.1, y: 0.2, pressure: 0.3, tiltX: 5, tiltY: -5, time: 3),
            .tabletAxis(x: 0.2, y: 0.2, pressure: 0.6, tiltX: 10, tiltY: -8, time: 4),
            .tabletTip(down: false, x: 0.2, y: 0.2, pressure: 0, tiltX: 10, tiltY: -8, time: 5),
            .tabletProximity(entering: false, x: 0.2, y: 0.2, pressure: 0, tiltX: 0, tiltY: 0, tool: .pen, time: 6),
        ]
        let phases = recorded.flatMap { t.translate($0) }.map { e -> String in
            guard case .pen(let phase, _, _, _, _, _, _, _) = e else { return "touch" }
            return phase.name
        }
        #expect(phases == ["proximityIn", "down", "motion", "up", "proximityOut"])
        var u = InputTranslator(panel: panel)
        _ = u.translate(recorded[1])
        _ = u.translate(recorded[2])
        #expect(u.translate(recorded[3]) == [.pen(phase: .motion, x: 409.6, y: 307.2, pressure: 0.6, tiltX: 10, tiltY: -8)])
    }

    /// The eraser end and the barrel buttons reach the pen events: a button press is told
    /// where the pen is, and leaving proximity lets go of the buttons.
    @Test func eraserAndBarrelButtons() {
        var t = InputTranslator(panel: panel)
        _ = t.translate(.tabletProximity(entering: true, x: 0.5, y: 0.5, pressure: 0, tiltX: 0, tiltY: 0, tool: .eraser, time: 1))
        let pressed = t.translate(.tabletButton(.primary, pressed: true, time: 2))
        #expect(pressed == [.pen(phase: .motion, x: 1024, y: 768, pressure: 0, tiltX: 0, tiltY: 0, tool: .eraser, buttons: .primary)])
        let down = t.translate(.tabletTip(down: true, x: 0.5, y: 0.5, pressure: 0.4, tiltX: 0, tiltY: 0, time: 3))
        #expect(down.last == .pen(phase: .down, x: 1024, y: 768, pressure: 0.4, tiltX: 0, tiltY: 0, tool: .eraser, buttons: .primary))
        _ = t.translate(.tabletButton(.primary, pressed: false, time: 4))
        let axis = t.translate(.tabletAxis(x: 0.5, y: 0.5, pressure: 0.4, tiltX: 0, tiltY: 0, time: 5))
        #expect(axis == [.pen(phase: .motion, x: 1024, y: 768, pressure: 0.4, tiltX: 0, tiltY: 0, tool: .eraser, buttons: [])])
        // Out of proximity, a button is not told.
        _ = t.translate(.tabletProximity(entering: false, x: 0.5, y: 0.5, pressure: 0, tiltX: 0, tiltY: 0, tool: .eraser, time: 6))
        #expect(t.translate(.tabletButton(.secondary, pressed: true, time: 7)).isEmpty)
    }

    /// A pen that leaves proximity while touching is lifted first; a tip without proximity
    /// (some tablets) brings the pen into proximity.
    @Test func penEdgeCases() {
        var t = InputTranslator(panel: panel)
        let a = t.translate(.tabletTip(down: true, x: 0, y: 0, pressure: 0.5, tiltX: 0, tiltY: 0, time: 1))
        #expect(a.count == 2)
        let b = t.translate(.tabletProximity(entering: false, x: 0, y: 0, pressure: 0, tiltX: 0, tiltY: 0, tool: .pen, time: 2))
        #expect(b == [.pen(phase: .up, x: 0, y: 0, pressure: 0, tiltX: 0, tiltY: 0), .pen(phase: .proximityOut, x: 0, y: 0, pressure: 0, tiltX: 0, tiltY: 0)])
    }

    @Test func calibrationAppliesToTouches() throws {
        // Mirror horizontally: x' = -x + 1.
        var t = InputTranslator(panel: panel, calibration: try Calibration.parse("-1, 0, 1, 0, 1, 0"))
        #expect(t.translate(.touchDown(slot: 3, x: 0.25, y: 0.5, time: 0)) == [.touch(id: 3, phase: .down, x: 1536, y: 768)])
        // Out of range after calibration: clamped to the panel.
        var s = InputTranslator(panel: panel, calibration: Calibration(a: 2, b: 0, c: 0, d: 0, e: 1, f: 0))
        #expect(s.translate(.touchDown(slot: 0, x: 0.9, y: 0.1, time: 0)) == [.touch(id: 0, phase: .down, x: 2048, y: 153.6)])
    }

    @Test(arguments: ["", "1,0,0,0,1", "1,0,0,0,1,0,0", "1,0,x,0,1,0", "1,0,0,0,1,nan", "1,,0,0,1,0"])
    func badCalibrationsAreNamed(text: String) {
        do {
            _ = try Calibration.parse(text)
            Issue.record("accepted '\(text)'")
        } catch {
            #expect(error.description.contains("'\(text)'"))
        }
    }

    @Test func recordingsReplayAsScenarios() throws {
        let events: [(at: UInt64, input: PanelInput)] = [
            (0, .touch(id: 0, phase: .down, x: 100.5, y: 200)), (16, .touch(id: 0, phase: .up, x: 100.5, y: 200)),
            (40, .pen(phase: .proximityIn, x: 1, y: 2, pressure: 0, tiltX: 3, tiltY: 4)),
        ]
        let text = Scenario.recording(device: "ipad", orientation: .landscape, events: events)
        let s = try Scenario.parse(text, file: "recorded.json")
        #expect(s.primary.description == "notes" && s.profile.name == "ipad")
        #expect(s.steps.count == 5)
        #expect(s.steps[0] == ScenarioStep(at: 0, action: .touch(id: 0, phase: .down, x: 100.5, y: 200)))
        #expect(s.steps[2] == ScenarioStep(at: 40, action: .pen(phase: .proximityIn, x: 1, y: 2, pressure: 0, tiltX: 3, tiltY: 4)))
        #expect(s.steps.last?.action == .capture("recorded.png"))
    }
}

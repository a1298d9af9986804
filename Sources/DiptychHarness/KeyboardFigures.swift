// SPDX-License-Identifier: MIT
// The keyboard workload's figures in `profile --json` (`keyboard`), and its languages after
// its measured frames: a key held to its popup (the frames from the press to the popup drawn,
// and the pixels that frame repainted against the popup's own), a switch to each language's
// keyboard (its first draw, labels not yet drawn, against the same draw once they are kept),
// every plane of every language walked, and the chrome cache's bytes against its one bound.

import DiptychCore
import DiptychRender
import DiptychServer

/// What the keyboard's languages cost, as `diptych profile --workload keyboard` reports it.
public struct KeyboardFigures: Sendable {
    /// Frames from the press on `e` to the first frame with its popup drawn (60 a second).
    public var framesToPopup = 0
    /// That frame: the pixels it repainted (each layer), the area of its damage, and the popup's
    /// own area with its shadow.
    public var popupRepainted = 0, popupDamage = 0, popupArea = 0
    /// A language's first frame after the switch: p50 and max over the languages whose keys
    /// change (ms), its labels drawn for the first time; and the same switches once they are kept.
    public var firstDrawP50 = 0.0, firstDrawMax = 0.0, cachedDrawP50 = 0.0
    /// Languages and planes walked, and the chrome cache's most bytes meanwhile, against its bound.
    public var languages = 0, planes = 0
    public var peakChromeBytes = 0
    public let chromeBound = ChromeCache.byteLimit

    /// Measures on `compositor` (the keyboard workload's, notes as its primary), from frame
    /// `start` of `driver`'s virtual clock.
    static func measure(_ compositor: Compositor, driver: FrameDriver, from start: Int) throws -> KeyboardFigures {
        var f = KeyboardFigures(), i = start
        func frame(_ input: () -> Void = {}) throws -> FrameRecord {
            defer { i += 1 }
            let r = try driver.frame(at: UInt64(i) * ScenarioPlayer.frameInterval, record: false) {
                input()
                return true
            }
            f.peakChromeBytes = max(f.peakChromeBytes, compositor.chromeBytes)
            return r
        }
        func tap(_ action: KeyboardKey.Action) throws {
            guard let c = compositor.keyboardKeyCenter(action) else { throw CompositorError("keyboard figures: no \(action) key") }
            _ = try frame { compositor.touch(id: 5, phase: .down, x: c.x, y: c.y) }
            _ = try frame { compositor.touch(id: 5, phase: .up, x: c.x, y: c.y) }
        }
        // The keyboard up (notes' title tapped) and at rest.
        for _ in 0..<120 where compositor.keyboardShown == nil || compositor.keyboardMoving {
            if compositor.keyboardShown == nil {
                _ = try frame { compositor.touch(id: 5, phase: .down, x: 200, y: 38) }
                _ = try frame { compositor.touch(id: 5, phase: .up, x: 200, y: 38) }
            } else {
                _ = try frame()
            }
        }
        compositor.setKeyboardLanguages(KeyboardLanguage.all)
        for _ in 0..<3 { _ = try frame() }
        // e held until its popup is drawn.
        guard let e = compositor.keyboardKeyCenter(.text("e")) else { throw CompositorError("keyboard figures: no e key") }
        _ = try frame { compositor.touch(id: 6, phase: .down, x: e.x, y: e.y) }
        for n in 1...60 {
            let r = try frame()
            guard compositor.keyboardPopup == nil else {
                f.framesToPopup = n
                f.popupRepainted = r.repaintedPixels
                f.popupDamage = (compositor.lastFrameDamage?.rects ?? []).reduce(0) { $0 + $1.width * $1.height }
                break
            }
        }
        if let p = compositor.keyboardPopup {
            let scale = compositor.shell.profile.scale, reach = 8
            f.popupArea = (p.frame.width + 2 * reach) * (p.frame.height + 2 * reach) * scale * scale
        }
        _ = try frame { compositor.touch(id: 6, phase: .cancel, x: e.x, y: e.y) }
        // Each language's letters once with its labels new, then numbers and symbols; then every
        // language again, its labels kept.
        var first: [Double] = [], again: [Double] = []
        for round in 0..<2 {
            // (US English, the first, drew when the languages were set.)
            for l in round == 0 ? Array(KeyboardLanguage.all.indices.dropFirst()) : Array(KeyboardLanguage.all.indices) {
                let r = try frame { compositor.switchLanguage(to: l) }
                // (A language whose keys look like the last one's, British English after US
                // English, repaints nothing.)
                if r.repaintedPixels > 0 {
                    if round == 0 { first.append(r.total) } else { again.append(r.total) }
                }
                guard round == 0 else { continue }
                try tap(.layout(.numbers))
                try tap(.layout(.symbols))
                try tap(.layout(.letters))
                f.planes += 3
            }
        }
        f.languages = KeyboardLanguage.all.count
        f.firstDrawP50 = ProfileResult.quantile(first, 0.5)
        f.firstDrawMax = first.max() ?? 0
        f.cachedDrawP50 = ProfileResult.quantile(again, 0.5)
        return f
    }

    var json: JSONValue {
        func r(_ v: Double) -> JSONValue { .double((v * 1000).rounded() / 1000) }
        return .object([
            ("frames_to_popup", .int(framesToPopup)), ("popup_repainted_px", .int(popupRepainted)), ("popup_damage_px", .int(popupDamage)),
            ("popup_px", .int(popupArea)), ("switch_first_draw_p50_ms", r(firstDrawP50)), ("switch_first_draw_max_ms", r(firstDrawMax)),
            ("switch_cached_draw_p50_ms", r(cachedDrawP50)), ("languages", .int(languages)), ("planes", .int(planes)),
            ("chrome_peak_bytes", .int(peakChromeBytes)), ("chrome_bound_bytes", .int(chromeBound)),
        ])
    }

    var text: String {
        func ms(_ v: Double) -> String { "\((v * 100).rounded() / 100) ms" }
        return "languages: e held, its popup drawn \(framesToPopup) frames later, repainting \(popupDamage) px (the popup with its shadow is \(popupArea) px); "
            + "a language's first draw p50 \(ms(firstDrawP50)) (max \(ms(firstDrawMax))), \(ms(cachedDrawP50)) once drawn; "
            + "\(planes) planes of \(languages) languages held at most \(peakChromeBytes / 1024) KiB of chrome (bound \(chromeBound >> 20) MiB)"
    }
}

extension ProfileResult {
    /// For `keyboard`: the frames where it moved, what a key press repainted, and its languages.
    var keyboardJSON: JSONValue {
        guard let k = keyPress else { return .null }
        return .object([
            ("slide_frames", .int(records.count)), ("key_press_damage_px_p50", .int(k.damage)), ("key_press_written_px_p50", .int(k.written)), ("key_px", .int(k.key)),
            ("languages", languages?.json ?? .null),
        ])
    }
}

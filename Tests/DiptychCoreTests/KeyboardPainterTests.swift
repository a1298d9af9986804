// SPDX-License-Identifier: MIT
// The keyboard's look as nodes: a band, a rounded key per key and a label on each but the space
// bar, at the scale's pixels; a key held down in the other shade; the dark look's colours.

import DiptychCore
import Testing

struct KeyboardPainterTests {
    @Test func aBandAKeyAndALabelEachInTheLooksColours() {
        let k = KeyboardPresence(owner: AppID(1), state: TextInputState(enabled: true), at: 0)
        let screen = Size(width: 1366, height: 1024)
        let keys = k.keys(screen: screen, orientation: .landscape)
        let frame = k.restFrame(screen: screen, orientation: .landscape)
        let light = KeyboardPainter(scale: 2, appearance: .light)
        let nodes = light.nodes(frame: frame, keys: keys, pressed: [], opacity: 255)
        #expect(nodes.first?.content == .solid(KeyboardLook.light.background))
        #expect(nodes.first?.clip == Rect(x: frame.x * 2, y: frame.y * 2, width: frame.width * 2, height: frame.height * 2))
        let labelled = keys.filter { !$0.label.isEmpty && $0.action != .space }.count
        #expect(nodes.count == 1 + keys.count + labelled)
        // The first character key, up and then held down.
        let i = keys.firstIndex { !$0.function }!
        func fill(_ n: [SceneNode]) -> RGB? {
            n.first { $0.key == .keyboardKey(i) }.flatMap { if case .chrome(.roundedRect(let c, _)) = $0.content { c } else { nil } }
        }
        #expect(fill(nodes) == KeyboardLook.light.character)
        #expect(fill(light.nodes(frame: frame, keys: keys, pressed: [i], opacity: 255)) == KeyboardLook.light.function)
        let dark = KeyboardPainter(scale: 2, appearance: .dark).nodes(frame: frame, keys: keys, pressed: [], opacity: 128)
        #expect(dark.first?.content == .solid(KeyboardLook.dark.background) && dark.allSatisfy { $0.opacity == 128 })
    }
}

// SPDX-License-Identifier: MIT
// The desk as a value, without a compositor: what it remembers stays bounded, and a turn of
// the loop takes what it reports once.

import DiptychCore
import Testing

struct DeskTests {
    static func desk() throws -> Desk {
        Desk(shell: Shell(profile: try DeviceProfile.named("ipad-pro"), orientation: .landscape, arrangement: .split23), palm: PalmRejection())
    }

    /// Where the apps' panes were is kept for the shell's two apps only: an app relaunched a
    /// hundred times in the secondary's place leaves nothing behind.
    @Test func theRememberedPanesAreTheShellsTwoApps() throws {
        var desk = try Self.desk()
        _ = desk.add(AppID(1), preferring: .primary, requiresFullScreen: false)
        _ = desk.add(AppID(2), preferring: .secondary, requiresFullScreen: false)
        desk.notePanes()
        #expect(Set(desk.lastPanes.keys) == [AppID(1), AppID(2)])
        var current = AppID(2)
        for n in UInt64(3)...102 {
            _ = desk.replace(current, with: AppID(n), requiresFullScreen: false)
            desk.notePanes()
            current = AppID(n)
        }
        #expect(Set(desk.lastPanes.keys) == [AppID(1), current])
    }

    /// The pointer's pending motion is taken by the turn that reports it, and the cursor's
    /// change is reported until a frame draws it.
    /// While the keyboard shows, Picture in Picture windows live above it; when it goes, the
    /// whole screen again.
    @Test func pictureInPictureMakesWayForTheKeyboard() throws {
        var desk = try Self.desk()
        let full = desk.pipSpace(topInset: 20).screen
        desk.showKeyboard(for: AppID(1), state: TextInputState(enabled: true), bar: false, now: 0)
        let above = desk.pipSpace(topInset: 20).screen
        #expect(above.width == full.width && above.height == full.height - desk.keyboard!.restFrame(screen: full, orientation: desk.shell.orientation).height)
        desk.hideKeyboard(now: 10)
        #expect(desk.pipSpace(topInset: 20).screen == full)
    }

    @Test func aTickTakesThePointersMotionOnce() throws {
        var desk = try Self.desk()
        _ = desk.movePointer(toX: 100, y: 100, now: 0, time: 7)
        let first = desk.tick(now: 16)
        #expect(first.pointerMoved == 7 && first.cursorChanged)
        let second = desk.tick(now: 32)
        #expect(second.pointerMoved == nil && second.cursorChanged)
        desk.cursorDrawn(showing: true)
        #expect(!desk.tick(now: 48).cursorChanged)
    }

    /// `--cursor`: auto shows after motion and hides after 3 s or a touch; hidden never shows;
    /// always shows from the start at the centre, after 3 s and after a touch too.
    @Test func theCursorModes() throws {
        for mode in CursorMode.allCases {
            var desk = try Self.desk()
            desk.setCursorMode(mode)
            #expect(desk.cursorInFrames(at: 0, onPlane: false) == (mode == .always), "\(mode) at start")
            if mode == .always { #expect(desk.pointer.cursorRect.x == 683 - 9 && desk.pointer.cursorRect.y == 512 - 9) }
            _ = desk.movePointer(toX: 100, y: 100, now: 10, time: 10)
            #expect(desk.cursorInFrames(at: 20, onPlane: false) == (mode != .hidden), "\(mode) after motion")
            #expect(desk.cursorInFrames(at: 3020, onPlane: false) == (mode == .always), "\(mode) after 3 s still")
            _ = desk.movePointer(toX: 110, y: 100, now: 4000, time: 4000)
            desk.pointerTouched()
            #expect(desk.cursorInFrames(at: 4010, onPlane: false) == (mode == .always), "\(mode) after a touch")
        }
    }
}

// SPDX-License-Identifier: MIT
// `--device native`: a panel shown at its own size, at scale 2 only when it is dense (190 dpi
// or more by the connector's physical size) and still at least 1024 points wide.

import DiptychCore
import Testing

struct NativeDeviceTests {
    @Test(arguments: [
        // A 24" 1080p monitor (92 dpi), a TV that reports no size, a 13" 2560x1600 laptop panel
        // (227 dpi), a dense 10" 1920x1200 tablet (224 dpi, but 960 pt would be too narrow), a
        // portrait kiosk panel.
        (1920, 1080, 527, 296, "1920x1080@1", 1920, Orientation.landscape),
        (3840, 2160, 0, 0, "3840x2160@1", 3840, .landscape),
        (2560, 1600, 286, 179, "2560x1600@2", 1280, .landscape),
        (1920, 1200, 217, 136, "1920x1200@1", 1920, .landscape),
        (1080, 1920, 296, 527, "1920x1080@1", 1080, .portrait),
    ])
    func aPanelIsShownAtItsOwnSize(w: Int, h: Int, mmW: Int, mmH: Int, same: String, points: Int, orientation: Orientation) throws {
        let (profile, o) = DeviceProfile.native(panel: Size(width: w, height: h), millimetres: mmW > 0 ? Size(width: mmW, height: mmH) : nil)
        let expected = try DeviceProfile.named(same)
        #expect(profile.name == "native" && profile.landscapeSize == expected.landscapeSize && profile.scale == expected.scale)
        #expect(o == orientation && profile.pixelSize(o) == Size(width: w, height: h))
        #expect(profile.screenSize(o).width == points)
    }
}

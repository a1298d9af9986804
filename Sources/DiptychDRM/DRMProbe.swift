// SPDX-License-Identifier: MIT
// Finding DRM cards that can drive a display (KMS), without keeping them open.

import CDRM
import DiptychLinux
import Glibc

/// Looks for usable KMS devices.
public enum DRMProbe {
    /// `/dev/dri/card*` nodes that open and answer `drmModeGetResources` with at least one
    /// connector and CRTC. Empty on machines without a display device.
    public static func usableCards(directory: String = "/dev/dri", opener: (any DeviceOpener)? = nil) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var cards: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("card") else { continue }
            let path = "\(directory)/\(name)"
            if isKMSCapable(path, opener: opener) { cards.append(path) }
        }
        return cards.sorted()
    }

    /// Whether the device at `path` exposes modesetting resources.
    public static func isKMSCapable(_ path: String, opener: (any DeviceOpener)? = nil) -> Bool {
        // Opened (and closed) as a device is, through the seat or plainly.
        guard let device = try? LibdrmDevice(path: path, opener: opener), let r = try? device.resources() else { return false }
        return !r.connectors.isEmpty && !r.crtcs.isEmpty
    }
}

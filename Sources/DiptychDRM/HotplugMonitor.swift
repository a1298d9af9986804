// SPDX-License-Identifier: MIT
// Connector hotplug: the kernel's uevents for the drm subsystem, read from a netlink socket
// through libudev, so it works with or without a udev daemon.

import CUdev

/// Reports DRM hotplug uevents. Owns its udev monitor; confined to one thread.
public final class HotplugMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

    public init() throws {
        guard let u = udev_new() else { throw KMSError("udev is not available for hotplug events") }
        guard let m = udev_monitor_new_from_netlink(u, "kernel") else {
            udev_unref(u)
            throw KMSError("cannot open a netlink socket for hotplug events")
        }
        udev_monitor_filter_add_match_subsystem_devtype(m, "drm", nil)
        udev_monitor_enable_receiving(m)
        udev = u
        monitor = m
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// The descriptor to poll.
    public var descriptor: Int32 { udev_monitor_get_fd(monitor) }

    /// Reads pending uevents; true when one was a DRM change (a hotplug).
    public func drain() -> Bool {
        var changed = false
        while let device = udev_monitor_receive_device(monitor) {
            if let action = udev_device_get_action(device), String(cString: action) == "change" { changed = true }
            udev_device_unref(device)
        }
        return changed
    }
}

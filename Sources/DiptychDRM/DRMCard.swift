// SPDX-License-Identifier: MIT
// A KMS card, as wlroots' DRM backend is per GPU: the device, DRM master, the kernel's hotplug
// uevents, and the outputs it drives (a connector each). A page-flip event names the flip's
// token; each output's tokens come from a range of its own, so the card hands each event to the
// output that queued the flip.

import DiptychCore
import Logging

/// A card and the outputs on it. Confined to the compositor's thread.
public final class DRMCard {
    public let device: any KMSDevice
    /// The kernel's drm uevents (nil where udev cannot give them: the outputs' poll still
    /// catches changes).
    private let hotplug: HotplugMonitor?
    private let logger: Logger
    /// The outputs on it, in the order they were set up (the first watches the card).
    private var outputs: [Weak] = []
    private var released = false

    private struct Weak {
        weak var output: DRMBackend?
    }

    /// Takes DRM master on `device` and listens for its hotplug events.
    public init(device: any KMSDevice, logger: Logger) throws {
        self.device = device
        self.logger = logger
        try device.becomeMaster()
        do { hotplug = try HotplugMonitor() } catch {
            hotplug = nil
            logger.warning("no hotplug events; polling the connector only", metadata: ["error": "\(error)"])
        }
    }

    /// The descriptors to watch: the device's (page flips) and the hotplug monitor's.
    public var descriptors: [Int32] { [device.descriptor] + (hotplug.map { [$0.descriptor] } ?? []) }

    /// The first output set up on it, if any.
    var firstOutput: DRMBackend? { outputs.first?.output }
    var outputCount: Int { outputs.count }

    /// The first flip token of the `n`th output's range (each output's tokens are its own).
    func tokenBase(forOutput n: Int) -> UInt64 { n == 0 ? 1 : UInt64(n) << 40 }

    func attach(_ output: DRMBackend) { outputs.append(Weak(output: output)) }

    /// The outputs on it other than `output`.
    func others(than output: DRMBackend) -> [DRMBackend] { outputs.compactMap(\.output).filter { $0 !== output } }

    /// Reads `descriptor`: the flips that completed (each handed to its output; `output`'s own
    /// returned with their times, monotonic ns), and whether the connectors may have changed.
    func dispatch(_ descriptor: Int32, for output: DRMBackend) -> (flips: [UInt64], hotplug: Bool) {
        if descriptor == device.descriptor {
            var mine: [UInt64] = []
            for (token, time) in device.readEvents() {
                if output.flipCompleted(token) {
                    mine.append(time)
                } else {
                    for other in others(than: output) where other.flipCompleted(token) { break }
                }
            }
            return (mine, false)
        }
        guard let hotplug, descriptor == hotplug.descriptor else { return ([], false) }
        let changed = hotplug.drain()
        logger.debug("hotplug event", metadata: ["drm.change": "\(changed)"])
        return ([], changed)
    }

    /// Drops DRM master (the first output, once it has put its CRTC back). Idempotent.
    func release() {
        guard !released else { return }
        released = true
        device.dropMaster()
    }
}

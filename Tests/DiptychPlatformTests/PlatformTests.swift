// SPDX-License-Identifier: MIT
// The DRM and libinput layers on a machine without a display or input devices: they must
// answer cleanly, not crash. The real devices are exercised in the VM tests.

import DiptychDRM
import DiptychInput
import DiptychLinux
import Glibc
import Testing

struct DRMProbeTests {
    @Test func noCardsInAnEmptyOrMissingDirectory() {
        #expect(DRMProbe.usableCards(directory: "/nonexistent-dri").isEmpty)
        #expect(DRMProbe.usableCards(directory: "/dev").isEmpty)  // /dev/null and friends are not cards
    }

    @Test func nonDRMNodesAreNotKMSCapable() {
        #expect(!DRMProbe.isKMSCapable("/dev/null"))
        #expect(!DRMProbe.isKMSCapable("/nonexistent"))
    }
}

struct LibinputTests {
    @Test func contextCreatesAndRefusesNonDevices() throws {
        let li = try LibinputContext()
        #expect(li.descriptor >= 0)
        #expect(fcntl(li.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        do {
            try li.addDevice("/dev/null")
            Issue.record("libinput accepted /dev/null")
        } catch {
            #expect("\(error)".contains("/dev/null"))
        }
        #expect(throws: InputError.self) { try li.addDevice("/nonexistent/event0") }
        #expect(li.drain() == 0)
    }

    /// On a machine without input devices the udev seat is empty, not an error; libinput
    /// still queues nothing we would deliver.
    @Test(.enabled(if: Files.isDirectory("/sys/class/input"), "needs sysfs for libinput's udev seat"))
    func udevSeatOpens() throws {
        let li = try LibinputContext(seat: "seat0")
        #expect(li.descriptor >= 0)
        _ = li.drain()
    }
}

// SPDX-License-Identifier: MIT
// The pure KMS helpers, and the KMS backend against a fake device that records its calls.

import DiptychCore
import DiptychDRM
import DiptychImage
import Logging
import DiptychTestSupport
import Testing

struct KMSPlannerTests {
    let modes = [
        DisplayMode(index: 0, width: 1920, height: 1080, refreshMillihertz: 60000, preferred: true),
        DisplayMode(index: 1, width: 1920, height: 1080, refreshMillihertz: 50000, preferred: false),
        DisplayMode(index: 2, width: 2560, height: 1440, refreshMillihertz: 59951, preferred: false),
        DisplayMode(index: 3, width: 1024, height: 768, refreshMillihertz: 75029, preferred: false),
    ]

    @Test func modeChoice() {
        #expect(KMSPlanner.chooseMode(modes, requested: nil)?.index == 0)  // preferred
        #expect(KMSPlanner.chooseMode(modes, requested: ModeRequest.parse("1920x1080@50"))?.index == 1)
        #expect(KMSPlanner.chooseMode(modes, requested: ModeRequest.parse("2560x1440@60"))?.index == 2)  // nearest refresh
        #expect(KMSPlanner.chooseMode(modes, requested: ModeRequest.parse("1024x768"))?.index == 3)
        #expect(KMSPlanner.chooseMode(modes, requested: ModeRequest.parse("800x600")) == nil)
        #expect(KMSPlanner.chooseMode(modes, requested: ModeRequest.parse("1920x1080@144")) == nil)
        let noPreferred = modes.map { var m = $0; m.preferred = false; return m }
        #expect(KMSPlanner.chooseMode(noPreferred, requested: nil)?.index == 2)  // largest
        #expect(ModeRequest.parse("1920x1080@") == nil && ModeRequest.parse("big") == nil)
    }

    @Test func refreshFromTimings() {
        // CEA 1080p60: 148.5 MHz, 2200 × 1125.
        #expect(DisplayMode.refresh(clockKilohertz: 148_500, htotal: 2200, vtotal: 1125) == 60000)
        #expect(DisplayMode.refresh(clockKilohertz: 0, htotal: 0, vtotal: 0) == 0)
    }

    @Test func crtcMatching() {
        let connector = ConnectorInfo(id: 31, name: "HDMI-A-1", connected: true, modes: modes, encoders: [20, 21], currentEncoder: nil)
        let encoders = [EncoderInfo(id: 20, possibleCRTCs: 0b10, currentCRTC: nil), EncoderInfo(id: 21, possibleCRTCs: 0b01, currentCRTC: nil)]
        let pick = KMSPlanner.chooseCRTC(connector: connector, encoders: encoders, crtcs: [40, 41])
        #expect(pick?.encoder == 20 && pick?.crtc == 41)  // bit 1 of encoder 20 is the second CRTC
        let taken = KMSPlanner.chooseCRTC(connector: connector, encoders: encoders, crtcs: [40, 41], taken: [41])
        #expect(taken?.encoder == 21 && taken?.crtc == 40)
        var lit = connector
        lit.currentEncoder = 21
        let current = KMSPlanner.chooseCRTC(connector: lit, encoders: [encoders[0], EncoderInfo(id: 21, possibleCRTCs: 0b11, currentCRTC: 41)], crtcs: [40, 41])
        #expect(current?.encoder == 21 && current?.crtc == 41)  // keep what is lit
        #expect(KMSPlanner.chooseCRTC(connector: connector, encoders: [], crtcs: [40]) == nil)
    }
}

/// A card in memory: one connected Virtual connector, one encoder, one CRTC (with `heads` 2, a
/// second connector, Virtual-2, whose encoder can drive either of two CRTCs).
final class FakeKMSDevice: KMSDevice {
    var heads = 1
    var secondConnected = true
    var calls: [String] = []
    var failFlips = 0
    var masterHeld = false
    var pendingFlips: [UInt64] = []
    var nextFB: UInt32 = 100
    var connected = true
    var images: [UInt32: PixelImage] = [:]
    var lastFlipped: UInt32 = 0
    let descriptor: Int32 = -1

    func createCursorBuffer(size: Int) throws -> (handle: UInt32, image: PixelImage) { (1, PixelImage(width: size, height: size)) }
    func setCursor(_ crtc: UInt32, handle: UInt32?, size: Int, hotspot: (x: Int, y: Int)) -> Bool {
        calls.append(handle == nil ? "cursor off" : "cursor on")
        return true
    }
    func moveCursor(_ crtc: UInt32, x: Int, y: Int) -> Bool {
        calls.append("cursor \(x),\(y)")
        return true
    }

    func becomeMaster() throws {
        calls.append("master")
        if masterHeld { throw KMSError("cannot become DRM master of fake: another compositor is using it") }
    }
    func dropMaster() { calls.append("drop-master") }
    func resources() throws -> KMSResources {
        heads == 1 ? KMSResources(crtcs: [40], connectors: [31], encoders: [30]) : KMSResources(crtcs: [40, 41], connectors: [31, 32], encoders: [30, 33])
    }
    func connector(_ id: UInt32) throws -> ConnectorInfo {
        if id == 32 {
            return ConnectorInfo(
                id: id, name: "Virtual-2", connected: secondConnected,
                modes: [DisplayMode(index: 0, width: 40, height: 30, refreshMillihertz: 60000, preferred: true),
                        DisplayMode(index: 1, width: 32, height: 24, refreshMillihertz: 60000, preferred: false)],
                encoders: [33], currentEncoder: nil)
        }
        return ConnectorInfo(id: id, name: "Virtual-1", connected: connected, modes: [DisplayMode(index: 0, width: 64, height: 48, refreshMillihertz: 60000, preferred: true)], encoders: [30], currentEncoder: 30)
    }
    func encoder(_ id: UInt32) throws -> EncoderInfo {
        id == 33 ? EncoderInfo(id: id, possibleCRTCs: 0b11, currentCRTC: nil) : EncoderInfo(id: id, possibleCRTCs: 1, currentCRTC: 40)
    }
    func isConnected(_ id: UInt32) -> Bool { id == 32 ? secondConnected : connected }
    func saveCRTC(_ id: UInt32) throws -> CRTCState {
        calls.append("save-crtc \(id)")
        return CRTCState(id: id, framebuffer: 7, x: 0, y: 0, modeValid: true)
    }
    func createScanoutBuffer(width: Int, height: Int) throws -> ScanoutBuffer {
        nextFB += 1
        calls.append("create-buffer \(width)x\(height) fb\(nextFB)")
        let image = PixelImage(width: width, height: height)
        images[nextFB] = image
        return ScanoutBuffer(handle: nextFB, framebuffer: nextFB, image: image)
    }
    func destroyScanoutBuffer(_ buffer: ScanoutBuffer) { calls.append("destroy-buffer fb\(buffer.framebuffer)") }
    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, connector: UInt32, modeIndex: Int) throws {
        calls.append("set-crtc \(crtc) fb\(framebuffer) connector \(connector) mode \(modeIndex)")
    }
    func restoreCRTC(_ state: CRTCState, connector: UInt32) throws { calls.append("restore-crtc \(state.id) fb\(state.framebuffer)") }
    func pageFlip(_ crtc: UInt32, framebuffer: UInt32, token: UInt64) throws {
        if failFlips > 0 {
            failFlips -= 1
            calls.append("flip-failed")
            throw KMSError("EBUSY")
        }
        calls.append("flip \(crtc) fb\(framebuffer) event \(token)")
        lastFlipped = framebuffer
        pendingFlips.append(token)
    }
    func readEvents() -> [(token: UInt64, time: UInt64)] {
        defer { pendingFlips = [] }
        return pendingFlips.map { ($0, 1000 + $0) }
    }

    var atomic = false
    var refuseAtomicTest = false
    func enableAtomic() -> Bool { atomic }
    func primaryPlane(for crtc: UInt32) throws -> UInt32? { atomic ? 50 : nil }
    func atomicModeset(crtc: UInt32, connector: UInt32, plane: UInt32, framebuffer: UInt32, modeIndex: Int, size: Size, testOnly: Bool) throws {
        if testOnly && refuseAtomicTest {
            calls.append("atomic-test refused")
            throw KMSError("EINVAL")
        }
        calls.append("atomic-\(testOnly ? "test" : "commit") crtc \(crtc) plane \(plane) fb\(framebuffer)")
    }
    func atomicFlip(plane: UInt32, framebuffer: UInt32, damage: [Rect]?, token: UInt64) throws {
        calls.append("atomic-flip plane \(plane) fb\(framebuffer) damage \(damage.map { "\($0.count)" } ?? "all") event \(token)")
        lastFlipped = framebuffer
        pendingFlips.append(token)
    }
}

struct DRMBackendTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The cursor goes on the CRTC's cursor plane: shown, moved and hidden without a flip.
    @Test func theCursorPlaneShowsMovesAndHidesWithoutAFlip() throws {
        let fake = FakeKMSDevice()
        let backend = try DRMBackend(device: fake, logger: logger)
        fake.calls = []
        #expect(backend.cursorSize == 64)
        #expect(backend.setCursor(PixelImage.disc(diameter: 38, color: RGB(red: 60, green: 60, blue: 67), alpha: 140), hotspot: (19, 19)))
        backend.moveCursor(x: 5, y: 6)
        #expect(backend.setCursor(nil, hotspot: (0, 0)))
        #expect(fake.calls == ["cursor on", "cursor 5,6", "cursor off"])
        // Larger than the plane: refused (the compositor then draws it into frames).
        #expect(!backend.setCursor(PixelImage(width: 65, height: 65, format: .argb8888), hotspot: (0, 0)))
    }

    @Test func aDiscCursorIsRoundAndTranslucent() {
        let d = PixelImage.disc(diameter: 38, color: RGB(red: 60, green: 60, blue: 67), alpha: 140)
        #expect(d.pixel(x: 0, y: 0) == 0)  // a corner: outside
        #expect(d.pixel(x: 19, y: 19) >> 24 == 140)  // the middle: the disc's alpha
        let edge = d.pixel(x: 5, y: 5) >> 24
        #expect(edge > 0 && edge < 140)  // the rim: smoothed
    }

    @Test func modesetThenFlipsPacedByEventsThenRestore() throws {
        let fake = FakeKMSDevice()
        let backend = try DRMBackend(device: fake, logger: logger)
        #expect(fake.calls == ["master", "save-crtc 40", "create-buffer 64x48 fb101", "create-buffer 64x48 fb102", "set-crtc 40 fb101 connector 31 mode 0"])
        #expect(backend.size == Size(width: 64, height: 48) && backend.readyForFrame)
        fake.calls = []

        backend.beginFrame().image.fill(Rect(x: 0, y: 0, width: 64, height: 48), color: RGB(red: 1, green: 2, blue: 3))
        _ = backend.present(damage: nil)
        #expect(fake.calls == ["flip 40 fb102 event 1"])
        #expect(!backend.readyForFrame)  // no second flip before the event
        #expect(backend.present(damage: nil) == .dropped)
        #expect(fake.calls.count == 1)
        #expect(backend.dispatch(fake.descriptor) == [.frameDone(nanoseconds: 1001)])  // the flip's own timestamp
        #expect(backend.readyForFrame && backend.flipsCompleted == 1)
        _ = backend.present(damage: Region(Rect(x: 0, y: 0, width: 4, height: 4)))
        _ = backend.dispatch(fake.descriptor)
        #expect(fake.calls.last == "flip 40 fb101 event 2")
        fake.calls = []
        backend.restore()
        #expect(fake.calls == ["restore-crtc 40 fb7", "destroy-buffer fb101", "destroy-buffer fb102", "drop-master"])
        backend.restore()
        #expect(fake.calls.count == 4)  // once only
    }

    /// Frames drawn straight into the scanout buffers, each repainting only what its age says
    /// it lacks: the buffer on screen always equals the whole frame.
    @Test func eachBufferIsRepaintedByItsAge() throws {
        let fake = FakeKMSDevice()
        let backend = try DRMBackend(device: fake, logger: logger)
        let truth = PixelImage(width: backend.size.width, height: backend.size.height)
        var history: [Region?] = []
        var ages: [Int] = []
        for frame in 0..<8 {
            let r = Rect(x: frame * 7, y: frame * 4, width: 10, height: 10)
            truth.fill(r, color: RGB(red: UInt8(30 * frame), green: 9, blue: 9))
            let damage: Region? = frame == 0 ? nil : Region(r)
            let target = backend.beginFrame()
            ages.append(target.age)
            let repaint = target.repaintRegion(damage, history: history) ?? Region(Rect(x: 0, y: 0, width: truth.width, height: truth.height))
            for piece in repaint.rects { target.image.blit(piece, from: truth, sourceOffset: (0, 0)) }
            #expect(backend.present(damage: damage) != .dropped)
            history.append(damage)
            _ = backend.dispatch(fake.descriptor)
            let onScreen = try #require(fake.images[fake.lastFlipped])
            #expect(onScreen.compare(to: truth, tolerance: 0).matches, "frame \(frame)")
        }
        // Both buffers start unknown, then each is two frames old when drawn again.
        #expect(ages == [0, 0, 2, 2, 2, 2, 2, 2])
        #expect(fake.calls.filter { $0.hasPrefix("flip ") }.count == 8)
    }

    @Test func atomicWithATestOnlyCommitFirstAndDamageClips() throws {
        let fake = FakeKMSDevice()
        fake.atomic = true
        let backend = try DRMBackend(device: fake, logger: logger)
        #expect(backend.api == "atomic")
        #expect(fake.calls.suffix(2) == ["atomic-test crtc 40 plane 50 fb101", "atomic-commit crtc 40 plane 50 fb101"])
        #expect(!fake.calls.contains { $0.hasPrefix("set-crtc") })
        fake.calls = []
        for frame in 0..<3 {
            _ = backend.present(damage: frame == 0 ? nil : Region(Rect(x: frame, y: 0, width: 4, height: 4)))
            _ = backend.dispatch(fake.descriptor)
        }
        #expect(fake.calls == [
            "atomic-flip plane 50 fb102 damage all event 1",
            "atomic-flip plane 50 fb101 damage 1 event 2",  // what changed since the frame on screen
            "atomic-flip plane 50 fb102 damage 1 event 3",
        ])
    }

    @Test func anOutputThatGoesAndComesBackIsRestored() throws {
        let fake = FakeKMSDevice()
        let backend = try DRMBackend(device: fake, logger: logger)
        _ = backend.present(damage: nil)
        _ = backend.dispatch(fake.descriptor)
        fake.connected = false
        #expect(backend.poll() == [.disconnected] && !backend.connected)
        fake.calls = []
        // Frames are dropped, and the output asks for none while it is away.
        #expect(backend.present(damage: Region()) == .dropped)
        #expect(fake.calls.isEmpty && !backend.readyForFrame)
        #expect(backend.poll().isEmpty)  // no change, nothing done
        fake.connected = true
        #expect(backend.poll() == [.reconnected] && backend.connected && backend.readyForFrame)
        #expect(fake.calls == ["set-crtc 40 fb102 connector 31 mode 0"])  // the same mode again
        _ = backend.present(damage: Region(Rect(x: 0, y: 0, width: 1, height: 1)))
        #expect(fake.calls.last == "flip 40 fb101 event 2")
    }

    @Test func legacyWhenTheAtomicTestFails() throws {
        let fake = FakeKMSDevice()
        fake.atomic = true
        fake.refuseAtomicTest = true
        let backend = try DRMBackend(device: fake, logger: logger)
        #expect(backend.api == "legacy")
        #expect(fake.calls.suffix(2) == ["atomic-test refused", "set-crtc 40 fb101 connector 31 mode 0"])
    }

    @Test func aFailedFlipIsRetriedNextFrame() throws {
        let fake = FakeKMSDevice()
        let backend = try DRMBackend(device: fake, logger: logger)
        fake.failFlips = 1
        fake.calls = []
        #expect(backend.present(damage: nil) == .dropped)
        #expect(fake.calls == ["flip-failed"] && backend.flipFailures == 1 && backend.readyForFrame)
        _ = backend.present(damage: Region())
        #expect(fake.calls.last == "flip 40 fb102 event 2")
    }

    /// A second screen on the same card: another connector and the other CRTC, master and the
    /// descriptor shared, flips paced apart (each output's events reach it through the first),
    /// its own hotplug, and its CRTC put back without dropping master.
    @Test func aSecondOutputSharesTheCardAndIsPacedApart() throws {
        let fake = FakeKMSDevice()
        fake.heads = 2
        let first = try DRMBackend(device: fake, logger: logger)
        fake.calls = []
        let second = try DRMBackend(device: fake, requestedMode: ModeRequest.parse("32x24"), logger: logger, secondTo: first)
        #expect(fake.calls == ["save-crtc 41", "create-buffer 32x24 fb103", "create-buffer 32x24 fb104", "set-crtc 41 fb103 connector 32 mode 1"])
        #expect(second.isSecond && second.eventDescriptors.isEmpty && second.size == Size(width: 32, height: 24))
        fake.calls = []
        _ = first.present(damage: nil)
        _ = second.present(damage: nil)
        #expect(fake.calls == ["flip 40 fb102 event 1", "flip 41 fb104 event \(UInt64(1) << 40)"])
        #expect(!first.readyForFrame && !second.readyForFrame)
        // One read of the card's events completes both flips; only the first's is its event.
        #expect(first.dispatch(fake.descriptor) == [.frameDone(nanoseconds: 1001)])
        #expect(first.readyForFrame && second.readyForFrame && second.flipsCompleted == 1)
        _ = second.present(damage: Region(Rect(x: 0, y: 0, width: 2, height: 2)))
        #expect(first.dispatch(fake.descriptor).isEmpty && second.readyForFrame && second.flipsCompleted == 2)
        // Unplugged and plugged again: its own mode set again.
        fake.secondConnected = false
        #expect(second.poll() == [.disconnected] && first.poll().isEmpty)
        fake.secondConnected = true
        fake.calls = []
        #expect(second.poll() == [.reconnected])
        #expect(fake.calls == ["set-crtc 41 fb103 connector 32 mode 1"])  // the frame last shown
        fake.calls = []
        second.restore()
        #expect(fake.calls == ["restore-crtc 41 fb7", "destroy-buffer fb103", "destroy-buffer fb104"])
        // No second connector connected: no second screen, and the first keeps master.
        fake.secondConnected = false
        fake.calls = []
        #expect(throws: KMSError.self) { try DRMBackend(device: fake, logger: logger, secondTo: first) }
        #expect(!fake.calls.contains("drop-master"))
    }

    @Test func failuresSayWhatWasLookedFor() {
        let held = FakeKMSDevice()
        held.masterHeld = true
        do {
            _ = try DRMBackend(device: held, logger: logger)
            Issue.record("took master from another compositor")
        } catch {
            #expect("\(error)".contains("another compositor"))
        }
        let dark = FakeKMSDevice()
        dark.connected = false
        do {
            _ = try DRMBackend(device: dark, logger: logger)
            Issue.record("started without a connected connector")
        } catch {
            #expect("\(error)".contains("no connected connector"))
            #expect(dark.calls.last == "drop-master")
        }
        #expect(throws: KMSError.self) { try DRMBackend(device: FakeKMSDevice(), requestedMode: ModeRequest.parse("800x600"), logger: logger) }
    }
}

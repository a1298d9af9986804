// SPDX-License-Identifier: MIT
// KMSDevice over libdrm: the legacy modesetting API (drmModeSetCrtc and drmModePageFlip),
// which every KMS driver supports, with dumb buffers. Query results are copied into Swift
// values and freed at once.

import CDRM
import DiptychCore
import DiptychLinux
import DiptychImage
import Glibc

/// Flip tokens collected by the page-flip handler during one `drmHandleEvent` call. The
/// handler is a C function pointer that cannot capture; it runs only inside `readEvents`, on
/// the compositor's single thread, so this storage is never shared.
private enum FlipEvents {
    nonisolated(unsafe) static var completed: [(UInt64, UInt64)] = []
}

/// The mapping of a dumb buffer, unmapped when its image goes.
final class DumbMapping {
    let base: UnsafeMutableRawPointer
    let length: Int
    init(base: UnsafeMutableRawPointer, length: Int) {
        self.base = base
        self.length = length
    }
    deinit { munmap(base, length) }
}

/// A KMS card opened read-write. Owns the descriptor.
public final class LibdrmDevice: KMSDevice {
    public let path: String
    private let fd: Int32
    private var savedModes: [UInt32: drmModeModeInfo] = [:]
    private var modeLists: [UInt32: [drmModeModeInfo]] = [:]

    /// Who opened the card (and closes it), when not plain `open`.
    private let opener: (any DeviceOpener)?

    /// Opens `path` (close-on-exec), through `opener` (a seat) when given.
    public init(path: String, opener: (any DeviceOpener)? = nil) throws {
        let raw: Int32
        if let opener {
            raw = opener.openDevice(path)
            guard raw >= 0 else { throw KMSError("cannot open \(path) through the seat: \(SystemError("libseat_open_device", errno: -raw))") }
        } else {
            raw = open(path, O_RDWR | O_CLOEXEC)
            guard raw >= 0 else { throw KMSError("cannot open \(path): \(SystemError("open"))") }
        }
        self.path = path
        self.opener = opener
        fd = raw
    }

    deinit {
        // A card the seat opened goes back through it (the descriptor is closed there).
        if let opener { opener.closeDevice(fd) } else { close(fd) }
    }

    public var descriptor: Int32 { fd }

    public func becomeMaster() throws {
        if drmIsMaster(fd) != 0 { return }
        guard drmSetMaster(fd) == 0 else {
            throw KMSError("cannot become DRM master of \(path): another compositor or a display manager is using it")
        }
    }

    public func dropMaster() { _ = drmDropMaster(fd) }

    public func resources() throws -> KMSResources {
        guard let res = drmModeGetResources(fd) else { throw KMSError("\(path) has no KMS resources (not a display device)") }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        return KMSResources(
            crtcs: (0..<Int(r.count_crtcs)).map { r.crtcs[$0] },
            connectors: (0..<Int(r.count_connectors)).map { r.connectors[$0] },
            encoders: (0..<Int(r.count_encoders)).map { r.encoders[$0] })
    }

    static let connectorTypes: [UInt32: String] = [
        1: "VGA", 2: "DVI-I", 3: "DVI-D", 10: "DisplayPort", 11: "HDMI-A", 12: "HDMI-B", 14: "eDP", 15: "Virtual", 16: "DSI", 17: "DPI",
        18: "Writeback",
    ]

    public func connector(_ id: UInt32) throws -> ConnectorInfo {
        guard let c = drmModeGetConnector(fd, id) else { throw KMSError("\(path): connector \(id) vanished") }
        defer { drmModeFreeConnector(c) }
        let v = c.pointee
        var raw: [drmModeModeInfo] = []
        var modes: [DisplayMode] = []
        for i in 0..<Int(v.count_modes) {
            let m = v.modes[i]
            raw.append(m)
            modes.append(DisplayMode(
                index: i, width: Int(m.hdisplay), height: Int(m.vdisplay),
                refreshMillihertz: DisplayMode.refresh(clockKilohertz: Int(m.clock), htotal: Int(m.htotal), vtotal: Int(m.vtotal)),
                preferred: m.type & 8 != 0))  // DRM_MODE_TYPE_PREFERRED
        }
        modeLists[id] = raw
        let name = "\(Self.connectorTypes[v.connector_type] ?? "Unknown")-\(v.connector_type_id)"
        var info = ConnectorInfo(
            id: id, name: name, connected: v.connection == DRM_MODE_CONNECTED, modes: modes,
            encoders: (0..<Int(v.count_encoders)).map { v.encoders[$0] }, currentEncoder: v.encoder_id == 0 ? nil : v.encoder_id)
        if v.mmWidth > 0, v.mmHeight > 0 { info.millimetres = Size(width: Int(v.mmWidth), height: Int(v.mmHeight)) }
        return info
    }

    public func isConnected(_ id: UInt32) -> Bool {
        guard let c = drmModeGetConnectorCurrent(fd, id) else { return false }
        defer { drmModeFreeConnector(c) }
        return c.pointee.connection == DRM_MODE_CONNECTED
    }

    public func encoder(_ id: UInt32) throws -> EncoderInfo {
        guard let e = drmModeGetEncoder(fd, id) else { throw KMSError("\(path): encoder \(id) vanished") }
        defer { drmModeFreeEncoder(e) }
        return EncoderInfo(id: id, possibleCRTCs: e.pointee.possible_crtcs, currentCRTC: e.pointee.crtc_id == 0 ? nil : e.pointee.crtc_id)
    }

    public func saveCRTC(_ id: UInt32) throws -> CRTCState {
        guard let c = drmModeGetCrtc(fd, id) else { throw KMSError("\(path): CRTC \(id) vanished") }
        defer { drmModeFreeCrtc(c) }
        let v = c.pointee
        if v.mode_valid != 0 { savedModes[id] = v.mode }
        return CRTCState(id: id, framebuffer: v.buffer_id, x: Int(v.x), y: Int(v.y), modeValid: v.mode_valid != 0)
    }

    public func createScanoutBuffer(width: Int, height: Int) throws -> ScanoutBuffer {
        var handle: UInt32 = 0, pitch: UInt32 = 0
        var size: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size) == 0 else {
            throw KMSError("\(path): cannot create a \(width)x\(height) dumb buffer: \(SystemError("create dumb"))")
        }
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd, handle, &offset) == 0,
            let p = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), p != MAP_FAILED
        else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw KMSError("\(path): cannot map a dumb buffer: \(SystemError("mmap"))")
        }
        let mapping = DumbMapping(base: p, length: Int(size))
        var handles: [UInt32] = [handle, 0, 0, 0], pitches: [UInt32] = [pitch, 0, 0, 0], offsets: [UInt32] = [0, 0, 0, 0]
        var fb: UInt32 = 0
        let xrgb8888: UInt32 = 0x3432_5258  // fourcc "XR24"
        guard drmModeAddFB2(fd, UInt32(width), UInt32(height), xrgb8888, &handles, &pitches, &offsets, &fb, 0) == 0 else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw KMSError("\(path): cannot add a framebuffer: \(SystemError("drmModeAddFB2"))")
        }
        let image = PixelImage(unsafeBase: p, width: width, height: height, stride: Int(pitch), owner: mapping)
        return ScanoutBuffer(handle: handle, framebuffer: fb, image: image)
    }

    public func createCursorBuffer(size: Int) throws -> (handle: UInt32, image: PixelImage) {
        var handle: UInt32 = 0, pitch: UInt32 = 0
        var bytes: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd, UInt32(size), UInt32(size), 32, 0, &handle, &pitch, &bytes) == 0 else {
            throw KMSError("\(path): cannot create a \(size)x\(size) cursor buffer: \(SystemError("create dumb"))")
        }
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd, handle, &offset) == 0,
            let p = mmap(nil, Int(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)), p != MAP_FAILED
        else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw KMSError("\(path): cannot map a cursor buffer: \(SystemError("mmap"))")
        }
        return (handle, PixelImage(unsafeBase: p, width: size, height: size, stride: Int(pitch), owner: DumbMapping(base: p, length: Int(bytes))))
    }

    public func setCursor(_ crtc: UInt32, handle: UInt32?, size: Int, hotspot: (x: Int, y: Int)) -> Bool {
        guard let handle else { return drmModeSetCursor(fd, crtc, 0, 0, 0) == 0 }
        return drmModeSetCursor2(fd, crtc, handle, UInt32(size), UInt32(size), Int32(hotspot.x), Int32(hotspot.y)) == 0
    }

    public func moveCursor(_ crtc: UInt32, x: Int, y: Int) -> Bool { drmModeMoveCursor(fd, crtc, Int32(x), Int32(y)) == 0 }

    public func destroyScanoutBuffer(_ buffer: ScanoutBuffer) {
        // The framebuffer goes before the buffer it scans out.
        _ = drmModeRmFB(fd, buffer.framebuffer)
        _ = drmModeDestroyDumbBuffer(fd, buffer.handle)
    }

    public func setCRTC(_ crtc: UInt32, framebuffer: UInt32, connector: UInt32, modeIndex: Int) throws {
        guard var mode = modeLists[connector]?[modeIndex] else { throw KMSError("\(path): unknown mode \(modeIndex) of connector \(connector)") }
        var connectors = [connector]
        guard drmModeSetCrtc(fd, crtc, framebuffer, 0, 0, &connectors, 1, &mode) == 0 else {
            throw KMSError("\(path): modeset of CRTC \(crtc) failed: \(SystemError("drmModeSetCrtc"))")
        }
    }

    public func restoreCRTC(_ state: CRTCState, connector: UInt32) throws {
        var connectors = [connector]
        let r: Int32
        if state.modeValid, var mode = savedModes[state.id] {
            r = drmModeSetCrtc(fd, state.id, state.framebuffer, UInt32(state.x), UInt32(state.y), &connectors, 1, &mode)
        } else {
            r = drmModeSetCrtc(fd, state.id, 0, 0, 0, nil, 0, nil)
        }
        if r != 0 { throw KMSError("\(path): cannot restore CRTC \(state.id): \(SystemError("drmModeSetCrtc"))") }
    }

    public func pageFlip(_ crtc: UInt32, framebuffer: UInt32, token: UInt64) throws {
        // The token travels as the event's user data: an integer, never an object pointer, so
        // a late event can never touch freed memory.
        let data = UnsafeMutableRawPointer(bitPattern: UInt(token))
        guard drmModePageFlip(fd, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), data) == 0 else {
            throw KMSError("\(path): page flip failed: \(SystemError("drmModePageFlip"))")
        }
    }

    // MARK: - Atomic

    private var propertyIDs: [String: UInt32] = [:]

    /// The id of property `name` of an object, cached.
    private func property(_ object: UInt32, _ type: UInt32, _ name: String) -> UInt32? {
        let key = "\(object)/\(name)"
        if let id = propertyIDs[key] { return id }
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let p = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(p) }
            let pname = withUnsafeBytes(of: p.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            propertyIDs["\(object)/\(pname)"] = p.pointee.prop_id
        }
        return propertyIDs[key]
    }

    private func propertyValue(_ object: UInt32, _ type: UInt32, _ name: String) -> UInt64? {
        guard let id = property(object, type, name), let props = drmModeObjectGetProperties(fd, object, type) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) where props.pointee.props[i] == id { return props.pointee.prop_values[i] }
        return nil
    }

    public func enableAtomic() -> Bool {
        drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0
            && drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
    }

    public func primaryPlane(for crtc: UInt32) throws -> UInt32? {
        let crtcs = try resources().crtcs
        guard let index = crtcs.firstIndex(of: crtc), let planes = drmModeGetPlaneResources(fd) else { return nil }
        defer { drmModeFreePlaneResources(planes) }
        for i in 0..<Int(planes.pointee.count_planes) {
            let id = planes.pointee.planes[i]
            guard let plane = drmModeGetPlane(fd, id) else { continue }
            let possible = plane.pointee.possible_crtcs
            drmModeFreePlane(plane)
            guard possible & (1 << UInt32(index)) != 0 else { continue }
            if propertyValue(id, UInt32(DRM_MODE_OBJECT_PLANE), "type") == UInt64(DRM_PLANE_TYPE_PRIMARY) { return id }
        }
        return nil
    }

    private func commit(_ build: (OpaquePointer) throws -> Void, flags: UInt32, token: UInt64 = 0, what: String) throws {
        guard let req = drmModeAtomicAlloc() else { throw KMSError("\(path): out of memory") }
        defer { drmModeAtomicFree(req) }
        try build(req)
        let data = UnsafeMutableRawPointer(bitPattern: UInt(token))
        guard drmModeAtomicCommit(fd, req, flags, data) == 0 else {
            throw KMSError("\(path): \(what) failed: \(SystemError("drmModeAtomicCommit"))")
        }
    }

    private func add(_ req: OpaquePointer, _ object: UInt32, _ type: UInt32, _ name: String, _ value: UInt64) throws {
        guard let id = property(object, type, name), drmModeAtomicAddProperty(req, object, id, value) >= 0 else {
            throw KMSError("\(path): object \(object) has no property \(name)")
        }
    }

    public func atomicModeset(crtc: UInt32, connector: UInt32, plane: UInt32, framebuffer: UInt32, modeIndex: Int, size: Size, testOnly: Bool) throws {
        guard var mode = modeLists[connector]?[modeIndex] else { throw KMSError("\(path): unknown mode \(modeIndex)") }
        var blob: UInt32 = 0
        guard drmModeCreatePropertyBlob(fd, &mode, MemoryLayout<drmModeModeInfo>.size, &blob) == 0 else {
            throw KMSError("\(path): cannot create a mode blob: \(SystemError("blob"))")
        }
        defer { if testOnly { _ = drmModeDestroyPropertyBlob(fd, blob) } }
        let conn = UInt32(DRM_MODE_OBJECT_CONNECTOR), crt = UInt32(DRM_MODE_OBJECT_CRTC), pl = UInt32(DRM_MODE_OBJECT_PLANE)
        var flags = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
        if testOnly { flags |= UInt32(DRM_MODE_ATOMIC_TEST_ONLY) }
        try commit({ req in
            try add(req, connector, conn, "CRTC_ID", UInt64(crtc))
            try add(req, crtc, crt, "MODE_ID", UInt64(blob))
            try add(req, crtc, crt, "ACTIVE", 1)
            try add(req, plane, pl, "FB_ID", UInt64(framebuffer))
            try add(req, plane, pl, "CRTC_ID", UInt64(crtc))
            try add(req, plane, pl, "SRC_X", 0)
            try add(req, plane, pl, "SRC_Y", 0)
            try add(req, plane, pl, "SRC_W", UInt64(size.width) << 16)
            try add(req, plane, pl, "SRC_H", UInt64(size.height) << 16)
            try add(req, plane, pl, "CRTC_X", 0)
            try add(req, plane, pl, "CRTC_Y", 0)
            try add(req, plane, pl, "CRTC_W", UInt64(size.width))
            try add(req, plane, pl, "CRTC_H", UInt64(size.height))
        }, flags: flags, what: testOnly ? "atomic test-only modeset" : "atomic modeset")
    }

    public func powerOff(crtc: UInt32, connector: UInt32, atomic: Bool) throws {
        if atomic {
            try commit({ req in try add(req, crtc, UInt32(DRM_MODE_OBJECT_CRTC), "ACTIVE", 0) }, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "turning the CRTC off")
            return
        }
        guard let dpms = property(connector, UInt32(DRM_MODE_OBJECT_CONNECTOR), "DPMS") else { throw KMSError("\(path): connector \(connector) has no DPMS property") }
        guard drmModeConnectorSetProperty(fd, connector, dpms, UInt64(DRM_MODE_DPMS_OFF)) == 0 else {
            throw KMSError("\(path): DPMS off failed: \(SystemError("drmModeConnectorSetProperty"))")
        }
    }

    public func atomicFlip(plane: UInt32, framebuffer: UInt32, damage: [Rect]?, token: UInt64) throws {
        let pl = UInt32(DRM_MODE_OBJECT_PLANE)
        var blob: UInt32 = 0
        if let damage, !damage.isEmpty, property(plane, pl, "FB_DAMAGE_CLIPS") != nil {
            // struct drm_mode_rect: four int32, x1 y1 x2 y2.
            var clips: [Int32] = damage.flatMap { [Int32($0.minX), Int32($0.minY), Int32($0.maxX), Int32($0.maxY)] }
            _ = drmModeCreatePropertyBlob(fd, &clips, clips.count * 4, &blob)
        }
        defer { if blob != 0 { _ = drmModeDestroyPropertyBlob(fd, blob) } }
        try commit({ req in
            try add(req, plane, pl, "FB_ID", UInt64(framebuffer))
            if blob != 0 { try add(req, plane, pl, "FB_DAMAGE_CLIPS", UInt64(blob)) }
        }, flags: UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_NONBLOCK), token: token, what: "atomic flip")
    }

    /// Completed flips: each one's token, and when it reached the screen (the kernel's
    /// CLOCK_MONOTONIC timestamp of the vblank, in milliseconds).
    public func readEvents() -> [(token: UInt64, time: UInt64)] {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, data in
            FlipEvents.completed.append((UInt64(UInt(bitPattern: data)), UInt64(seconds) * 1_000_000_000 + UInt64(microseconds) * 1000))
        }
        FlipEvents.completed = []
        _ = drmHandleEvent(fd, &context)
        let out = FlipEvents.completed
        FlipEvents.completed = []
        return out
    }
}

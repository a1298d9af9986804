// SPDX-License-Identifier: MIT
// The VNC server on Debian's neatvnc (0.5): its aml loop is one descriptor in the compositor's
// epoll loop (no loop thread of its own; aml's workers encode), and the composited frames are
// copied, damage only, into a small pool of neatvnc framebuffers it encodes from. Confined to
// the compositor's thread: every neatvnc callback but logging runs inside `dispatch`.

import CLinuxShims
import CNeatVNC
import DiptychCore
import DiptychImage
import DiptychLinux
import Glibc
import Logging

/// Why the VNC server could not start.
public struct VNCError: Error, CustomStringConvertible, Equatable, Sendable {
    public var message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

/// The VNC server.
public final class VNCServer {
    /// A VNC pointer event: where (the panel's pixels), the buttons down (RFB's mask: 1
    /// left, 2 middle, 4 right, 8 and 16 a wheel step up and down) and those down before.
    public var onPointer: ((_ x: Int, _ y: Int, _ buttons: UInt8, _ before: UInt8) -> Void)?
    /// A VNC key: its X keysym, pressed or released.
    public var onKey: ((_ keysym: UInt32, _ pressed: Bool) -> Void)?
    /// A viewer came (the count is `clients`): it wants the whole picture.
    public var onViewerCame: (() -> Void)?
    /// The viewers connected (logged in) now.
    public private(set) var clients = 0
    /// The most viewers at once: a fifth is refused at its login.
    public static let maxClients = 4
    /// The most passwords checked a second: past it a login is refused unchecked (each check
    /// is a crypt(3) on the loop: 1.8 ms here for SHA-512's default rounds, 15 ms for yescrypt's).
    public static let checksPerSecond = 4
    /// The most frames a second the viewers are sent (each costs the loop a copy of its damage
    /// and neatvnc's look at it: the panel's frames come first).
    public static let rate: UInt64 = 30
    /// aml's descriptor, for the compositor's epoll loop (level-triggered).
    public let descriptor: Int32
    public let settings: VNCSettings

    private let aml: OpaquePointer
    private let server: OpaquePointer
    private let display: OpaquePointer
    private var pool: OpaquePointer
    private var size: Size
    /// What of the screen each framebuffer of the pool lacks (nil: all of it), by the number
    /// it was given (its neatvnc userdata: one the pool made anew has none).
    private var buffers: [Int: Region?] = [:]
    private var lastBuffer = 0
    private let logger: Logger
    private let users: VNCUsers?
    /// Logins the auth callback let through whose viewers have not come yet: a viewer that
    /// comes without one skipped TLS and the password (neatvnc 0.5 accepts a client that
    /// chooses no security when only VeNCrypt was offered).
    private var loginsPending = 0
    /// The frame drawn since the last copy to the viewers (its damage, all of those since; when
    /// it was drawn, monotonic µs), and when that copy was made.
    private var pending: (image: PixelImage, damage: Region?, drawn: UInt64)?
    private var sentAt: UInt64?
    /// Whether a frame was drawn since the loop last asked to `send`.
    private var justDrawn = false
    /// Whether the last viewer went since malloc's heaps were last trimmed.
    private var trimDue = false
    /// The buttons the viewers last held.
    private var buttons: UInt8 = 0
    /// When the passwords of the last second were checked, and when a login refused unchecked
    /// was last logged (ms).
    private var checked: [UInt64] = []
    private var warnedUnchecked: UInt64?
    /// The cursor last sent (its size and hotspot; nil: none yet).
    private var cursor: String?

    /// Listens as `settings` says, with a screen of `size` pixels (black until the first frame).
    public init(_ settings: VNCSettings, size: Size, logger: Logger) throws(VNCError) {
        self.settings = settings
        self.logger = logger
        self.size = size
        users = settings.users
        guard let aml = aml_new() else { throw VNCError("vnc: aml_new failed") }
        aml_set_default(aml)
        self.aml = aml
        nvnc_set_log_fn { data, message in
            // (Encoders' errors come from aml's worker threads: stderr only.)
            guard let data, let message, data.pointee.level.rawValue <= NVNC_LOG_WARNING.rawValue else { return }
            let line = Array("diptych: vnc: \(String(cString: message))\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
        let before = Self.threads()
        let opened: OpaquePointer?
        switch settings.address {
        case .unix(let path):
            unlink(path)
            opened = nvnc_open_unix(path)
        case .tcp(let host, let port):
            opened = nvnc_open(host, port)
        }
        guard let server = opened else {
            aml_unref(UnsafeMutableRawPointer(aml))
            throw VNCError("vnc: cannot listen on \(settings.address): \(String(cString: strerror(errno)))")
        }
        self.server = server
        // Its encoders (aml's workers, started by nvnc_open) yield to the loop and the apps:
        // a viewer's picture may lag, the panel's frames may not.
        // (Never realtime, whatever the loop's policy when they started.)
        for tid in Self.threads().subtracting(before) {
            var normal = sched_param()
            _ = sched_setscheduler(tid, SCHED_OTHER, &normal)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), Self.encoderNice)
        }
        nvnc_set_name(server, "Diptych")
        guard let display = nvnc_display_new(0, 0), let pool = nvnc_fb_pool_new(UInt16(size.width), UInt16(size.height), dv_format_xrgb8888, UInt16(size.width)) else {
            nvnc_close(server)
            aml_unref(UnsafeMutableRawPointer(aml))
            throw VNCError("vnc: cannot make its display")
        }
        self.display = display
        self.pool = pool
        descriptor = aml_get_fd(UnsafeRawPointer(aml))
        nvnc_add_display(server, display)
        nvnc_set_userdata(UnsafeMutableRawPointer(server), Unmanaged.passUnretained(self).toOpaque(), nil)
        nvnc_set_new_client_fn(server) { client in
            guard let client, let me = VNCServer.of(client) else { return }
            me.clients += 1
            me.trimDue = false
            if me.settings.tls != nil {
                guard me.loginsPending > 0 else {
                    return me.disconnectAll(client, "vnc: a viewer came without TLS and a password (it chose no security); every viewer was disconnected")
                }
                me.loginsPending -= 1
                // (Marked: its input is taken.)
                nvnc_set_userdata(UnsafeMutableRawPointer(client), UnsafeMutableRawPointer(bitPattern: 1), nil)
            } else if me.clients > VNCServer.maxClients {
                // (Plain viewers have no login to refuse: each may hold a framebuffer and an
                // encoded picture, so a fifth costs every viewer its connection.)
                return me.disconnectAll(client, "vnc: a fifth plain viewer came (vnc-insecure: at most \(VNCServer.maxClients)); every viewer was disconnected")
            }
            nvnc_set_client_cleanup_fn(client) { client in
                guard let client, let me = VNCServer.of(client) else { return }
                me.viewerLeft()
                me.logger.notice("vnc: a viewer left", metadata: ["vnc.clients": "\(me.clients)"])
            }
            me.logger.notice("vnc: a viewer connected", metadata: ["vnc.clients": "\(me.clients)"])
            me.onViewerCame?()
        }
        if settings.input {
            nvnc_set_pointer_fn(server) { client, x, y, mask in
                guard let client, let me = VNCServer.of(client), nvnc_get_userdata(UnsafeRawPointer(client)) != nil else { return }
                let buttons = UInt8(truncatingIfNeeded: mask.rawValue), before = me.buttons
                me.buttons = buttons
                me.onPointer?(Int(x), Int(y), buttons, before)
            }
            nvnc_set_key_fn(server) { client, keysym, pressed in
                guard let client, let me = VNCServer.of(client), nvnc_get_userdata(UnsafeRawPointer(client)) != nil else { return }
                me.onKey?(keysym, pressed)
            }
        }
        if let tls = settings.tls {
            let me = Unmanaged.passUnretained(self).toOpaque()
            guard nvnc_enable_auth(server, tls.key, tls.certificate, { user, password, me in
                guard let me else { return false }
                return Unmanaged<VNCServer>.fromOpaque(me).takeUnretainedValue().authenticate(user.map { String(cString: $0) } ?? "", password.map { String(cString: $0) } ?? "")
            }, me) == 0 else {
                close()
                throw VNCError("vnc: neatvnc cannot use the certificate \(tls.certificate) and key \(tls.key) (readable PEM files?)")
            }
        }
        // (neatvnc needs a picture before its first viewer: black.)
        feedWhole(nil)
    }

    /// The nice value of neatvnc's encoding threads.
    public static let encoderNice: Int32 = 15

    /// This process's threads.
    private static func threads() -> Set<Int32> {
        Set(((try? Files.list("/proc/self/task")) ?? []).compactMap { Int32($0) })
    }

    private static func of(_ client: OpaquePointer) -> VNCServer? {
        guard let server = nvnc_client_get_server(client), let me = nvnc_get_userdata(UnsafeRawPointer(server)) else { return nil }
        return Unmanaged<VNCServer>.fromOpaque(me).takeUnretainedValue()
    }

    /// A login: the user and password against `vnc-users` (crypt(3)), and a fifth viewer
    /// refused. Logged either way, with the user name.
    private func authenticate(_ user: String, _ password: String) -> Bool {
        // (Logins let through whose viewers have not come yet count.)
        guard clients + loginsPending < Self.maxClients else {
            logger.warning("vnc: login refused: \(Self.maxClients) viewers already", metadata: ["vnc.user": "\(user)"])
            return false
        }
        // (Each check costs the loop one crypt(3), and neatvnc 0.5 wants the answer at once.)
        let now = MonotonicClock.milliseconds
        checked.removeAll { $0 + 1000 <= now }
        guard checked.count < Self.checksPerSecond else {
            if now >= (warnedUnchecked ?? 0) + 1000 || warnedUnchecked == nil {
                warnedUnchecked = now
                logger.warning("vnc: login refused unchecked: \(Self.checksPerSecond) passwords were checked in the last second (logged once a second)", metadata: ["vnc.user": "\(user)"])
            }
            return false
        }
        checked.append(now)
        guard users?.check(user: user, password: password) == true else {
            logger.warning("vnc: login refused: wrong user or password", metadata: ["vnc.user": "\(user)"])
            return false
        }
        logger.notice("vnc: login", metadata: ["vnc.user": "\(user)"])
        loginsPending += 1
        return true
    }

    /// A viewer that may not stay (it came without logging in, as neatvnc 0.5 lets a client
    /// that chooses no security, or it is a fifth plain viewer): every viewer's connection is
    /// shut down before anything is sent to it (neatvnc 0.5 cannot close one client; the
    /// viewers that were there connect again). `why` is logged.
    private func disconnectAll(_ client: OpaquePointer, _ why: String) {
        nvnc_set_client_cleanup_fn(client) { client in
            guard let client, let me = VNCServer.of(client) else { return }
            me.viewerLeft()
        }
        let n: Int32
        switch settings.address {
        case .unix(let path): n = dp_shutdown_accepted(path, 0)
        case .tcp(_, let port): n = dp_shutdown_accepted(nil, Int32(port))
        }
        loginsPending = 0
        logger.error("\(why)", metadata: ["vnc.disconnected": "\(n)"])
    }

    /// A viewer went. With the last, the pool's framebuffers go too (the pool keeps what it
    /// made: as many as viewers held at once, each the size of the screen); a new pool starts
    /// with the next viewer. (The one the display shows goes once it is replaced.)
    private func viewerLeft() {
        clients -= 1
        guard clients == 0, let fresh = nvnc_fb_pool_new(UInt16(size.width), UInt16(size.height), dv_format_xrgb8888, UInt16(size.width)) else { return }
        // (Emptied first: the old pool lives on while the display or a closing viewer holds one
        // of its buffers, and those, of another size now, are not taken back but freed.)
        _ = nvnc_fb_pool_resize(pool, 0, 0, dv_format_xrgb8888, 0)
        nvnc_fb_pool_unref(pool)
        pool = fresh
        buffers = [:]
        trimDue = true
    }

    /// Runs what neatvnc has to do (its descriptor was readable).
    public func dispatch() {
        aml_poll(aml, 0)
        aml_dispatch(aml)
        // The last viewers gone: the screen-sized buffers freed may sit in malloc's heaps (its
        // mmap threshold grows with what is freed), and are given back, at every turn of
        // neatvnc's until a viewer comes (what a closing viewer held goes after its cleanup,
        // when its encoder's work comes back: turns with no viewer are few).
        if trimDue, clients == 0 { malloc_trim(0) }
    }

    /// A frame was drawn into `image` (the panel's pixels), `damage` of it changed (nil: all):
    /// the viewers get it at the next `send` that is due (its copy is no part of the frame).
    /// Nothing is kept while nobody watches.
    public func frame(_ image: PixelImage, damage: Region?) {
        guard clients > 0 else { return }
        var region = damage
        if let before = pending, let d = damage {
            if var b = before.damage {
                b.formUnion(d, collapsingPast: Region.damageRectangleLimit)
                region = b
            } else {
                region = nil
            }
        }
        pending = (image, region, MonotonicClock.nanoseconds / 1000)
        justDrawn = true
    }

    /// Copies the frames drawn since the last copy to the viewers, if one is due at `now` (ms):
    /// at most `rate` a second, and right after a frame was drawn (the loop calls this before
    /// it waits: then the copy runs while the apps draw their next frames, not when the next
    /// frame is due). A frame that waited two periods with none after it goes whenever asked
    /// (the screen came to rest).
    public func send(now: UInt64) {
        let fresh = justDrawn
        justDrawn = false
        guard let (image, damage, drawn) = pending else { return }
        if let last = sentAt, now < last + (fresh ? 1 : 2) * 1000 / Self.rate { return }
        pending = nil
        sentAt = now
        guard clients > 0 else { return }
        if Size(width: image.width, height: image.height) != size { return resize(to: image) }
        if let damage, damage.isEmpty { return }
        feed(image, damage: damage, drawn: drawn)
    }

    /// When a frame held back for the viewers goes to them.
    public var deadline: UInt64? { pending == nil ? nil : (sentAt ?? 0) + 2 * 1000 / Self.rate }

    /// The whole of `image` (nil: black) goes to the viewers: a viewer came, the screen blanked.
    public func feedWhole(_ image: PixelImage?) {
        if let image, Size(width: image.width, height: image.height) != size { return resize(to: image) }
        for key in buffers.keys { buffers[key] = .some(nil) }
        feed(image, damage: nil)
    }

    private func resize(to image: PixelImage) {
        size = Size(width: image.width, height: image.height)
        _ = nvnc_fb_pool_resize(pool, UInt16(size.width), UInt16(size.height), dv_format_xrgb8888, UInt16(size.width))
        buffers = [:]
        feed(image, damage: nil)
    }

    /// Copies what a free framebuffer lacks of `image` into it (nil image: black) and feeds it
    /// with `damage` (nil: all), stamped with when it was drawn (monotonic µs, neatvnc's
    /// presentation time: a viewer that asks for it learns how old each update is).
    private func feed(_ image: PixelImage?, damage: Region?, drawn: UInt64 = MonotonicClock.nanoseconds / 1000) {
        let whole = Region(Rect(x: 0, y: 0, width: size.width, height: size.height))
        // Every framebuffer now lacks this frame's damage too.
        for (key, lacks) in buffers {
            guard var l = lacks, let damage else {
                buffers[key] = .some(nil)
                continue
            }
            l.formUnion(damage, collapsingPast: Region.damageRectangleLimit)
            buffers[key] = l
        }
        guard let fb = nvnc_fb_pool_acquire(pool), let base = nvnc_fb_get_addr(fb) else { return }
        defer { nvnc_fb_unref(fb) }
        var number = Int(bitPattern: nvnc_get_userdata(UnsafeRawPointer(fb)))
        if number == 0 || buffers[number] == nil {
            lastBuffer += 1
            number = lastBuffer
            nvnc_set_userdata(UnsafeMutableRawPointer(fb), UnsafeMutableRawPointer(bitPattern: number), nil)
            buffers[number] = .some(nil)
        }
        let target = PixelImage(unsafeBase: base, width: size.width, height: size.height, stride: size.width * 4, owner: Keeper())
        let copy = (buffers[number] ?? nil) ?? whole
        for r in copy.rects {
            if let image {
                pixman_image_composite32(PIXMAN_OP_SRC, image.image, nil, target.image, Int32(r.x), Int32(r.y), 0, 0, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
            } else {
                target.fill(r, color: RGB(red: 0, green: 0, blue: 0))
            }
        }
        buffers[number] = Region()
        var region = pixman_region16_t()
        let told = damage ?? whole
        var boxes = told.rects.map { pixman_box16_t(x1: Int16(clamping: $0.minX), y1: Int16(clamping: $0.minY), x2: Int16(clamping: $0.maxX), y2: Int16(clamping: $0.maxY)) }
        pixman_region_init_rects(&region, &boxes, Int32(boxes.count))
        nvnc_fb_set_pts(fb, drawn)
        nvnc_display_feed_buffer(display, fb, &region)
        pixman_region_fini(&region)
    }

    /// The cursor the viewers draw where their own pointer is (RFB's cursor pseudo-encoding):
    /// `image` (premultiplied ARGB; alpha above half is drawn) with its hotspot, or none (nil:
    /// they draw no cursor of their own). Sent again only when it changed.
    public func setCursor(_ image: PixelImage?, hotspot: (x: Int, y: Int)) {
        let key = image.map { "\($0.width)x\($0.height)@\(hotspot.x),\(hotspot.y)" } ?? "none"
        guard key != cursor else { return }
        cursor = key
        // (Its width a multiple of 8, transparent on the right: neatvnc 0.5 reserves a mask of
        // width × height bits for the cursor but writes rows of whole bytes, past its end
        // otherwise.)
        let width = ((image?.width ?? 0) + 7) / 8 * 8
        guard let image, let fb = nvnc_fb_new(UInt16(width), UInt16(image.height), dv_format_argb8888, UInt16(width)), let base = nvnc_fb_get_addr(fb) else {
            return nvnc_set_cursor(server, nil, 0, 0, 0, 0, true)
        }
        memset(base, 0, width * image.height * 4)
        let target = PixelImage(unsafeBase: base, width: width, height: image.height, stride: width * 4, format: .argb8888, owner: Keeper())
        pixman_image_composite32(PIXMAN_OP_SRC, image.image, nil, target.image, 0, 0, 0, 0, 0, 0, Int32(image.width), Int32(image.height))
        nvnc_set_cursor(server, fb, UInt16(width), UInt16(image.height), UInt16(hotspot.x), UInt16(hotspot.y), true)
        // (The server holds its own reference.)
        nvnc_fb_unref(fb)
    }

    /// Stops listening; the viewers are let go.
    public func close() {
        // (Its viewers' cleanups run inside nvnc_close: nothing is fed to a server closing.)
        (onViewerCame, onPointer, onKey) = (nil, nil, nil)
        pending = nil
        // (nvnc_close leaves the cursor's framebuffer to its owner.)
        nvnc_set_cursor(server, nil, 0, 0, 0, 0, false)
        nvnc_close(server)
        nvnc_display_unref(display)
        nvnc_fb_pool_unref(pool)
        buffers = [:]
        aml_unref(UnsafeMutableRawPointer(aml))
        aml_set_default(nil)
    }
}

/// (An owner for a framebuffer's pixman image: the pool keeps the memory.)
private final class Keeper {}

// SPDX-License-Identifier: MIT
// The service manager's notification protocol (systemd's `Type=notify`, as sd_notify(3)
// describes it): datagrams of `KEY=value` lines to the socket `$NOTIFY_SOCKET` names (a path,
// or an abstract name after `@`). `READY=1` once the compositor serves, `RELOADING=1` around
// a reload, `STOPPING=1` at exit, and `WATCHDOG=1` at least every `watchdogInterval` when
// `$WATCHDOG_USEC` asks for a watchdog (for this process, if `$WATCHDOG_PID` names one).
// Without `$NOTIFY_SOCKET` nothing is sent.

import Glibc

public final class ServiceManager {
    private let socket: Int32?
    private var address: sockaddr_un
    private var length: socklen_t
    /// How often the watchdog wants a ping (ms): half its timeout; nil without a watchdog.
    public let watchdogInterval: UInt64?

    /// Reads `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID`.
    public init() {
        address = sockaddr_un()
        length = 0
        let target = Files.environment("NOTIFY_SOCKET") ?? ""
        var bytes = Array(target.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let usable = !bytes.isEmpty && bytes.count < capacity && (bytes[0] == 0 || bytes[0] == UInt8(ascii: "/"))
        if usable, case let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), fd >= 0 {
            socket = fd
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
            length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count + (bytes[0] == 0 ? 0 : 1))
        } else {
            socket = nil
        }
        let forUs = Files.environment("WATCHDOG_PID").flatMap { Int32($0) }.map { $0 == getpid() } ?? true
        if socket != nil, forUs, let usec = Files.environment("WATCHDOG_USEC").flatMap({ UInt64($0) }), usec >= 2000 {
            watchdogInterval = usec / 2000
        } else {
            watchdogInterval = nil
        }
    }

    deinit { if let socket { Glibc.close(socket) } }

    /// Whether a service manager listens.
    public var isListening: Bool { socket != nil }

    /// Sends `state` (`KEY=value` lines); false when it could not be sent (or nobody listens).
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socket else { return false }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bytes.withUnsafeBytes { Glibc.sendto(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), a, length) }
            }
        }
        return sent == bytes.count
    }
}

// SPDX-License-Identifier: MIT
// What `vnc`, `vnc-tls-cert`, `vnc-tls-key`, `vnc-users`, `vnc-insecure` and `vnc-input` say,
// checked before anything starts: where the server listens (loopback or a Unix socket only),
// who may log in (TLS and a password file, or plain view-only by `vnc-insecure`), and whether
// viewers may operate the kiosk.

import CNeatVNC
import DiptychCore
import DiptychLinux
import Glibc

/// Where the VNC server listens.
public enum VNCAddress: Equatable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: UInt16)
    case unix(path: String)

    /// `127.0.0.1:5900`, `[::1]:5900` or `unix:/run/diptych-vnc/vnc`: loopback or a Unix socket
    /// alone (reach it from elsewhere through an SSH tunnel), or why not.
    public static func parse(_ text: String) -> Result<VNCAddress, VNCError> {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/"), path.utf8.count < 108 else { return .failure(VNCError("--vnc: a Unix socket's path must be absolute and under 108 bytes: '\(path)'")) }
            return .success(.unix(path: path))
        }
        let host: String, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            port = text[close...].dropFirst().hasPrefix(":") ? text[text.index(close, offsetBy: 2)...] : ""
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            port = text[text.index(after: colon)...]
        } else {
            return .failure(VNCError("--vnc: '\(text)' is not 127.0.0.1:PORT, [::1]:PORT or unix:PATH"))
        }
        guard let p = UInt16(port), p > 0 else { return .failure(VNCError("--vnc: '\(text)' has no port from 1 to 65535")) }
        guard host == "127.0.0.1" || host == "::1" || host == "localhost" else {
            return .failure(VNCError(
                "--vnc: '\(host)' is not loopback: the server listens on 127.0.0.1, [::1] or a Unix socket only (neatvnc 0.5 lets a client that asks for no security past TLS and the password); reach it from elsewhere through an SSH tunnel"))
        }
        return .success(.tcp(host: host == "localhost" ? "127.0.0.1" : host, port: p))
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}

/// The VNC server's settings.
public struct VNCSettings: Sendable {
    public var address: VNCAddress
    /// The certificate and key (PEM) of VeNCrypt's TLS; nil: plain (`vnc-insecure`).
    public var tls: (certificate: String, key: String)?
    /// Who may log in (nil: nobody needs to: plain view-only).
    public var users: VNCUsers?
    /// Viewers may operate the kiosk (pointer and keys).
    public var input: Bool

    /// The settings the flags give, or why not (every failure a usage error: exit 2).
    public static func check(address: String, certificate: String?, key: String?, usersFile: String?, insecure: Bool, input: Bool) -> Result<VNCSettings, VNCError> {
        let parsed: VNCAddress
        switch VNCAddress.parse(address) {
        case .success(let a): parsed = a
        case .failure(let e): return .failure(e)
        }
        if insecure {
            guard !input else { return .failure(VNCError("--vnc-input needs TLS and a password (--vnc-tls-cert, --vnc-tls-key, --vnc-users), not --vnc-insecure")) }
            guard certificate == nil, key == nil, usersFile == nil else {
                return .failure(VNCError("--vnc-insecure is plain view-only: give it without --vnc-tls-cert, --vnc-tls-key and --vnc-users"))
            }
            return .success(VNCSettings(address: parsed, tls: nil, users: nil, input: false))
        }
        guard let certificate, let key, let usersFile else {
            return .failure(VNCError(
                "--vnc needs --vnc-tls-cert, --vnc-tls-key and --vnc-users (any local process, the apps included, could watch a plain server), or --vnc-insecure for plain view-only on loopback or a Unix socket"))
        }
        for (flag, path) in [("--vnc-tls-cert", certificate), ("--vnc-tls-key", key)] where access(path, R_OK) != 0 {
            return .failure(VNCError("\(flag): cannot read \(path): \(String(cString: strerror(errno)))"))
        }
        switch VNCUsers.read(usersFile) {
        case .success(let users): return .success(VNCSettings(address: parsed, tls: (certificate, key), users: users, input: input))
        case .failure(let e): return .failure(e)
        }
    }
}

/// `vnc-users`: `user:crypt-hash` lines (`#` comments), the file readable by the compositor's
/// user alone.
public struct VNCUsers: Sendable {
    private var hashes: [String: String]

    /// Reads and checks the file (its mode, its lines), or says why not.
    public static func read(_ path: String) -> Result<VNCUsers, VNCError> {
        var st = stat()
        guard stat(path, &st) == 0 else { return .failure(VNCError("--vnc-users: cannot read \(path): \(String(cString: strerror(errno)))")) }
        guard st.st_mode & 0o077 == 0, st.st_uid == geteuid() else {
            return .failure(VNCError("--vnc-users: \(path) must belong to the compositor's user and be readable by it alone (chmod 600), as it holds password hashes"))
        }
        let text: String
        do { text = String(decoding: try Files.read(path, limit: 1 << 20), as: UTF8.self) } catch {
            return .failure(VNCError("--vnc-users: cannot read \(path): \(error)"))
        }
        var hashes: [String: String] = [:]
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, line[line.index(after: colon)...].hasPrefix("$") else {
                return .failure(VNCError("--vnc-users: \(path):\(n + 1): expected user:crypt-hash (a hash from mkpasswd or openssl passwd, starting with $)"))
            }
            hashes[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        guard !hashes.isEmpty else { return .failure(VNCError("--vnc-users: \(path) names no user")) }
        return .success(VNCUsers(hashes: hashes))
    }

    /// Whether `password` is `user`'s (crypt(3) of it equals the stored hash).
    public func check(user: String, password: String) -> Bool {
        guard let hash = hashes[user] else { return false }
        var data = crypt_data()
        guard let out = crypt_r(password, hash, &data) else { return false }
        let computed = String(cString: out)
        // (A constant-time comparison: the hash's length is no secret.)
        guard computed.utf8.count == hash.utf8.count else { return false }
        return zip(computed.utf8, hash.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

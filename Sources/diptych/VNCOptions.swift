// SPDX-License-Identifier: MIT
// `run`'s remote support (SPEC §23): the VNC server's address, who may log in, and whether
// viewers may operate the kiosk; checked before anything starts (exit 2 naming the flag).

import ArgumentParser
import DiptychVNC

struct VNCOptions: ParsableArguments {
    @Option(help: "Serve the screen over VNC on 127.0.0.1:PORT, [::1]:PORT or unix:PATH (loopback or a Unix socket only: reach it from elsewhere through an SSH tunnel); default off.")
    var vnc: String?

    @Option(help: "VNC: the TLS certificate (PEM) of VeNCrypt, required (with --vnc-tls-key and --vnc-users) unless --vnc-insecure is given.")
    var vncTlsCert: String?

    @Option(help: "VNC: the TLS private key (PEM).")
    var vncTlsKey: String?

    @Option(help: "VNC: who may log in, a file of user:crypt-hash lines (mkpasswd), readable by the compositor's user alone.")
    var vncUsers: String?

    @Flag(help: "VNC: plain and view-only, without TLS or a password (for tests and SSH tunnels): any local process can watch.")
    var vncInsecure = false

    @Flag(help: "VNC: viewers may operate the kiosk (the pointer, and keys through the keymap); needs TLS and a password.")
    var vncInput = false

    /// The server's settings, checked (nil: no --vnc); a usage error names the flag or file.
    func settings() throws -> VNCSettings? {
        guard let vnc else {
            if vncTlsCert != nil || vncTlsKey != nil || vncUsers != nil || vncInsecure || vncInput { throw UsageError("--vnc-* flags need --vnc ADDRESS") }
            return nil
        }
        switch VNCSettings.check(address: vnc, certificate: vncTlsCert, key: vncTlsKey, usersFile: vncUsers, insecure: vncInsecure, input: vncInput) {
        case .success(let s): return s
        case .failure(let e): throw UsageError(e.message)
        }
    }
}

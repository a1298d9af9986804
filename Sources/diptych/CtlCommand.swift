// SPDX-License-Identifier: MIT
// `diptych ctl`: asks a running compositor over its control socket (see `ControlServer`).

import ArgumentParser
import DiptychCore
import DiptychImage
import DiptychLinux
import Glibc

struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl", abstract: "Ask a running compositor: status, a screenshot, statistics; change its apps, arrangement, rotation, screen power.",
        discussion: """
            Commands:
              status [--json]                  the device, orientation, arrangement and each pane's app and process
              screenshot FILE.png [--screen 2] the screen as the compositor composites it now (written atomically)
              stats [--json|--prometheus]      frames, late frames, frame and input-to-frame times, relaunches
              set-app primary|secondary APP    start APP in the role; it replaces the old app once it said hello
              restart primary|secondary        end the role's app; it is launched again at once
              arrangement NAME                 full, slide-over, split-2/3 or split-1/2
              rotate 0|90|180|270              turn the picture on the panel (normal, right, inverted, left); touch follows
              orientation landscape|portrait   turn the apps' screen
              blank | wake                     turn the screen off (as blank = says) or on
              reload                           read the --config file again and apply what changed
            Changes last until the compositor restarts: put lasting ones in the configuration file.
            The socket: --socket, else $DIPTYCH_CTL_SOCKET, /run/diptych/ctl, $XDG_RUNTIME_DIR/diptych-0.ctl.
            Exit status: 0 done, 1 the compositor could not be reached or said no, 2 bad usage.
            """)

    @Option(help: "The control socket (default: $DIPTYCH_CTL_SOCKET, /run/diptych/ctl, $XDG_RUNTIME_DIR/diptych-0.ctl).")
    var socket: String?

    @Argument(parsing: .captureForPassthrough, help: "The command and its arguments.")
    var words: [String] = []

    /// The commands and how many arguments each takes, with their allowed values (nil: any).
    static let commands: [String: (arguments: ClosedRange<Int>, values: [Set<String>?])] = [
        "status": (0...1, [["--json"]]),
        "screenshot": (1...3, [nil, ["--screen"], ["1", "2"]]),
        "stats": (0...1, [["--json", "--prometheus"]]),
        "orientation": (1...1, [["landscape", "portrait"]]),
        "restart": (1...1, [["primary", "secondary"]]),
        "set-app": (2...64, [["primary", "secondary"]]),
        "arrangement": (1...1, [Set(Arrangement.allCases.map(\.rawValue))]),
        "rotate": (1...1, [Set(OutputRotation.allValueStrings)]),
        "blank": (0...0, []),
        "wake": (0...0, []),
        "reload": (0...0, []),
    ]
    static let names = "status, screenshot, stats, set-app, restart, arrangement, rotate, orientation, blank, wake or reload"

    func validate() throws {
        guard let command = words.first else { throw ValidationError("no command: \(Self.names)") }
        guard let shape = Self.commands[command] else { throw ValidationError("unknown command '\(command)': \(Self.names)") }
        let arguments = Array(words.dropFirst())
        guard shape.arguments.contains(arguments.count) else { throw ValidationError("\(command): wrong number of arguments (see diptych ctl --help)") }
        for (a, allowed) in zip(arguments, shape.values) where allowed.map({ !$0.contains(a) }) ?? false {
            throw ValidationError("\(command): '\(a)' is not one of \(allowed!.sorted().joined(separator: ", "))")
        }
    }

    /// The socket to ask.
    func socketPath() -> String {
        if let socket { return socket }
        if let env = Files.environment("DIPTYCH_CTL_SOCKET"), !env.isEmpty { return env }
        for shipped in ["/run/diptych-ctl/ctl", "/run/diptych/ctl"] where Files.exists(shipped) { return shipped }
        return "\(Files.environment("XDG_RUNTIME_DIR") ?? "/tmp")/diptych-0.ctl"
    }

    func run() throws {
        // One deadline for all of it, connecting included (a planted server may accept nothing
        // or trickle its answer): past it, ctl says so and exits 1.
        signal(SIGALRM) { _ in
            let message = "diptych: ctl: no whole answer within the time allowed (is the socket a compositor's?)\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            _exit(1)
        }
        alarm(UInt32(Self.answerTimeout) + 5)
        try reportingErrors {
            let path = socketPath()
            let fd: FileDescriptor
            do { fd = try UnixSocket.connect(path: path) } catch {
                // Permission: say which group grants it.
                var st = stat()
                if (error as? SystemError)?.errno == EACCES, stat(path, &st) == 0, let g = getgrgid(st.st_gid) {
                    let name = String(cString: g.pointee.gr_name)
                    throw RuntimeFailure("cannot reach the compositor at \(path): permission denied: its group \(name) may use it (sudo usermod -aG \(name) $USER, then log in again)")
                }
                throw RuntimeFailure("cannot reach a compositor at \(path): \(error) (is diptych run running? --socket names another)")
            }
            var request = words
            // A relative path in set-app is ctl's: sent absolute (the compositor's folder is not
            // the operator's).
            if words.first == "set-app", words.count >= 3, let cwd = Files.currentDirectory {
                request = Array(words[0...1]) + [Apps.absolutized(words[2...].joined(separator: " "), against: cwd)]
            }
            if words.first == "screenshot" {
                guard words.count == 2 || (words.count == 4 && words[2] == "--screen") else { throw UsageError("screenshot FILE.png [--screen 1|2]") }
                request = ["screenshot", words.count == 4 ? words[3] : "1"]
            }
            let line = JSONValue.array(request.map { .string($0) }).serialized + "\n"
            // Whatever answers is not trusted: an answer comes within `answerTimeout` seconds
            // (set-app's bound and more), is one line of at most `answerLimit` bytes, and a
            // screenshot's sizes are checked against its memfd.
            var timeout = timeval(tv_sec: Self.answerTimeout, tv_usec: 0)
            _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // (A compositor that refuses answers at once and closes: its answer is read even
            // when the request could not be sent.)
            var sendError: (any Error)?
            do { try UnixSocket.sendAll(fd.rawValue, Array(line.utf8)) } catch { sendError = error }
            var bytes: [UInt8] = [], descriptors: [Int32] = []
            var silent = false
            while !bytes.contains(10) {
                let r: Received?
                do { r = try UnixSocket.receive(fd.rawValue) } catch {
                    silent = (error as? SystemError).map { $0.errno == EAGAIN || $0.errno == EWOULDBLOCK } ?? false
                    break
                }
                guard let r, !r.endOfStream else { break }
                bytes += r.bytes
                descriptors += r.descriptors
                if bytes.count > Self.answerLimit { break }
            }
            defer { for d in descriptors { Glibc.close(d) } }
            fd.close()
            if silent { throw RuntimeFailure("\(path): no answer within \(Self.answerTimeout) s") }
            if bytes.count > Self.answerLimit, !bytes.prefix(Self.answerLimit).contains(10) {
                throw RuntimeFailure("\(path): an answer longer than \(Self.answerLimit) bytes (not a compositor's)")
            }
            guard let reply = try? JSONValue.parse(String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self)), let ok = reply["ok"]?.boolValue else {
                throw RuntimeFailure("\(path): " + (sendError.map { "\($0)" } ?? (bytes.isEmpty ? "the compositor closed the connection without an answer" : "the answer is not a compositor's")))
            }
            guard ok else {
                let message = Self.printable(reply["error"]?.stringValue ?? "refused")
                if reply["usage"]?.boolValue == true { throw UsageError(message) }
                throw RuntimeFailure(message)
            }
            if words.first == "screenshot" {
                try writeScreenshot(reply, descriptors.first, to: words[1])
            } else if let output = reply["output"]?.stringValue.map(Self.printable), !output.isEmpty {
                print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
            }
        }
    }

    /// How long an answer may take (s), and how long it may be (bytes).
    static let answerTimeout = 30
    static let answerLimit = 1 << 20

    /// `text` without the control characters a terminal would act on (newlines and tabs kept).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || $0 == "\t" || !($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }))
    }

    /// Maps the screenshot's memfd and writes it as a PNG at `path` (whole or not at all).
    func writeScreenshot(_ reply: JSONValue, _ descriptor: Int32?, to path: String) throws {
        guard let descriptor, let w = reply["width"]?.intValue, let h = reply["height"]?.intValue, let stride = reply["stride"]?.intValue,
              w > 0, h > 0, w <= 16384, h <= 16384, w * h <= 64 << 20, stride >= w * 4, stride <= 16384 * 4 + 64
        else { throw RuntimeFailure("the compositor's screenshot came without its pixels") }
        // The pixels must be all there: a sealed memfd at least stride × height long.
        let fd = FileDescriptor(taking: dup(descriptor))
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0, st.st_mode & S_IFMT == S_IFREG, Int(st.st_size) >= stride * h, fd.seals().contains(.shrink)
        else { throw RuntimeFailure("the compositor's screenshot is not a sealed memory file of \(stride) × \(h) bytes") }
        let map: MemoryMapping
        do { map = try MemoryMapping(fd: fd, length: stride * h, writable: false) } catch { throw RuntimeFailure("cannot map the screenshot: \(error)") }
        let image = PixelImage(width: w, height: h)
        map.withUnsafeBytes { src in
            for y in 0..<h { (image.bytes + y * image.stride).copyMemory(from: src.baseAddress! + y * stride, byteCount: w * 4) }
        }
        do { try image.writePNG(to: path) } catch { throw RuntimeFailure("\(error)") }
    }
}

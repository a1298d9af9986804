// SPDX-License-Identifier: MIT
// File helpers: atomic replacement, appending lines, directories, and the runtime directory.

import Glibc

/// File-system operations that never leave a half-written file behind.
public enum Files {
    /// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
    public static func writeAtomically(_ path: String, bytes: [UInt8]) throws(SystemError) {
        try writeAtomically(path) { (fd: Int32) throws(SystemError) in
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SystemError("write \(path)")
                }
                done += n
            }
        }
    }

    /// Runs `fill` on a temporary file beside `path`, then renames it over `path`. On failure
    /// the temporary file is removed and `path` is untouched. The temporary file is a new one
    /// of an unpredictable name, created exclusively and never through a symlink: one planted
    /// at a name it might take is neither followed nor written.
    public static func writeAtomically(_ path: String, _ fill: (Int32) throws(SystemError) -> Void) throws(SystemError) {
        // Only a regular file (or nothing) is replaced: renaming over a device, a socket or a
        // FIFO (an output named /dev/null) would put a file where it was.
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            throw SystemError("\(path) exists and is not a regular file: not replacing it", errno: EEXIST)
        }
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temporary = "\(path).tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 || (errno != EEXIST && errno != ELOOP) { break }
        }
        if fd < 0 { throw SystemError("create \(temporary)") }
        do throws(SystemError) {
            try fill(fd)
            if fsync(fd) < 0 && errno != EINVAL { throw SystemError("fsync \(temporary)") }
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        Glibc.close(fd)
        if rename(temporary, path) < 0 {
            let e = SystemError("rename \(temporary) to \(path)")
            unlink(temporary)
            throw e
        }
    }

    /// Appends `line` and a newline to `path` with one write (O_APPEND), creating it if needed.
    public static func appendLine(_ path: String, _ line: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw SystemError("open \(path)") }
        defer { Glibc.close(fd) }
        let bytes = Array((line + "\n").utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n != bytes.count { throw SystemError("append to \(path)") }
    }

    /// Reads a whole file.
    public static func read(_ path: String, limit: Int = Int.max) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw SystemError("open \(path)") }
        defer { Glibc.close(fd) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// Reads `fd` to its end, at most `limit` bytes (`path` names it in errors).
    private static func readAll(_ fd: Int32, path: String, limit: Int) throws(SystemError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("read \(path)")
            }
            if n == 0 { return out }
            // A file that never ends (/dev/zero, a pipe that keeps writing) is refused at the
            // limit rather than read into memory for ever.
            guard out.count + n <= limit else { throw SystemError("\(path) is larger than \(limit) bytes", errno: EFBIG) }
            out.append(contentsOf: chunk[..<n])
        }
    }

    /// Reads a regular file whole, up to `limit` bytes. Anything else (a FIFO, a device, a
    /// socket) is refused without waiting: opened non-blocking and looked at before it is read.
    public static func readRegular(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
        // Looked at through an O_PATH descriptor (opening a device can act), then opened
        // through that same descriptor (no swap between the look and the open).
        let handle = open(path, 0o10000000 /* O_PATH (Glibc hides it from Swift) */ | O_CLOEXEC)
        if handle < 0 { throw SystemError("open \(path)") }
        defer { Glibc.close(handle) }
        var st = stat()
        guard fstat(handle, &st) == 0 else { throw SystemError("stat \(path)") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw SystemError("\(path) is not a regular file", errno: EINVAL) }
        let fd = open("/proc/self/fd/\(handle)", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 { throw SystemError("open \(path)") }
        defer { Glibc.close(fd) }
        guard Int(st.st_size) <= limit else { throw SystemError("\(path) is larger than \(limit) bytes", errno: EFBIG) }
        return try readAll(fd, path: path, limit: limit)
    }

    /// Creates `path` and its parents (mode 0755 unless given) if missing.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, mode) < 0 && errno != EEXIST { throw SystemError("mkdir \(partial)") }
        }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// This process's working directory (nil: it cannot be read).
    public static var currentDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(cString: buffer)
    }

    public static func remove(_ path: String) { unlink(path) }

    /// The value of an environment variable.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

extension Files {
    /// Writes text to standard error, unbuffered.
    public static func writeStandardError(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

extension Files {
    /// Whether `path` is a directory.
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Makes a new folder of its own in `$TMPDIR` (else /tmp), named `prefix-XXXXXX`.
    public static func makeTemporaryDirectory(_ prefix: String) throws(SystemError) -> String {
        let base = environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        if !made { throw SystemError("mkdtemp in \(base)") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in folder `path` (without `.` and `..`), in the order the system gives them.
    public static func list(_ path: String) throws(SystemError) -> [String] {
        guard let d = opendir(path) else { throw SystemError("opendir \(path)") }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes `path` and everything below it (links are removed, not followed).
    public static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFDIR, let names = try? list(path) else {
            unlink(path)
            return
        }
        for n in names { removeTree("\(path)/\(n)") }
        rmdir(path)
    }
}

/// Figures about this process.
public enum ProcessStats {
    /// Page faults taken by this process so far, minor and major (getrusage).
    public static var pageFaults: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_minflt + usage.ru_majflt
    }

    /// The peak resident set size in bytes (getrusage's ru_maxrss).
    public static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}

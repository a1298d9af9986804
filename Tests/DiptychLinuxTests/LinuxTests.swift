// SPDX-License-Identifier: MIT
// The platform layer against the real kernel: memfd seals, fd passing, epoll and timers.

import DiptychLinux
import DiptychTestSupport
import Glibc
import Testing

struct SharedMemoryTests {
    @Test func sealsStopShrinkingButNotWriting() throws {
        let fd = try FileDescriptor.memfd(name: "t", size: 4096)
        #expect(fd.seals().isEmpty)
        try fd.addSeals([.shrink])
        #expect(fd.seals().contains(.shrink))
        #expect(ftruncate(fd.rawValue, 100) != 0)  // the seal holds
        #expect(try fd.size() == 4096)
        let map = try MemoryMapping(fd: fd, length: 4096, writable: true)
        map.withUnsafeMutableBytes { $0[4095] = 7 }
        let reader = try MemoryMapping(fd: fd, length: 4096, writable: false)
        #expect(reader.withUnsafeBytes { $0[4095] } == 7)
    }

    @Test func regularFilesCarryNoSeals() throws {
        let fd = FileDescriptor(taking: open("/proc/self/stat", O_RDONLY | O_CLOEXEC))
        #expect(fd.seals().isEmpty)
    }
}

struct SocketTests {
    @Test func descriptorsTravelWithMessages() throws {
        let (a, b) = try UnixSocket.pair()
        let left = FileDescriptor(taking: a), right = FileDescriptor(taking: b)
        let memfd = try FileDescriptor.memfd(name: "passed", size: 64)
        try memfd.addSeals([.shrink])
        try UnixSocket.sendAll(left.rawValue, [1, 2, 3], descriptors: [memfd.rawValue])
        let r = try #require(try UnixSocket.receive(right.rawValue))
        #expect(r.bytes == [1, 2, 3])
        #expect(r.descriptors.count == 1)
        let received = FileDescriptor(taking: r.descriptors[0])
        #expect(received.rawValue != memfd.rawValue)
        #expect(try received.size() == 64)
        #expect(received.seals().contains(.shrink))
        #expect(fcntl(received.rawValue, F_GETFD) & FD_CLOEXEC != 0)  // received close-on-exec
        let creds = try UnixSocket.peerCredentials(right.rawValue)
        #expect(creds.pid == getpid() && creds.uid == getuid())
    }

    @Test func endOfStreamAndNonBlocking() throws {
        let (a, b) = try UnixSocket.pair()
        let left = FileDescriptor(taking: a)
        var right: FileDescriptor? = FileDescriptor(taking: b)
        let nothing = try UnixSocket.receive(left.rawValue, nonBlocking: true)
        #expect(nothing == nil)
        right = nil
        _ = right
        let r = try #require(try UnixSocket.receive(left.rawValue, nonBlocking: true))
        #expect(r.endOfStream)
    }

    @Test func listenAcceptConnect() throws {
        let dir = Harness.temporaryDirectory("linux")
        try Files.makeDirectories(dir)
        defer { rmdir(dir) }
        let path = dir + "/s"
        let lock = try #require(try SocketLock.claim(path))
        #expect(try SocketLock.claim(path) == nil)  // a live claim is never taken
        let listener = try UnixSocket.listen(path: path)
        var nothingWaiting = true
        if let _ = try UnixSocket.accept(listener.rawValue) { nothingWaiting = false }
        #expect(nothingWaiting)
        let client = try UnixSocket.connect(path: path)
        guard let server = try UnixSocket.accept(listener.rawValue) else {
            Issue.record("no connection to accept")
            return
        }
        try UnixSocket.sendAll(client.rawValue, [9])
        #expect(try UnixSocket.receive(server.rawValue)?.bytes == [9])
        _ = lock
    }
}

struct LoopTests {
    @Test func timerWakesEpoll() throws {
        let epoll = try Epoll()
        let timer = try TimerDescriptor()
        try epoll.add(timer.fd.rawValue, token: 42)
        #expect(try epoll.wait(timeoutMilliseconds: 0).isEmpty)
        try timer.arm(nanoseconds: 1_000_000)
        let ready = try epoll.wait(timeoutMilliseconds: 5000)
        #expect(ready.map(\.token) == [42])
        #expect(timer.acknowledge() == 1)
        #expect(timer.acknowledge() == 0)
    }

    @Test func atomicWriteLeavesNoPartialFile() throws {
        let path = Harness.temporaryDirectory("atomic") + "/file"
        defer { unlink(path) }
        try Files.writeAtomically(path, bytes: Array("first".utf8))
        struct Boom: Error {}
        #expect(throws: SystemError.self) {
            try Files.writeAtomically(path) { (_: Int32) throws(SystemError) in throw SystemError("simulated failure", errno: EIO) }
        }
        #expect(try Files.read(path) == Array("first".utf8))
        #expect(!Files.exists("\(path).tmp-\(getpid())"))
    }

    @Test func childProcessesAreReaped() throws {
        let child = try ChildProcess(arguments: ["sh", "-c", "exit 3"])
        #expect(child.wait(milliseconds: 5000) == 3)
        let sleeper = try ChildProcess(arguments: ["sleep", "30"])
        #expect(sleeper.terminate(graceMilliseconds: 1000) == 128 + SIGTERM)
    }
}

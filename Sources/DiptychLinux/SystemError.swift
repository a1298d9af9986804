// SPDX-License-Identifier: MIT
// A failed system call, with errno and what we were doing.

import Glibc

/// A system call failed. `description` names the operation and the OS's reason.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. "bind /run/user/0/diptych-0".
    public var operation: String
    public var errno: Int32

    public init(_ operation: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        let reason = strerror(errno).map { String(cString: $0) } ?? "errno \(errno)"
        return "\(operation): \(reason)"
    }
}

/// Retries a call while it fails with EINTR; returns its result or throws `SystemError`.
@discardableResult
func retrying<T: BinaryInteger>(_ operation: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let r = body()
        if r >= 0 { return r }
        if errno == EINTR { continue }
        throw SystemError(operation())
    }
}

// SPDX-License-Identifier: MIT
// Closing a process to the other processes of its own user: not dumpable, so `/proc/PID/mem`,
// `/proc/PID/fd`, `maps` and `environ` open only to root (the files become root's) and ptrace
// is refused. The compositor holds every app's pixels and an app holds its own, so both close
// themselves this way (as OpenSSH's agent does): a same-user process that never connects can
// no longer read the compositor's heap or re-open another app's memfds. A program started
// with exec is dumpable again, so apps the compositor launches decide for themselves.

import CLinuxShims

public enum ProcessPrivacy {
    /// Makes this process non-dumpable; `DIPTYCH_DEBUGGABLE=1` leaves it as it is (to attach a
    /// debugger or a profiler as the same user). Returns whether it is closed now.
    @discardableResult
    public static func closeToSameUser() -> Bool {
        if Files.environment("DIPTYCH_DEBUGGABLE") == "1" { return false }
        return dp_set_non_dumpable() == 0
    }

    /// Whether this process is non-dumpable.
    public static var isClosed: Bool { dp_dumpable() == 0 }
}

// SPDX-License-Identifier: MIT
// Linux calls and macros that Glibc does not export to Swift: memfd and file seals, SCM_RIGHTS
// fd passing, epoll, timerfd and signalfd. Thin wrappers only; no policy lives here.
#ifndef CLINUXSHIMS_H
#define CLINUXSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING). Returns the fd or -1 with errno set.
int dp_memfd_create(const char *name);
/// fcntl(fd, F_ADD_SEALS, seals).
int dp_add_seals(int fd, unsigned int seals);
/// fcntl(fd, F_GET_SEALS). Returns -1 with errno (EINVAL when the file cannot be sealed).
int dp_get_seals(int fd);
unsigned int dp_seal_shrink(void);
unsigned int dp_seal_grow(void);
unsigned int dp_seal_seal(void);

/// sendmsg with up to `nfds` descriptors as SCM_RIGHTS on the first byte. MSG_NOSIGNAL is always
/// set; `dontwait` adds MSG_DONTWAIT. Returns bytes sent or -1 with errno.
ssize_t dp_send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfds, int dontwait);
/// recvmsg that collects SCM_RIGHTS descriptors (received with MSG_CMSG_CLOEXEC) into `fds`.
/// `*nfds` is the capacity on entry and the count on return. Descriptors beyond the capacity are
/// closed and `*truncated` is set. Returns bytes read (0 at EOF) or -1 with errno.
ssize_t dp_recv_with_fds(int sock, void *buf, size_t len, int *fds, int *nfds, int *truncated, int dontwait);

/// Closes `fd` on a worker thread (another process's file may make close block: a FUSE
/// server's FLUSH, a lingering socket). Never blocks the caller.
void dp_close_later(int fd);
/// 1 when `fd` is a regular file on tmpfs or hugetlbfs (a memfd, /dev/shm): shared memory; else 0.
int dp_is_shared_memory(int fd);
/// Descriptors handed to dp_close_later and not yet closed.
int dp_close_later_pending(void);
/// Tests only: the next close the worker takes first waits this long, as a FUSE server that is
/// slow to answer FLUSH would make it.
void dp_close_later_stall_next_for_tests(unsigned milliseconds);
/// fstatfs's f_type (the file system's magic number) into `*type`. Returns 0 or -1 with errno.
int dp_fs_type(int fd, uint64_t *type);
/// prctl(PR_SET_DUMPABLE, 0): other processes of this user can no longer read this one's memory
/// or descriptors through /proc/PID (mem, fd, maps, environ) nor ptrace it. Returns 0 or -1.
int dp_set_non_dumpable(void);
/// prctl(PR_GET_DUMPABLE).
int dp_dumpable(void);
/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of this process's descendants re-parent to it (a
/// double fork cannot leave its tree). Returns 0 or -1.
int dp_set_child_subreaper(void);
/// prctl(PR_GET_CHILD_SUBREAPER): 1 when this process adopts its descendants' orphans.
int dp_child_subreaper(void);
/// The bytes this end of a socket sent that the peer has not read yet (SIOCOUTQ), or -1.
int dp_socket_unread(int sock);
/// waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT): the pid of a child that exited and is not reaped
/// yet (left as it is), 0 when none, -1 with errno (ECHILD: no children).
int32_t dp_exited_child(void);

/// SO_PEERCRED of a connected Unix socket: fills pid, uid, gid. Returns 0 or -1 with errno.
int dp_peer_credentials(int sock, int32_t *pid, uint32_t *uid, uint32_t *gid);

/// accept4 with SOCK_CLOEXEC | SOCK_NONBLOCK.
int dp_accept(int listener);

int dp_epoll_create(void);
/// Adds or modifies `fd` with the given interest (bit 0 readable, bit 1 writable); `token` comes
/// back from dp_epoll_wait.
int dp_epoll_add(int epfd, int fd, uint32_t interest, uint64_t token);
int dp_epoll_modify(int epfd, int fd, uint32_t interest, uint64_t token);
int dp_epoll_remove(int epfd, int fd);
/// Waits up to `timeout_ms` (-1 forever). Fills tokens and readiness (bit 0 readable, bit 1
/// writable, bit 2 hang-up or error). Returns the count or -1 with errno.
int dp_epoll_wait(int epfd, uint64_t *tokens, uint32_t *ready, int max, int timeout_ms);

/// timerfd on CLOCK_MONOTONIC, non-blocking, close-on-exec.
int dp_timerfd_create(void);
/// Arms a one-shot timer `ns` nanoseconds from now (0 disarms); with `interval_ns` it repeats.
int dp_timerfd_arm(int fd, uint64_t ns, uint64_t interval_ns);
/// Fires once at the monotonic time `at_ns` (TFD_TIMER_ABSTIME), then every `interval_ns` if not 0.
int dp_timerfd_arm_at(int fd, uint64_t at_ns, uint64_t interval_ns);
/// Reads the expiration count (0 when not expired).
uint64_t dp_timerfd_read(int fd);

/// Blocks SIGINT, SIGTERM, SIGHUP, SIGCHLD (if `with_chld`) in this thread and returns a non-blocking
/// signalfd that reports them. SIGPIPE is ignored process-wide.
int dp_signalfd_standard(int with_chld);
// What signalfd `fd` (made by dp_signalfd_standard) reports from now on: the same, with SIGUSR1
// or without it (a SIGUSR1 then stays pending, blocked, and wakes no one until heard again).
int dp_signalfd_hear_usr1(int fd, int with_chld, int usr1);
/// Reads one pending signal number from a signalfd, or 0 if none.
int dp_signalfd_read(int fd);
/// Ignores SIGPIPE for the whole process: a peer that went away must never kill us.
void dp_ignore_sigpipe(void);

/// Monotonic time in nanoseconds.
uint64_t dp_monotonic_ns(void);

/// posix_spawn of argv[0] (searched in PATH) with `child_fd` dup'ed to fd 3 (if >= 0) and the
/// environment `envp`. The child's signal mask is cleared and SIGPIPE reset to default.
/// Returns the pid or -1 with errno.
pid_t dp_spawn(const char *const argv[], const char *const envp[], int child_fd);
/// Shuts down (both ways) every connected socket of this process whose own address is the Unix
/// socket `unix_path` (non-NULL) or TCP `port` on loopback: the viewers a VNC server accepted
/// there (its listening socket is left). Returns how many.
int dp_shutdown_accepted(const char *unix_path, int port);
/// dp_spawn, the child in a process group of its own (its pid): what it starts stays in it
/// unless it leaves on purpose, so its whole tree can be found even after a double fork.
pid_t dp_spawn_grouped(const char *const argv[], const char *const envp[], int child_fd);


#endif

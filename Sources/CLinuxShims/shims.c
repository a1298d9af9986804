// SPDX-License-Identifier: MIT
// Thin wrappers for Linux macros and GNU-only calls (see CLinuxShims.h). No policy lives here.
#include "CLinuxShims.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <stddef.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>

int dp_memfd_create(const char *name) { return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }
int dp_add_seals(int fd, unsigned int seals) { return fcntl(fd, F_ADD_SEALS, seals); }
int dp_get_seals(int fd) { return fcntl(fd, F_GET_SEALS); }
unsigned int dp_seal_shrink(void) { return F_SEAL_SHRINK; }
unsigned int dp_seal_grow(void) { return F_SEAL_GROW; }
unsigned int dp_seal_seal(void) { return F_SEAL_SEAL; }

#define DP_MAX_FDS 28

ssize_t dp_send_with_fds(int sock, const void *buf, size_t len, const int *fds, int nfds, int dontwait) {
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    union {
        char buf[CMSG_SPACE(sizeof(int) * DP_MAX_FDS)];
        struct cmsghdr align;
    } control;
    if (nfds > DP_MAX_FDS) { errno = EINVAL; return -1; }
    if (nfds > 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nfds);
    }
    ssize_t n;
    do {
        n = sendmsg(sock, &msg, MSG_NOSIGNAL | (dontwait ? MSG_DONTWAIT : 0));
    } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t dp_recv_with_fds(int sock, void *buf, size_t len, int *fds, int *nfds, int *truncated, int dontwait) {
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {0};
    union {
        char buf[CMSG_SPACE(sizeof(int) * DP_MAX_FDS)];
        struct cmsghdr align;
    } control;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    int capacity = *nfds;
    *nfds = 0;
    *truncated = 0;
    ssize_t n;
    do {
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | (dontwait ? MSG_DONTWAIT : 0));
    } while (n < 0 && errno == EINTR);
    if (n < 0) return n;
    if (msg.msg_flags & MSG_CTRUNC) *truncated = 1;
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *data = (int *)CMSG_DATA(cmsg);
        for (int i = 0; i < count; i++) {
            if (*nfds < capacity) {
                fds[(*nfds)++] = data[i];
            } else {
                dp_close_later(data[i]);
                *truncated = 1;
            }
        }
    }
    return n;
}

int dp_fs_type(int fd, uint64_t *type) {
    struct statfs fs;
    if (fstatfs(fd, &fs) < 0) return -1;
    *type = (uint64_t)(unsigned long)fs.f_type & 0xFFFFFFFFu;
    return 0;
}
int dp_set_non_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
int dp_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
int dp_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }
int dp_child_subreaper(void) {
    int on = 0;
    return prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&on, 0, 0, 0) < 0 ? -1 : on;
}

int dp_socket_unread(int sock) {
    int n = 0;
    return ioctl(sock, SIOCOUTQ, &n) < 0 ? -1 : n;
}

int32_t dp_exited_child(void) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0) return -1;
    return info.si_pid;
}

int dp_peer_credentials(int sock, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int dp_accept(int listener) { return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

static uint32_t dp_interest(uint32_t interest) {
    uint32_t events = EPOLLRDHUP;
    if (interest & 1) events |= EPOLLIN;
    if (interest & 2) events |= EPOLLOUT;
    return events;
}

int dp_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int dp_epoll_add(int epfd, int fd, uint32_t interest, uint64_t token) {
    struct epoll_event ev = {.events = dp_interest(interest), .data.u64 = token};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int dp_epoll_modify(int epfd, int fd, uint32_t interest, uint64_t token) {
    struct epoll_event ev = {.events = dp_interest(interest), .data.u64 = token};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

int dp_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int dp_epoll_wait(int epfd, uint64_t *tokens, uint32_t *ready, int max, int timeout_ms) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = events[i].data.u64;
        uint32_t r = 0;
        if (events[i].events & EPOLLIN) r |= 1;
        if (events[i].events & EPOLLOUT) r |= 2;
        if (events[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) r |= 4;
        ready[i] = r;
    }
    return n;
}

int dp_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

static struct itimerspec dp_timer_spec(uint64_t ns, uint64_t interval_ns) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(ns / 1000000000ull);
    spec.it_value.tv_nsec = (long)(ns % 1000000000ull);
    spec.it_interval.tv_sec = (time_t)(interval_ns / 1000000000ull);
    spec.it_interval.tv_nsec = (long)(interval_ns % 1000000000ull);
    return spec;
}

int dp_timerfd_arm(int fd, uint64_t ns, uint64_t interval_ns) {
    struct itimerspec spec = dp_timer_spec(ns, interval_ns);
    return timerfd_settime(fd, 0, &spec, NULL);
}

int dp_timerfd_arm_at(int fd, uint64_t at_ns, uint64_t interval_ns) {
    struct itimerspec spec = dp_timer_spec(at_ns, interval_ns);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

uint64_t dp_timerfd_read(int fd) {
    uint64_t count = 0;
    if (read(fd, &count, sizeof count) != sizeof count) return 0;
    return count;
}

int dp_signalfd_standard(int with_chld) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    if (with_chld) sigaddset(&set, SIGCHLD);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    dp_ignore_sigpipe();
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int dp_signalfd_hear_usr1(int fd, int with_chld, int usr1) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (usr1) sigaddset(&set, SIGUSR1);
    if (with_chld) sigaddset(&set, SIGCHLD);
    return signalfd(fd, &set, SFD_NONBLOCK | SFD_CLOEXEC) == fd ? 0 : -1;
}

int dp_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    if (read(fd, &info, sizeof info) != sizeof info) return 0;
    return (int)info.ssi_signo;
}

void dp_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

uint64_t dp_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

extern char **environ;

static pid_t spawn(const char *const argv[], const char *const envp[], int child_fd, int grouped);
pid_t dp_spawn(const char *const argv[], const char *const envp[], int child_fd) { return spawn(argv, envp, child_fd, 0); }
pid_t dp_spawn_grouped(const char *const argv[], const char *const envp[], int child_fd) { return spawn(argv, envp, child_fd, 1); }

static pid_t spawn(const char *const argv[], const char *const envp[], int child_fd, int grouped) {
    int tmp = -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (grouped ? POSIX_SPAWN_SETPGROUP : 0));
    if (grouped) posix_spawnattr_setpgroup(&attr, 0);
    if (child_fd >= 0) {
        // dup2 onto the same number would keep FD_CLOEXEC; go through a fresh number first.
        if (child_fd == 3) {
            tmp = fcntl(child_fd, F_DUPFD_CLOEXEC, 10);
            if (tmp < 0) return -1;
            child_fd = tmp;
        }
        posix_spawn_file_actions_adddup2(&actions, child_fd, 3);
    }
    // Nothing else of the compositor's reaches the app, whether or not it was opened
    // close-on-exec (neatvnc's listening and viewers' sockets are not).
    posix_spawn_file_actions_addclosefrom_np(&actions, child_fd >= 0 ? 4 : 3);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &actions, &attr, (char *const *)argv,
                          envp ? (char *const *)envp : environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (tmp >= 0) close(tmp);
    if (rc != 0) { errno = rc; return -1; }
    return pid;
}

int dp_shutdown_accepted(const char *unix_path, int port) {
    DIR *dir = opendir("/proc/self/fd");
    if (!dir) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        int fd = atoi(e->d_name);
        if (fd < 3 || fd == dirfd(dir)) continue;
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
        int listening = 0;
        socklen_t len = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening) continue;
        struct sockaddr_storage a;
        socklen_t alen = sizeof a;
        if (getsockname(fd, (struct sockaddr *)&a, &alen) != 0) continue;
        int ours = 0;
        if (unix_path && a.ss_family == AF_UNIX) {
            const struct sockaddr_un *u = (const struct sockaddr_un *)&a;
            ours = alen > offsetof(struct sockaddr_un, sun_path) && strncmp(u->sun_path, unix_path, sizeof u->sun_path) == 0;
        } else if (!unix_path && a.ss_family == AF_INET) {
            const struct sockaddr_in *i = (const struct sockaddr_in *)&a;
            ours = ntohs(i->sin_port) == port && ntohl(i->sin_addr.s_addr) == INADDR_LOOPBACK;
        } else if (!unix_path && a.ss_family == AF_INET6) {
            const struct sockaddr_in6 *i = (const struct sockaddr_in6 *)&a;
            ours = ntohs(i->sin6_port) == port && IN6_IS_ADDR_LOOPBACK(&i->sin6_addr);
        }
        if (ours && shutdown(fd, SHUT_RDWR) == 0) n++;
    }
    closedir(dir);
    return n;
}

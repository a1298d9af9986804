// SPDX-License-Identifier: MIT
// Closing descriptors another process gave us, off the caller's thread (as systemd's
// asynchronous_close does): the last close of a file on FUSE waits for the server's FLUSH, a
// socket's may linger, and a compositor must never wait on an app. Shared memory (a regular file
// on tmpfs or hugetlbfs: every memfd) cannot block and is closed at once; anything else goes to
// worker threads, which close it in order. A worker stuck on one close (a FUSE server that never
// answers) does not hold the rest: while closes wait, another worker starts, up to MAX_WORKERS.
#include "CLinuxShims.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#define MAX_WORKERS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int *queue;
static size_t queued, capacity, head;
static int pending; /* queued plus those being closed */
static int workers, idle;
static unsigned stall_ms; /* the tests' seam: the next close takes this long first */

static void *closer(void *unused) {
    (void)unused;
    /* Signals are the compositor's thread's (its signalfd), never a worker's. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&lock);
    for (;;) {
        idle++;
        while (queued == 0) pthread_cond_wait(&wake, &lock);
        idle--;
        int fd = queue[head];
        head = (head + 1) % capacity;
        queued--;
        unsigned delay = stall_ms;
        stall_ms = 0;
        pthread_mutex_unlock(&lock);
        if (delay) {
            struct timespec t = {.tv_sec = delay / 1000, .tv_nsec = (long)(delay % 1000) * 1000000L};
            while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
        }
        close(fd);
        pthread_mutex_lock(&lock);
        pending--;
    }
    return NULL;
}

/* Makes room for one more in the ring (capacity doubles, the ring unrolled). */
static int grow(void) {
    size_t n = capacity ? capacity * 2 : 64;
    int *q = malloc(n * sizeof *q);
    if (!q) return -1;
    for (size_t i = 0; i < queued; i++) q[i] = queue[(head + i) % capacity];
    free(queue);
    queue = q;
    capacity = n;
    head = 0;
    return 0;
}

/* A regular file on tmpfs or hugetlbfs (memfds, /dev/shm): shared memory, whose close cannot
   block and which the compositor may map. */
int dp_is_shared_memory(int fd) {
    struct stat st;
    struct statfs fs;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) != 0) return 0;
    unsigned long type = (unsigned long)fs.f_type & 0xFFFFFFFFul;
    return type == 0x01021994ul || type == 0x958458F6ul;
}

void dp_close_later(int fd) {
    if (fd < 0) return;
    if (dp_is_shared_memory(fd)) {
        close(fd);
        return;
    }
    pthread_mutex_lock(&lock);
    /* No worker free for it (none yet, or all busy on closes that wait): one more. */
    if (idle == 0 && workers < MAX_WORKERS) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&t, &attr, closer, NULL) == 0) workers++;
        pthread_attr_destroy(&attr);
    }
    if (workers == 0 || (queued == capacity && grow() < 0)) {
        /* No thread or no memory: closing here is all that is left. */
        pthread_mutex_unlock(&lock);
        close(fd);
        return;
    }
    queue[(head + queued) % capacity] = fd;
    queued++;
    pending++;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

int dp_close_later_pending(void) {
    pthread_mutex_lock(&lock);
    int n = pending;
    pthread_mutex_unlock(&lock);
    return n;
}

void dp_close_later_stall_next_for_tests(unsigned milliseconds) {
    pthread_mutex_lock(&lock);
    stall_ms = milliseconds;
    pthread_mutex_unlock(&lock);
}

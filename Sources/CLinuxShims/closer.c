// SPDX-License-Identifier: MIT
// Closing descriptors another process gave us, off the caller's thread (as systemd's
// asynchronous_close does): the last close of a file on FUSE waits for the server's FLUSH, a
// socket's may linger, and a compositor must never wait on an app. One worker thread, started
// the first time, closes what it is handed in order; while it waits on one close, the others
// stay queued (each is an open descriptor, so the queue is bounded by the descriptor table).
#include "CLinuxShims.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int *queue;
static size_t queued, capacity, head;
static int pending; /* queued plus the one being closed */
static int started;
static unsigned stall_ms; /* the tests' seam: the next close takes this long first */

static void *closer(void *unused) {
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (queued == 0) pthread_cond_wait(&wake, &lock);
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

void dp_close_later(int fd) {
    if (fd < 0) return;
    pthread_mutex_lock(&lock);
    if (!started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        started = pthread_create(&t, &attr, closer, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started || (queued == capacity && grow() < 0)) {
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

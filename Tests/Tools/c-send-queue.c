/* SPDX-License-Identifier: MIT */
/* The library never waits on a compositor that reads slowly while its queue has room: 2,000
   requests and a buffer (with its descriptor) are written with nobody reading, dc_flush then
   says EAGAIN; as the peer reads, dc_flush writes the rest and says 0; the peer got every
   request in order and the buffer's descriptor with it. Prints "ok" or what went wrong. Used by
   GoldenMessageTests. */
#define _GNU_SOURCE
#include "c-pair.h"
#include "diptych-protocol.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint8_t got[1 << 20];
static size_t got_len;
static int fds;

/* Reads what the socket holds now (non-blocking); counts descriptors passed. */
static void drain(int other) {
    for (;;) {
        char control[CMSG_SPACE(sizeof(int) * 4)];
        struct iovec iov = { got + got_len, sizeof got - got_len };
        struct msghdr m = { 0 };
        m.msg_iov = &iov; m.msg_iovlen = 1;
        m.msg_control = control; m.msg_controllen = sizeof control;
        ssize_t n = recvmsg(other, &m, MSG_DONTWAIT);
        if (n <= 0) return;
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
            int fd;
            memcpy(&fd, CMSG_DATA(h), sizeof fd);
            struct stat st;
            if (fstat(fd, &st) == 0 && st.st_size >= 8 * 8 * 4) fds++;
            close(fd);
        }
        got_len += (size_t)n;
    }
}

int main(void) {
    int other;
    dc_connection *c = connect_over_pair("queue", &other);
    if (!c) return 2;
    int small = 4096;
    setsockopt(dc_fd(c), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(other, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    enum { N = 2000 };
    for (int i = 0; i < N; i++)
        if (dc_status_bar_style(c, i % 2) != 0) return printf("request %d failed: %s\n", i, dc_error(c)), 1;
    dc_buffer *b = dc_buffer_get(c, 8, 8);
    if (!b || dc_commit(c, b, NULL, 0) != 0) return printf("the buffer failed: %s\n", dc_error(c)), 1;
    errno = 0;
    if (dc_flush(c) != -1 || errno != EAGAIN) return printf("dc_flush with nobody reading said %d (errno %d), not EAGAIN\n", dc_flush(c), errno), 1;
    int rounds = 0;
    for (;;) {
        drain(other);
        int r = dc_flush(c);
        if (r == 0) break;
        if (errno != EAGAIN) return printf("dc_flush failed: %s\n", dc_error(c)), 1;
        if (++rounds > 100000) return printf("the queue never emptied\n"), 1;
    }
    drain(other);
    /* hello, the N styles in order, create buffer (with its descriptor), commit. */
    int styles = 0, creates = 0, commits = 0, hello = 0;
    for (size_t at = 0; at + 8 <= got_len;) {
        uint32_t len = (uint32_t)got[at] | (uint32_t)got[at + 1] << 8 | (uint32_t)got[at + 2] << 16 | (uint32_t)got[at + 3] << 24;
        uint16_t op = (uint16_t)(got[at + 6] | got[at + 7] << 8);
        if (len < 8 || at + len > got_len) return printf("a torn message at %zu\n", at), 1;
        if (op == DC_REQUEST_HELLO) hello++;
        if (op == DC_REQUEST_STATUS_BAR_STYLE) {
            if (got[at + 8] != styles % 2 || creates) return printf("style %d out of order\n", styles), 1;
            styles++;
        }
        if (op == DC_REQUEST_CREATE_BUFFER) creates++;
        if (op == DC_REQUEST_COMMIT) { if (!creates) return printf("commit before its buffer\n"), 1; commits++; }
        at += len;
    }
    if (hello != 1 || styles != N || creates != 1 || commits != 1 || fds != 1)
        return printf("hello %d, styles %d, creates %d, commits %d, descriptors %d\n", hello, styles, creates, commits, fds), 1;
    dc_disconnect(c);
    printf("ok\n");
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* What the two halves of libdiptych-client share (not installed): the connection's state, the
   limits, the message writer, and failing and sending. */
#ifndef DIPTYCH_CLIENT_INTERNAL_H
#define DIPTYCH_CLIENT_INTERNAL_H

#include "diptych-client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define DC_HEADER 8
#define DC_MAX_MESSAGE 65536
#define DC_MAX_BUFFERS 64
#define DC_OUT_CAPACITY (DC_MAX_MESSAGE * 4)
#define DC_OUT_FDS 16
#define DC_PER_SIZE 3
#define DC_SIZES_KEPT 6
#define DC_XRGB8888 0x34325258u
#define DC_ARGB8888 0x34325241u

/* A buffer's place. A place let go keeps its dc_buffer busy with no pixels (an app that still
   holds the pointer draws nowhere and cannot commit it), and `freed` orders the places let go: the
   one let go longest ago is taken first, so a pointer the app may still hold comes back as another
   buffer only after every other place has been used. */
struct dc_slot { dc_buffer b; int fd; size_t bytes; int used; uint32_t freed; };

struct dc_connection {
    int fd;
    uint8_t in[DC_MAX_MESSAGE * 2];
    size_t in_len;
    int closed;
    char error[512];
    struct dc_slot slots[DC_MAX_BUFFERS];
    uint32_t next_id;
    uint32_t frees;  /* places let go so far */
    struct { int w, h; } sizes[DC_SIZES_KEPT + 1];
    int nsizes;
    /* Configure serials received and not yet acknowledged (the newest few). */
    uint32_t unacked[8];
    int nunacked;
    /* A sync to answer at the next dc_next_event (unless the app answers it itself). */
    int answer_sync, sync_pending;
    uint32_t sync_serial;
    /* The serial of the last tap's end (touch or pen up) or key press handed to the app (0:
       none yet): what dc_text_input names. */
    uint32_t input_serial;
    /* Requests written and not yet taken by the socket (the compositor reads slower than the
       app writes): bytes, and the descriptors to pass with them (duplicates, each sent with the
       first byte of its message at `at`). */
    uint8_t out[DC_OUT_CAPACITY];
    size_t out_len;
    struct { size_t at; int fd; } out_fds[DC_OUT_FDS];
    int nout_fds;
};

#define DC_HIDDEN __attribute__((visibility("hidden")))

typedef struct { uint8_t b[DC_MAX_MESSAGE]; size_t n; } writer;
static inline void w8(writer *w, uint8_t v) { if (w->n < sizeof w->b) w->b[w->n++] = v; }
static inline void w32(writer *w, uint32_t v) { for (int i = 0; i < 4; i++) w8(w, (uint8_t)(v >> (8 * i))); }

/* Says why in c->error; returns -1. */
DC_HIDDEN int dc_fail(dc_connection *c, const char *fmt, ...);
/* Frames `body` as `opcode` and queues it, with a duplicate of `pass_fd` when >= 0, then writes
   what the socket takes without waiting. Waits (in poll, for the socket to take more) only
   when the queue cannot hold the message. */
DC_HIDDEN int dc_send(dc_connection *c, uint16_t opcode, const writer *body, int pass_fd);
/* Writes queued requests until the queue is empty (0) or the socket is full (-1, EAGAIN). */
DC_HIDDEN int dc_write_queued(dc_connection *c);

#endif

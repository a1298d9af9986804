/* SPDX-License-Identifier: MIT */
/* The Diptych client library in C (see diptych-client.h): the wire format of protocol version 5,
   written from its description in DiptychClient.docc/WireFormat.md. */
#define _GNU_SOURCE
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
#define DC_PER_SIZE 3
#define DC_SIZES_KEPT 6
#define DC_XRGB8888 0x34325258u
#define DC_ARGB8888 0x34325241u

struct dc_slot { dc_buffer b; int fd; size_t bytes; int used; };

struct dc_connection {
    int fd;
    uint8_t in[DC_MAX_MESSAGE * 2];
    size_t in_len;
    int closed;
    char error[512];
    struct dc_slot slots[DC_MAX_BUFFERS];
    uint32_t next_id;
    struct { int w, h; } sizes[DC_SIZES_KEPT + 1];
    int nsizes;
    /* Configure serials received and not yet acknowledged (the newest few). */
    uint32_t unacked[8];
    int nunacked;
    /* A sync to answer at the next dc_next_event (unless the app answers it itself). */
    int answer_sync, sync_pending;
    uint32_t sync_serial;
};

static int fail(dc_connection *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- bytes ---- */

typedef struct { uint8_t b[DC_MAX_MESSAGE]; size_t n; } writer;
static void w8(writer *w, uint8_t v) { if (w->n < sizeof w->b) w->b[w->n++] = v; }
static void w32(writer *w, uint32_t v) { for (int i = 0; i < 4; i++) w8(w, (uint8_t)(v >> (8 * i))); }
static void wi32(writer *w, int32_t v) { w32(w, (uint32_t)v); }
static void wstr(writer *w, const char *s) {
    size_t n = strlen(s);
    if (n > 4096) n = 4096;
    w32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++) w8(w, (uint8_t)s[i]);
}

typedef struct { const uint8_t *p; size_t n, at; int bad; } reader;
static uint64_t rn(reader *r, int bytes) {
    if (r->at + (size_t)bytes > r->n) { r->bad = 1; return 0; }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += (size_t)bytes;
    return v;
}
static uint8_t r8(reader *r) { return (uint8_t)rn(r, 1); }
static uint16_t r16(reader *r) { return (uint16_t)rn(r, 2); }
static uint32_t r32(reader *r) { return (uint32_t)rn(r, 4); }
static int32_t ri32(reader *r) { return (int32_t)r32(r); }
static uint64_t r64(reader *r) { return rn(r, 8); }
static double rf64(reader *r) { uint64_t v = r64(r); double d; memcpy(&d, &v, sizeof d); return d; }
static dc_rect rrect(reader *r) { dc_rect x; x.x = ri32(r); x.y = ri32(r); x.width = ri32(r); x.height = ri32(r); return x; }

/* ---- sending ---- */

static int send_message(dc_connection *c, uint16_t opcode, const writer *body, int pass_fd) {
    if (c->closed) return fail(c, "the connection is closed");
    uint8_t frame[DC_MAX_MESSAGE];
    size_t len = DC_HEADER + body->n;
    if (len > sizeof frame) return fail(c, "message too long");
    uint32_t l = (uint32_t)len;
    for (int i = 0; i < 4; i++) frame[i] = (uint8_t)(l >> (8 * i));
    frame[4] = DC_PROTOCOL_VERSION; frame[5] = 0;
    frame[6] = (uint8_t)opcode; frame[7] = (uint8_t)(opcode >> 8);
    memcpy(frame + DC_HEADER, body->b, body->n);
    size_t sent = 0;
    while (sent < len) {
        struct iovec iov = { frame + sent, len - sent };
        struct msghdr m = { 0 };
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        char control[CMSG_SPACE(sizeof(int))];
        if (pass_fd >= 0 && sent == 0) {
            memset(control, 0, sizeof control);
            m.msg_control = control;
            m.msg_controllen = sizeof control;
            struct cmsghdr *h = CMSG_FIRSTHDR(&m);
            h->cmsg_level = SOL_SOCKET;
            h->cmsg_type = SCM_RIGHTS;
            h->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(h), &pass_fd, sizeof(int));
        }
        ssize_t n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) { struct timespec t = { 0, 1000000 }; nanosleep(&t, NULL); continue; }
            c->closed = 1;
            return fail(c, "sendmsg: %s", strerror(errno));
        }
        sent += (size_t)n;
    }
    return 0;
}

int dc_ack(dc_connection *c, uint32_t serial) {
    int at = -1;
    for (int i = 0; i < c->nunacked; i++) if (c->unacked[i] == serial) at = i;
    if (at < 0) return fail(c, "dc_ack: serial %u is not a configure this app was sent (or it was acknowledged already)", serial);
    /* Acknowledging a configure acknowledges the older ones too. */
    memmove(c->unacked, c->unacked + at + 1, (size_t)(c->nunacked - at - 1) * sizeof c->unacked[0]);
    c->nunacked -= at + 1;
    writer w = { .n = 0 }; w32(&w, serial); return send_message(c, 2, &w, -1);
}
int dc_sync_done(dc_connection *c, uint32_t serial) {
    if (c->sync_pending && c->sync_serial == serial) c->sync_pending = 0;
    writer w = { .n = 0 }; w32(&w, serial); return send_message(c, 5, &w, -1);
}
void dc_answer_sync(dc_connection *c, int automatically) { c->answer_sync = automatically != 0; }
int dc_status_bar_style(dc_connection *c, int style) { writer w = { .n = 0 }; w8(&w, (uint8_t)style); return send_message(c, 8, &w, -1); }

/* ---- connecting ---- */

static int connect_path(const char *path) {
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) { errno = ENAMETOOLONG; return -1; }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { int e = errno; close(fd); errno = e; return -1; }
    return fd;
}

dc_connection *dc_connect(const char *name, int requires_full_screen, char *err, size_t err_size) {
    dc_connection *c = calloc(1, sizeof *c);
    if (c) c->answer_sync = 1;
    if (!c) { snprintf(err, err_size, "out of memory"); return NULL; }
    c->next_id = 1;
    const char *inherited = getenv("DIPTYCH_SOCKET_FD");
    char path[512] = "";
    if (inherited && *inherited) {
        c->fd = atoi(inherited);
        fcntl(c->fd, F_SETFD, FD_CLOEXEC);
    } else {
        const char *s = getenv("DIPTYCH_SOCKET");
        if (s && *s) snprintf(path, sizeof path, "%s", s);
        else if (getenv("XDG_RUNTIME_DIR") && *getenv("XDG_RUNTIME_DIR")) snprintf(path, sizeof path, "%s/diptych-0", getenv("XDG_RUNTIME_DIR"));
        else snprintf(path, sizeof path, "/tmp/diptych-runtime-%u/diptych-0", (unsigned)getuid());
        c->fd = connect_path(path);
        if (c->fd < 0) { snprintf(err, err_size, "cannot connect to the compositor at %s: %s", path, strerror(errno)); free(c); return NULL; }
        /* The compositor must run as our own user, as it checks of us. */
        struct ucred cred;
        socklen_t l = sizeof cred;
        if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &l) != 0 || cred.uid != getuid()) {
            snprintf(err, err_size, "the compositor at %s does not run as this user: not connecting", path);
            close(c->fd); free(c); return NULL;
        }
    }
    writer w = { .n = 0 };
    wstr(&w, name);
    w32(&w, requires_full_screen ? 1 : 0);
    if (send_message(c, 1, &w, -1) != 0) { snprintf(err, err_size, "hello: %s", c->error); close(c->fd); free(c); return NULL; }
    return c;
}

void dc_disconnect(dc_connection *c) {
    if (!c) return;
    for (int i = 0; i < DC_MAX_BUFFERS; i++) {
        struct dc_slot *s = &c->slots[i];
        if (!s->used) continue;
        munmap(s->b.pixels, s->bytes);
        close(s->fd);
    }
    close(c->fd);
    free(c);
}

int dc_fd(const dc_connection *c) { return c->fd; }
const char *dc_error(const dc_connection *c) { return c->error; }

/* ---- buffers ---- */

static void destroy_slot(dc_connection *c, struct dc_slot *s) {
    writer w = { .n = 0 };
    w32(&w, s->b.id);
    send_message(c, 7, &w, -1);
    munmap(s->b.pixels, s->bytes);
    close(s->fd);
    memset(s, 0, sizeof *s);
}

/* Keeps the last DC_SIZES_KEPT sizes asked for; buffers of older sizes go. */
static void note_size(dc_connection *c, int w, int h) {
    int at = -1;
    for (int i = 0; i < c->nsizes; i++) if (c->sizes[i].w == w && c->sizes[i].h == h) at = i;
    if (at >= 0) { memmove(&c->sizes[at], &c->sizes[at + 1], (size_t)(c->nsizes - at - 1) * sizeof c->sizes[0]); c->nsizes--; }
    c->sizes[c->nsizes].w = w; c->sizes[c->nsizes].h = h; c->nsizes++;
    if (c->nsizes <= DC_SIZES_KEPT) return;
    int ow = c->sizes[0].w, oh = c->sizes[0].h;
    memmove(&c->sizes[0], &c->sizes[1], (size_t)(c->nsizes - 1) * sizeof c->sizes[0]);
    c->nsizes--;
    for (int i = 0; i < DC_MAX_BUFFERS; i++) {
        struct dc_slot *s = &c->slots[i];
        if (s->used && s->b.width == ow && s->b.height == oh) destroy_slot(c, s);
    }
}

dc_buffer *dc_buffer_get(dc_connection *c, int width, int height) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384) { fail(c, "bad buffer size %dx%d", width, height); return NULL; }
    note_size(c, width, height);
    int same = 0, free_slot = -1;
    for (int i = 0; i < DC_MAX_BUFFERS; i++) {
        struct dc_slot *s = &c->slots[i];
        if (!s->used) { if (free_slot < 0) free_slot = i; continue; }
        if (s->b.width != width || s->b.height != height) continue;
        if (!s->b.busy) return &s->b;
        same++;
    }
    if (same >= DC_PER_SIZE || free_slot < 0) return NULL;
    struct dc_slot *s = &c->slots[free_slot];
    size_t stride = (size_t)width * 4, bytes = stride * (size_t)height;
    int fd = memfd_create("diptych-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) { fail(c, "memfd_create: %s", strerror(errno)); return NULL; }
    if (ftruncate(fd, (off_t)bytes) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        fail(c, "sizing or sealing the memfd: %s", strerror(errno)); close(fd); return NULL;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { fail(c, "mmap: %s", strerror(errno)); close(fd); return NULL; }
    s->used = 1; s->fd = fd; s->bytes = bytes;
    s->b.id = c->next_id++;
    s->b.width = width; s->b.height = height; s->b.stride = (int)stride;
    s->b.pixels = p; s->b.busy = 0;
    writer w = { .n = 0 };
    w32(&w, s->b.id);
    w32(&w, 0); w32(&w, (uint32_t)width); w32(&w, (uint32_t)height); w32(&w, (uint32_t)stride); w32(&w, DC_XRGB8888);
    if (send_message(c, 6, &w, fd) != 0) return NULL;
    return &s->b;
}

int dc_set_icon(dc_connection *c, int side, const uint32_t *pixels, int stride) {
    if (side < 120 || side > 1024 || stride < side * 4) { fail(c, "bad icon: %d pixels a side (120 to 1024), stride %d", side, stride); return -1; }
    size_t row = (size_t)side * 4, bytes = row * (size_t)side;
    int fd = memfd_create("diptych-icon", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) { fail(c, "memfd_create: %s", strerror(errno)); return -1; }
    if (ftruncate(fd, (off_t)bytes) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        fail(c, "sizing or sealing the memfd: %s", strerror(errno)); close(fd); return -1;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) { fail(c, "mmap: %s", strerror(errno)); close(fd); return -1; }
    for (int y = 0; y < side; y++) memcpy((char *)p + (size_t)y * row, (const char *)pixels + (size_t)y * (size_t)stride, row);
    munmap(p, bytes);
    uint32_t id = c->next_id++;
    writer w = { .n = 0 };
    w32(&w, id);
    w32(&w, 0); w32(&w, (uint32_t)side); w32(&w, (uint32_t)side); w32(&w, (uint32_t)row); w32(&w, DC_ARGB8888);
    int ok = send_message(c, 6, &w, fd);
    close(fd);
    if (ok != 0) return -1;
    /* The compositor copies it while it handles setIcon; the buffer goes at once. */
    writer icon = { .n = 0 };
    w32(&icon, id);
    if (send_message(c, 13, &icon, -1) != 0) return -1;
    writer gone = { .n = 0 };
    w32(&gone, id);
    return send_message(c, 7, &gone, -1);
}

/* Whether `b` is a buffer of this connection's pool. */
static int owned(const dc_connection *c, const dc_buffer *b) {
    for (int i = 0; i < DC_MAX_BUFFERS; i++) if (c->slots[i].used && &c->slots[i].b == b) return 1;
    return 0;
}

/* A buffer about to be shown: one of this connection's, not busy. */
static int usable(dc_connection *c, const dc_buffer *b, const char *what) {
    if (!b || !owned(c, b)) return fail(c, "%s: not a buffer of this connection (take one with dc_buffer_get)", what);
    if (b->busy) return fail(c, "%s: buffer %u is busy (the compositor has not released it yet)", what, b->id);
    return 0;
}

static void damage_of(writer *w, const dc_buffer *b, const dc_rect *damage, int n) {
    if (n <= 0 || !damage) {
        w32(w, 1); wi32(w, 0); wi32(w, 0); wi32(w, b->width); wi32(w, b->height);
        return;
    }
    if (n > 256) n = 256;
    w32(w, (uint32_t)n);
    for (int i = 0; i < n; i++) { wi32(w, damage[i].x); wi32(w, damage[i].y); wi32(w, damage[i].width); wi32(w, damage[i].height); }
}

int dc_pip_commit(dc_connection *c, dc_buffer *b, int playing, const dc_rect *source, const dc_rect *damage, int n) {
    if (usable(c, b, "dc_pip_commit") != 0) return -1;
    if (source && (source->width <= 0 || source->height <= 0)) return fail(c, "dc_pip_commit: the source rectangle %dx%d is empty", source->width, source->height);
    writer w = { .n = 0 };
    w32(&w, b->id);
    w8(&w, (uint8_t)((playing ? 1 : 0) | (source ? 2 : 0)));
    dc_rect none = { 0, 0, 0, 0 };
    const dc_rect *r = source ? source : &none;
    wi32(&w, r->x); wi32(&w, r->y); wi32(&w, r->width); wi32(&w, r->height);
    damage_of(&w, b, damage, n);
    b->busy = 1;
    return send_message(c, 9, &w, -1);
}

int dc_pip_close(dc_connection *c) { writer w = { .n = 0 }; return send_message(c, 10, &w, -1); }

int dc_screen_commit(dc_connection *c, uint32_t screen, dc_buffer *b, const dc_rect *damage, int n) {
    if (usable(c, b, "dc_screen_commit") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, screen); w32(&w, b->id);
    damage_of(&w, b, damage, n);
    b->busy = 1;
    return send_message(c, 11, &w, -1);
}

int dc_screen_release(dc_connection *c, uint32_t screen) { writer w = { .n = 0 }; w32(&w, screen); return send_message(c, 12, &w, -1); }

int dc_commit(dc_connection *c, dc_buffer *b, const dc_rect *damage, int n) {
    if (usable(c, b, "dc_commit") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, b->id);
    if (n <= 0) {
        w32(&w, 1); wi32(&w, 0); wi32(&w, 0); wi32(&w, b->width); wi32(&w, b->height);
    } else {
        if (n > 256) n = 256;
        w32(&w, (uint32_t)n);
        for (int i = 0; i < n; i++) { wi32(&w, damage[i].x); wi32(&w, damage[i].y); wi32(&w, damage[i].width); wi32(&w, damage[i].height); }
    }
    b->busy = 1;
    return send_message(c, 3, &w, -1);
}

int dc_snapshot(dc_connection *c, dc_buffer *b, uint32_t serial) {
    if (usable(c, b, "dc_snapshot") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, serial); w32(&w, b->id);
    b->busy = 1;
    return send_message(c, 4, &w, -1);
}

/* ---- receiving ---- */

static int decode(dc_connection *c, uint16_t opcode, const uint8_t *body, size_t n, dc_event *e) {
    reader r = { body, n, 0, 0 };
    memset(e, 0, sizeof *e);
    e->type = (enum dc_event_type)opcode;
    switch (opcode) {
    case DC_CONFIGURE:
        e->configure.serial = r32(&r);
        e->configure.role = r8(&r);
        e->configure.frame = rrect(&r);
        e->configure.pixel_width = (int)r32(&r);
        e->configure.pixel_height = (int)r32(&r);
        e->configure.horizontal_size_class = r8(&r);
        e->configure.vertical_size_class = r8(&r);
        e->configure.orientation = r8(&r);
        e->configure.arrangement = r8(&r);
        e->configure.scale = rf64(&r);
        e->configure.safe_top = rf64(&r); e->configure.safe_left = rf64(&r);
        e->configure.safe_bottom = rf64(&r); e->configure.safe_right = rf64(&r);
        if (!r.bad) {
            if (c->nunacked == (int)(sizeof c->unacked / sizeof c->unacked[0])) { memmove(c->unacked, c->unacked + 1, sizeof c->unacked - sizeof c->unacked[0]); c->nunacked--; }
            c->unacked[c->nunacked++] = e->configure.serial;
        }
        break;
    case DC_SIZE_CLASS_CHANGED:
        e->size_class_changed.horizontal = r8(&r); e->size_class_changed.vertical = r8(&r);
        e->size_class_changed.previous_horizontal = r8(&r); e->size_class_changed.previous_vertical = r8(&r);
        break;
    case DC_LIFECYCLE: e->lifecycle = r8(&r); break;
    case DC_SNAPSHOT_REQUEST:
        e->snapshot_request.serial = r32(&r);
        e->snapshot_request.frame = rrect(&r);
        e->snapshot_request.pixel_width = (int)r32(&r);
        e->snapshot_request.pixel_height = (int)r32(&r);
        e->snapshot_request.horizontal_size_class = r8(&r);
        break;
    case DC_TOUCH:
        e->touch.id = ri32(&r); e->touch.phase = r8(&r); e->touch.x = rf64(&r); e->touch.y = rf64(&r); e->touch.time = rf64(&r);
        break;
    case DC_PEN:
        e->pen.phase = r8(&r); e->pen.x = rf64(&r); e->pen.y = rf64(&r); e->pen.pressure = rf64(&r);
        e->pen.tilt_x = rf64(&r); e->pen.tilt_y = rf64(&r); e->pen.time = rf64(&r); e->pen.tool = r8(&r); e->pen.buttons = r32(&r);
        break;
    case DC_FRAME_DONE: e->frame_done.time = r64(&r); e->frame_done.refresh = rf64(&r); e->frame_done.seq = r64(&r); break;
    case DC_ERROR: {
        e->error.code = r16(&r);
        uint32_t len = r32(&r);
        if (len > 4096 || r.at + len > r.n) { r.bad = 1; break; }
        memcpy(e->error.message, body + r.at, len);
        e->error.message[len] = 0;
        r.at += len;
        break;
    }
    case DC_SYNC:
        e->sync.serial = r32(&r); e->sync.time = r64(&r);
        if (c->answer_sync) { c->sync_pending = 1; c->sync_serial = e->sync.serial; }
        break;
    case DC_RELEASE: {
        e->release.buffer = r32(&r);
        for (int i = 0; i < DC_MAX_BUFFERS; i++)
            if (c->slots[i].used && c->slots[i].b.id == e->release.buffer) c->slots[i].b.busy = 0;
        break;
    }
    case DC_SCREEN_CONNECTED: case DC_SCREEN_DISCONNECTED:
        e->screen.screen = r32(&r); e->screen.pixel_width = (int)r32(&r); e->screen.pixel_height = (int)r32(&r);
        break;
    case DC_KEYBOARD_FOCUS:
        e->keyboard_focus.focused = r8(&r);
        if (e->keyboard_focus.focused > 1) r.bad = 1;
        break;
    case DC_KEY: {
        e->key.keycode = r32(&r);
        e->key.keysym = r32(&r);
        uint32_t len = r32(&r);
        if (r.bad || len > 4096 || r.at + len > r.n) { r.bad = 1; break; }
        memcpy(e->key.text, body + r.at, len);
        e->key.text[len] = 0;
        r.at += len;
        e->key.state = r8(&r);
        e->key.modifiers = r32(&r);
        e->key.time = rf64(&r);
        if (e->key.state > DC_KEY_REPEATED) r.bad = 1;
        break;
    }
    case DC_PIP_ACTION:
        e->pip_action.action = r8(&r);
        if (e->pip_action.action > DC_PIP_CLOSE) r.bad = 1;
        break;
    case DC_REFUSED: {
        /* Three strings, each cut to its field (the rest skipped). */
        char *fields[3] = { e->refused.request, e->refused.reason, e->refused.message };
        size_t sizes[3] = { sizeof e->refused.request, sizeof e->refused.reason, sizeof e->refused.message };
        for (int i = 0; i < 3 && !r.bad; i++) {
            uint32_t len = r32(&r);
            if (r.bad || len > 4096 || r.at + len > r.n) { r.bad = 1; break; }
            size_t keep = len < sizes[i] - 1 ? len : sizes[i] - 1;
            memcpy(fields[i], body + r.at, keep);
            fields[i][keep] = 0;
            r.at += len;
        }
        break;
    }
    case DC_POINTER:
        e->pointer.phase = r8(&r);
        e->pointer.x = rf64(&r); e->pointer.y = rf64(&r);
        e->pointer.button = r32(&r);
        e->pointer.pressed = r8(&r);
        e->pointer.dx = rf64(&r); e->pointer.dy = rf64(&r);
        e->pointer.source = r8(&r);
        e->pointer.time = rf64(&r);
        if (e->pointer.phase > DC_POINTER_SCROLL || e->pointer.pressed > 1 || e->pointer.source > DC_SCROLL_CONTINUOUS) r.bad = 1;
        break;
    default:
        return fail(c, "unknown event opcode %u", opcode);
    }
    if (r.bad || r.at != r.n) return fail(c, "malformed event (opcode %u, %zu bytes)", opcode, n);
    return 0;
}

int dc_next_event(dc_connection *c, dc_event *e, int blocking) {
    /* The sync returned last time: the app has handled what came before it. */
    if (c->sync_pending) {
        c->sync_pending = 0;
        writer w = { .n = 0 }; w32(&w, c->sync_serial);
        if (send_message(c, 5, &w, -1) != 0) return -1;
    }
    for (;;) {
        if (c->in_len >= DC_HEADER) {
            uint32_t len = (uint32_t)c->in[0] | (uint32_t)c->in[1] << 8 | (uint32_t)c->in[2] << 16 | (uint32_t)c->in[3] << 24;
            uint16_t version = (uint16_t)(c->in[4] | c->in[5] << 8), opcode = (uint16_t)(c->in[6] | c->in[7] << 8);
            if (len < DC_HEADER || len > DC_MAX_MESSAGE) { c->closed = 1; return fail(c, "bad message length %u", len); }
            if (version != DC_PROTOCOL_VERSION) { c->closed = 1; return fail(c, "the compositor speaks protocol version %u, this library %u", version, DC_PROTOCOL_VERSION); }
            if (c->in_len >= len) {
                int r = decode(c, opcode, c->in + DC_HEADER, len - DC_HEADER, e);
                memmove(c->in, c->in + len, c->in_len - len);
                c->in_len -= len;
                if (r != 0) { c->closed = 1; return -1; }
                return 1;
            }
        }
        if (c->closed) return -1;
        char control[CMSG_SPACE(sizeof(int) * 8)];
        struct iovec iov = { c->in + c->in_len, sizeof c->in - c->in_len };
        struct msghdr m = { 0 };
        m.msg_iov = &iov; m.msg_iovlen = 1;
        m.msg_control = control; m.msg_controllen = sizeof control;
        ssize_t n = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC | (blocking ? 0 : MSG_DONTWAIT));
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            c->closed = 1;
            return fail(c, "recvmsg: %s", strerror(errno));
        }
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
            if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
            int count = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < count; i++) { int fd; memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd); close(fd); }
        }
        if (n == 0) { c->closed = 1; return fail(c, "the compositor closed the connection"); }
        c->in_len += (size_t)n;
    }
}

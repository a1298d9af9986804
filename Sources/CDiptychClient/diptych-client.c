/* SPDX-License-Identifier: MIT */
/* The Diptych client library in C (see diptych-client.h): connecting, requests and the buffer
   pool, in the wire format of protocol version 9 (Assets/protocol/diptych-protocol.json).
   Reading events is in events.c. */
#define _GNU_SOURCE
#include "internal.h"

#include <limits.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>

int dc_fail(dc_connection *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- bytes ---- */

static void wi32(writer *w, int32_t v) { w32(w, (uint32_t)v); }
static void wstr(writer *w, const char *s) {
    size_t n = strlen(s);
    if (n > 4096) n = 4096;
    w32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++) w8(w, (uint8_t)s[i]);
}

/* ---- sending ---- */

int dc_write_queued(dc_connection *c) {
    if (c->closed) { errno = EPIPE; return dc_fail(c, "the connection is closed"); }
    while (c->out_len > 0) {
        /* A descriptor goes with the first byte of its message: bytes before it are written
           first, then its message's bytes up to the next descriptor's message. */
        int pass = c->nout_fds > 0 && c->out_fds[0].at == 0;
        size_t end = c->out_len;
        if (c->nout_fds > pass) end = c->out_fds[pass].at;
        struct iovec iov = { c->out, end };
        struct msghdr m = { 0 };
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        char control[CMSG_SPACE(sizeof(int))];
        if (pass) {
            memset(control, 0, sizeof control);
            m.msg_control = control;
            m.msg_controllen = sizeof control;
            struct cmsghdr *h = CMSG_FIRSTHDR(&m);
            h->cmsg_level = SOL_SOCKET;
            h->cmsg_type = SCM_RIGHTS;
            h->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(h), &c->out_fds[0].fd, sizeof(int));
        }
        ssize_t n = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) { errno = EAGAIN; return -1; }
            int e = errno;
            c->closed = 1;
            dc_fail(c, "sendmsg: %s", strerror(e));
            errno = e == EAGAIN ? EPIPE : e;
            return -1;
        }
        if (pass) {
            close(c->out_fds[0].fd);
            memmove(c->out_fds, c->out_fds + 1, (size_t)(c->nout_fds - 1) * sizeof c->out_fds[0]);
            c->nout_fds--;
        }
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
        for (int i = 0; i < c->nout_fds; i++) c->out_fds[i].at -= (size_t)n;
    }
    return 0;
}

int dc_flush(dc_connection *c) {
    if (dc_write_queued(c) == 0) return 0;
    return -1;  /* errno EAGAIN: poll dc_fd for POLLOUT and call again; else dc_error says why */
}

/* Waits in poll until the socket takes queued bytes (a full queue: the compositor reads slower
   than the app writes). */
static int wait_for_room(dc_connection *c, size_t len, int with_fd) {
    while (c->out_len + len > sizeof c->out || (with_fd && c->nout_fds == DC_OUT_FDS)) {
        if (dc_write_queued(c) == 0) break;
        if (errno != EAGAIN) return -1;
        struct pollfd p = { .fd = c->fd, .events = POLLOUT };
        if (poll(&p, 1, -1) < 0 && errno != EINTR) { c->closed = 1; return dc_fail(c, "poll: %s", strerror(errno)); }
    }
    return 0;
}

int dc_send(dc_connection *c, uint16_t opcode, const writer *body, int pass_fd) {
    if (c->closed) return dc_fail(c, "the connection is closed");
    size_t len = DC_HEADER + body->n;
    if (len > DC_MAX_MESSAGE) return dc_fail(c, "message too long");
    if (wait_for_room(c, len, pass_fd >= 0) != 0) return -1;
    int fd = -1;
    if (pass_fd >= 0 && (fd = fcntl(pass_fd, F_DUPFD_CLOEXEC, 0)) < 0) return dc_fail(c, "cannot pass descriptor %d: %s", pass_fd, strerror(errno));
    uint8_t *frame = c->out + c->out_len;
    uint32_t l = (uint32_t)len;
    for (int i = 0; i < 4; i++) frame[i] = (uint8_t)(l >> (8 * i));
    frame[4] = DC_PROTOCOL_VERSION; frame[5] = 0;
    frame[6] = (uint8_t)opcode; frame[7] = (uint8_t)(opcode >> 8);
    memcpy(frame + DC_HEADER, body->b, body->n);
    if (fd >= 0) { c->out_fds[c->nout_fds].at = c->out_len; c->out_fds[c->nout_fds].fd = fd; c->nout_fds++; }
    c->out_len += len;
    /* What the socket takes now goes now; the rest with the next request, dc_flush or
       dc_next_event. */
    if (dc_write_queued(c) != 0 && errno != EAGAIN) return -1;
    return 0;
}

int dc_ack(dc_connection *c, uint32_t serial) {
    int at = -1;
    for (int i = 0; i < c->nunacked; i++) if (c->unacked[i] == serial) at = i;
    if (at < 0) return dc_fail(c, "dc_ack: serial %u is not a configure this app was sent (or it was acknowledged already)", serial);
    /* Acknowledging a configure acknowledges the older ones too. */
    memmove(c->unacked, c->unacked + at + 1, (size_t)(c->nunacked - at - 1) * sizeof c->unacked[0]);
    c->nunacked -= at + 1;
    writer w = { .n = 0 }; w32(&w, serial); return dc_send(c, DC_REQUEST_ACK, &w, -1);
}
int dc_sync_done(dc_connection *c, uint32_t serial) {
    if (c->sync_pending && c->sync_serial == serial) c->sync_pending = 0;
    writer w = { .n = 0 }; w32(&w, serial); return dc_send(c, DC_REQUEST_SYNC_DONE, &w, -1);
}
void dc_answer_sync(dc_connection *c, int automatically) { c->answer_sync = automatically != 0; }
static void wf64(writer *w, double v) { uint64_t u; memcpy(&u, &v, sizeof u); for (int i = 0; i < 8; i++) w8(w, (uint8_t)(u >> (8 * i))); }

int dc_text_input_serial(dc_connection *c, const dc_text_state *t, uint32_t serial) {
    if (!t) return dc_fail(c, "dc_text_input: no state");
    if (t->purpose < 0 || t->purpose > DC_PURPOSE_SEARCH) return dc_fail(c, "dc_text_input: unknown purpose %d", t->purpose);
    if (t->return_key < 0 || t->return_key > DC_RETURN_DONE) return dc_fail(c, "dc_text_input: unknown return key %d", t->return_key);
    uint32_t known = DC_HINT_NO_KEYBOARD | DC_HINT_CAPITALIZE_SENTENCES | DC_HINT_CAPITALIZE_WORDS | DC_HINT_CAPITALIZE_ALL | DC_HINT_NO_AUTOCORRECT
                     | DC_HINT_HAS_PREVIOUS | DC_HINT_HAS_NEXT;
    if (t->hints & ~known) return dc_fail(c, "dc_text_input: unknown hints 0x%x", t->hints & ~known);
    double caret[4] = { t->caret_x, t->caret_y, t->caret_width, t->caret_height };
    for (int i = 0; i < 4; i++)
        if (caret[i] != caret[i] || caret[i] > 1e300 || caret[i] < -1e300) return dc_fail(c, "dc_text_input: the caret is not finite");
    if (t->caret_width < 0 || t->caret_height < 0) return dc_fail(c, "dc_text_input: the caret has a negative size");
    const char *s = t->surrounding ? t->surrounding : "";
    if (strlen(s) > 256) return dc_fail(c, "dc_text_input: %zu bytes of surrounding text (at most 256)", strlen(s));
    writer w = { .n = 0 };
    w8(&w, t->enabled ? 1 : 0); w8(&w, (uint8_t)t->purpose); w32(&w, t->hints); w8(&w, (uint8_t)t->return_key);
    wf64(&w, t->caret_x); wf64(&w, t->caret_y); wf64(&w, t->caret_width); wf64(&w, t->caret_height);
    wstr(&w, s);
    w32(&w, serial);
    return dc_send(c, DC_REQUEST_TEXT_INPUT, &w, -1);
}

/* The serial of the last tap's end or key press handed to the app: a field the app focuses
   while handling it raises the keyboard (the compositor's rule for version 9). */
int dc_text_input(dc_connection *c, const dc_text_state *t) { return dc_text_input_serial(c, t, c->input_serial); }

static int label_ok(const char *s) { return s && strlen(s) <= DC_LABEL_BYTES_MAX; }

int dc_present_menu(dc_connection *c, uint32_t id, dc_rect anchor, const char *title, const dc_menu_item *items, int count) {
    if (count < 0 || count > DC_MENU_ITEMS_MAX || (count > 0 && !items))
        return dc_fail(c, "dc_present_menu: %d items (0 to %d)", count, DC_MENU_ITEMS_MAX);
    if (anchor.width < 0 || anchor.height < 0) return dc_fail(c, "dc_present_menu: the anchor has a negative size");
    const char *t = title ? title : "";
    if (!label_ok(t)) return dc_fail(c, "dc_present_menu: a title of %zu bytes (at most %d)", strlen(t), DC_LABEL_BYTES_MAX);
    for (int i = 0; i < count; i++) {
        if (!label_ok(items[i].label)) return dc_fail(c, "dc_present_menu: item %d's label is missing or over %d bytes", i, DC_LABEL_BYTES_MAX);
        if (items[i].flags & ~(uint32_t)(DC_MENU_SELECTED | DC_MENU_DISABLED | DC_MENU_HEADER | DC_MENU_INDENTED))
            return dc_fail(c, "dc_present_menu: item %d has unknown flags 0x%x", i, items[i].flags);
    }
    /* In messages of at most 1,000 items that fit 64 KiB. */
    size_t fixed = DC_HEADER + 4 + 16 + 4 + strlen(t) + 12;
    int first = 0;
    do {
        int n = 0;
        for (size_t bytes = fixed; first + n < count && n < DC_MENU_ITEMS_PER_MESSAGE; n++) {
            size_t item = 5 + strlen(items[first + n].label);
            if (bytes + item > DC_MAX_MESSAGE) break;
            bytes += item;
        }
        writer w = { .n = 0 };
        w32(&w, id); wi32(&w, anchor.x); wi32(&w, anchor.y); wi32(&w, anchor.width); wi32(&w, anchor.height);
        wstr(&w, t); w32(&w, (uint32_t)count); w32(&w, (uint32_t)first); w32(&w, (uint32_t)n);
        for (int i = first; i < first + n; i++) { w8(&w, (uint8_t)items[i].flags); wstr(&w, items[i].label); }
        if (dc_send(c, DC_REQUEST_PRESENT_MENU, &w, -1) != 0) return -1;
        first += n;
    } while (first < count);
    return 0;
}

int dc_present_alert(dc_connection *c, uint32_t id, const char *title, const char *message, int field, const char *placeholder,
                     const char *text, const dc_alert_button *buttons, int count) {
    if (count < 1 || count > DC_ALERT_BUTTONS_MAX || !buttons) return dc_fail(c, "dc_present_alert: %d buttons (1 to %d)", count, DC_ALERT_BUTTONS_MAX);
    if (field < DC_ALERT_FIELD_NONE || field > DC_ALERT_FIELD_SECURE) return dc_fail(c, "dc_present_alert: unknown field %d", field);
    const char *p = placeholder ? placeholder : "", *x = text ? text : "";
    if (!label_ok(p) || !label_ok(x)) return dc_fail(c, "dc_present_alert: the field's text is over %d bytes", DC_LABEL_BYTES_MAX);
    for (int i = 0; i < count; i++) {
        if (!label_ok(buttons[i].label)) return dc_fail(c, "dc_present_alert: button %d's label is missing or over %d bytes", i, DC_LABEL_BYTES_MAX);
        if (buttons[i].style < DC_BUTTON_STYLE_DEFAULT || buttons[i].style > DC_BUTTON_STYLE_DESTRUCTIVE)
            return dc_fail(c, "dc_present_alert: button %d has unknown style %d", i, buttons[i].style);
    }
    writer w = { .n = 0 };
    w32(&w, id); wstr(&w, title ? title : ""); wstr(&w, message ? message : ""); w8(&w, (uint8_t)field); wstr(&w, p); wstr(&w, x);
    w32(&w, (uint32_t)count);
    for (int i = 0; i < count; i++) { w8(&w, (uint8_t)buttons[i].style); wstr(&w, buttons[i].label); }
    return dc_send(c, DC_REQUEST_PRESENT_ALERT, &w, -1);
}

int dc_dismiss_presented(dc_connection *c, uint32_t id) { writer w = { .n = 0 }; w32(&w, id); return dc_send(c, DC_REQUEST_DISMISS_PRESENTED, &w, -1); }

int dc_idle_inhibit(dc_connection *c, int on) { writer w = { .n = 0 }; w8(&w, on ? 1 : 0); return dc_send(c, DC_REQUEST_IDLE_INHIBIT, &w, -1); }

int dc_status_bar_style(dc_connection *c, int style) { writer w = { .n = 0 }; w8(&w, (uint8_t)style); return dc_send(c, DC_REQUEST_STATUS_BAR_STYLE, &w, -1); }

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
    /* The app's buffers are its own: other processes of its user may not read its memory or
       re-open its descriptors through /proc/PID (DIPTYCH_DEBUGGABLE=1 leaves it debuggable). */
    const char *debuggable = getenv("DIPTYCH_DEBUGGABLE");
    if (!debuggable || strcmp(debuggable, "1") != 0) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    dc_connection *c = calloc(1, sizeof *c);
    if (c) c->answer_sync = 1;
    if (!c) { snprintf(err, err_size, "out of memory"); return NULL; }
    c->next_id = 1;
    const char *inherited = getenv("DIPTYCH_SOCKET_FD");
    char path[512] = "";
    if (inherited && *inherited) {
        /* Checked (an open socket), made close-on-exec and unset, as wl_display_connect does
           with WAYLAND_SOCKET: the app's children never inherit the compositor's connection. */
        char *end = NULL;
        errno = 0;
        long fd = strtol(inherited, &end, 10);
        struct stat st;
        int ok = errno == 0 && end != inherited && *end == '\0' && fd >= 0 && fd <= INT_MAX && fstat((int)fd, &st) == 0 && S_ISSOCK(st.st_mode);
        if (!ok) snprintf(err, err_size, "DIPTYCH_SOCKET_FD=%s is not an open socket descriptor", inherited);
        unsetenv("DIPTYCH_SOCKET_FD");
        if (!ok) { free(c); return NULL; }
        c->fd = (int)fd;
        fcntl(c->fd, F_SETFD, FD_CLOEXEC);
    } else {
        const char *s = getenv("DIPTYCH_SOCKET");
        if (s && *s) snprintf(path, sizeof path, "%s", s);
        else if (getenv("XDG_RUNTIME_DIR") && *getenv("XDG_RUNTIME_DIR")) snprintf(path, sizeof path, "%s/diptych-0", getenv("XDG_RUNTIME_DIR"));
        else {
            /* No shared folder in /tmp is guessed (another user could have made it). */
            snprintf(err, err_size, "neither DIPTYCH_SOCKET nor XDG_RUNTIME_DIR is set: set DIPTYCH_SOCKET to the socket the compositor names when it starts");
            free(c);
            return NULL;
        }
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
    if (dc_send(c, DC_REQUEST_HELLO, &w, -1) != 0) { snprintf(err, err_size, "hello: %s", c->error); close(c->fd); free(c); return NULL; }
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
    /* What the socket takes without waiting still goes (a last destroy or release). */
    dc_write_queued(c);
    for (int i = 0; i < c->nout_fds; i++) close(c->out_fds[i].fd);
    close(c->fd);
    free(c);
}

int dc_fd(const dc_connection *c) { return c->fd; }
const char *dc_error(const dc_connection *c) { return c->error; }

/* ---- buffers ---- */

static void destroy_slot(dc_connection *c, struct dc_slot *s) {
    writer w = { .n = 0 };
    w32(&w, s->b.id);
    dc_send(c, DC_REQUEST_DESTROY_BUFFER, &w, -1);
    munmap(s->b.pixels, s->bytes);
    close(s->fd);
    memset(s, 0, sizeof *s);
    s->b.busy = 1;  /* (pixels NULL) */
    s->freed = ++c->frees;
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

/* A sealed memfd of `bytes` (it cannot shrink under the compositor) mapped writable: the
   mapping, with the descriptor in *fd; NULL (and nothing left open) on failure. */
static void *shared_memory(dc_connection *c, const char *name, size_t bytes, int *fd) {
    *fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (*fd < 0) { dc_fail(c, "memfd_create: %s", strerror(errno)); return NULL; }
    if (ftruncate(*fd, (off_t)bytes) != 0 || fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        dc_fail(c, "sizing or sealing the memfd: %s", strerror(errno)); close(*fd); return NULL;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (p == MAP_FAILED) { dc_fail(c, "mmap: %s", strerror(errno)); close(*fd); return NULL; }
    return p;
}

/* createBuffer: registers the memfd as buffer `id` of width x height pixels, `stride` bytes a row. */
static int register_buffer(dc_connection *c, uint32_t id, int width, int height, size_t stride, uint32_t format, int fd) {
    writer w = { .n = 0 };
    w32(&w, id);
    w32(&w, 0); w32(&w, (uint32_t)width); w32(&w, (uint32_t)height); w32(&w, (uint32_t)stride); w32(&w, format);
    return dc_send(c, DC_REQUEST_CREATE_BUFFER, &w, fd);
}

dc_buffer *dc_buffer_get(dc_connection *c, int width, int height) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384) { dc_fail(c, "bad buffer size %dx%d", width, height); return NULL; }
    note_size(c, width, height);
    int same = 0, free_slot = -1;
    for (int i = 0; i < DC_MAX_BUFFERS; i++) {
        struct dc_slot *s = &c->slots[i];
        if (!s->used) { if (free_slot < 0 || s->freed < c->slots[free_slot].freed) free_slot = i; continue; }
        if (s->b.width != width || s->b.height != height) continue;
        if (!s->b.busy) return &s->b;
        same++;
    }
    if (same >= DC_PER_SIZE || free_slot < 0) return NULL;
    struct dc_slot *s = &c->slots[free_slot];
    size_t stride = (size_t)width * 4, bytes = stride * (size_t)height;
    int fd;
    void *p = shared_memory(c, "diptych-buffer", bytes, &fd);
    if (!p) return NULL;
    s->used = 1; s->fd = fd; s->bytes = bytes;
    s->b.id = c->next_id++;
    s->b.width = width; s->b.height = height; s->b.stride = (int)stride;
    s->b.pixels = p; s->b.busy = 0;
    if (register_buffer(c, s->b.id, width, height, stride, DC_XRGB8888, fd) != 0) return NULL;
    return &s->b;
}

int dc_set_icon(dc_connection *c, int side, const uint32_t *pixels, int stride) {
    if (side < 120 || side > 1024 || stride < side * 4) { dc_fail(c, "bad icon: %d pixels a side (120 to 1024), stride %d", side, stride); return -1; }
    size_t row = (size_t)side * 4, bytes = row * (size_t)side;
    int fd;
    void *p = shared_memory(c, "diptych-icon", bytes, &fd);
    if (!p) return -1;
    for (int y = 0; y < side; y++) memcpy((char *)p + (size_t)y * row, (const char *)pixels + (size_t)y * (size_t)stride, row);
    munmap(p, bytes);
    uint32_t id = c->next_id++;
    int ok = register_buffer(c, id, side, side, row, DC_ARGB8888, fd);
    close(fd);
    if (ok != 0) return -1;
    /* The compositor copies it while it handles setIcon; the buffer goes at once. */
    writer icon = { .n = 0 };
    w32(&icon, id);
    if (dc_send(c, DC_REQUEST_SET_ICON, &icon, -1) != 0) return -1;
    writer gone = { .n = 0 };
    w32(&gone, id);
    return dc_send(c, DC_REQUEST_DESTROY_BUFFER, &gone, -1);
}

/* Whether `b` is a buffer of this connection's pool. */
static int owned(const dc_connection *c, const dc_buffer *b) {
    for (int i = 0; i < DC_MAX_BUFFERS; i++) if (c->slots[i].used && &c->slots[i].b == b) return 1;
    return 0;
}

/* A buffer about to be shown: one of this connection's, not busy. */
static int usable(dc_connection *c, const dc_buffer *b, const char *what) {
    if (!b || !owned(c, b)) return dc_fail(c, "%s: not a buffer of this connection (take one with dc_buffer_get)", what);
    if (b->busy) return dc_fail(c, "%s: buffer %u is busy (the compositor has not released it yet)", what, b->id);
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
    if (source && (source->width <= 0 || source->height <= 0)) return dc_fail(c, "dc_pip_commit: the source rectangle %dx%d is empty", source->width, source->height);
    writer w = { .n = 0 };
    w32(&w, b->id);
    w8(&w, (uint8_t)((playing ? 1 : 0) | (source ? 2 : 0)));
    dc_rect none = { 0, 0, 0, 0 };
    const dc_rect *r = source ? source : &none;
    wi32(&w, r->x); wi32(&w, r->y); wi32(&w, r->width); wi32(&w, r->height);
    damage_of(&w, b, damage, n);
    b->busy = 1;
    return dc_send(c, DC_REQUEST_PIP_COMMIT, &w, -1);
}

int dc_pip_close(dc_connection *c) { writer w = { .n = 0 }; return dc_send(c, DC_REQUEST_PIP_CLOSE, &w, -1); }

int dc_screen_commit(dc_connection *c, uint32_t screen, dc_buffer *b, const dc_rect *damage, int n) {
    if (usable(c, b, "dc_screen_commit") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, screen); w32(&w, b->id);
    damage_of(&w, b, damage, n);
    b->busy = 1;
    return dc_send(c, DC_REQUEST_SCREEN_COMMIT, &w, -1);
}

int dc_screen_release(dc_connection *c, uint32_t screen) { writer w = { .n = 0 }; w32(&w, screen); return dc_send(c, DC_REQUEST_SCREEN_RELEASE, &w, -1); }

int dc_commit(dc_connection *c, dc_buffer *b, const dc_rect *damage, int n) {
    if (usable(c, b, "dc_commit") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, b->id);
    damage_of(&w, b, damage, n);
    b->busy = 1;
    return dc_send(c, DC_REQUEST_COMMIT, &w, -1);
}

int dc_snapshot(dc_connection *c, dc_buffer *b, uint32_t serial) {
    if (usable(c, b, "dc_snapshot") != 0) return -1;
    writer w = { .n = 0 };
    w32(&w, serial); w32(&w, b->id);
    b->busy = 1;
    return dc_send(c, DC_REQUEST_SNAPSHOT, &w, -1);
}

/* SPDX-License-Identifier: MIT */
/* libdiptych-client, reading: events taken off the socket, every length checked against the
   bytes there, decoded into dc_event; a malformed one closes the connection with a reason. */
#define _GNU_SOURCE
#include "internal.h"

#include <poll.h>

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
/* An enumerated byte: out of its range (0 to max) the event is malformed. */
static int renum(reader *r, int max) { uint8_t v = r8(r); if (v > max) r->bad = 1; return v; }
/* A string into `out` (4097 bytes): its text and a NUL; bad past 4096 bytes or the body. */
static void rtext(reader *r, char *out) {
    uint32_t len = r32(r);
    if (r->bad || len > 4096 || r->at + len > r->n) { r->bad = 1; return; }
    memcpy(out, r->p + r->at, len);
    out[len] = 0;
    r->at += len;
}
static dc_rect rrect(reader *r) { dc_rect x; x.x = ri32(r); x.y = ri32(r); x.width = ri32(r); x.height = ri32(r); return x; }

/* ---- receiving ---- */

static int decode(dc_connection *c, uint16_t opcode, const uint8_t *body, size_t n, dc_event *e) {
    reader r = { body, n, 0, 0 };
    memset(e, 0, sizeof *e);
    e->type = (enum dc_event_type)opcode;
    switch (opcode) {
    case DC_CONFIGURE:
        e->configure.serial = r32(&r);
        e->configure.role = renum(&r, DC_SECONDARY);
        e->configure.frame = rrect(&r);
        e->configure.pixel_width = (int)r32(&r);
        e->configure.pixel_height = (int)r32(&r);
        e->configure.horizontal_size_class = renum(&r, DC_REGULAR);
        e->configure.vertical_size_class = renum(&r, DC_REGULAR);
        e->configure.orientation = renum(&r, DC_PORTRAIT);
        e->configure.arrangement = renum(&r, DC_ARRANGEMENT_SPLIT_1_2);
        e->configure.scale = rf64(&r);
        e->configure.safe_top = rf64(&r); e->configure.safe_left = rf64(&r);
        e->configure.safe_bottom = rf64(&r); e->configure.safe_right = rf64(&r);
        if (!r.bad) {
            if (c->nunacked == (int)(sizeof c->unacked / sizeof c->unacked[0])) { memmove(c->unacked, c->unacked + 1, sizeof c->unacked - sizeof c->unacked[0]); c->nunacked--; }
            c->unacked[c->nunacked++] = e->configure.serial;
        }
        break;
    case DC_SIZE_CLASS_CHANGED:
        e->size_class_changed.horizontal = renum(&r, DC_REGULAR); e->size_class_changed.vertical = renum(&r, DC_REGULAR);
        e->size_class_changed.previous_horizontal = renum(&r, DC_REGULAR); e->size_class_changed.previous_vertical = renum(&r, DC_REGULAR);
        break;
    case DC_LIFECYCLE: e->lifecycle = renum(&r, DC_WILL_ENTER_FOREGROUND); break;
    case DC_SNAPSHOT_REQUEST:
        e->snapshot_request.serial = r32(&r);
        e->snapshot_request.frame = rrect(&r);
        e->snapshot_request.pixel_width = (int)r32(&r);
        e->snapshot_request.pixel_height = (int)r32(&r);
        e->snapshot_request.horizontal_size_class = renum(&r, DC_REGULAR);
        break;
    case DC_TOUCH:
        e->touch.id = ri32(&r); e->touch.phase = renum(&r, DC_TOUCH_CANCEL); e->touch.x = rf64(&r); e->touch.y = rf64(&r); e->touch.time = rf64(&r);
        e->touch.serial = r32(&r);
        break;
    case DC_PEN:
        e->pen.phase = renum(&r, DC_PEN_PROXIMITY_OUT); e->pen.x = rf64(&r); e->pen.y = rf64(&r); e->pen.pressure = rf64(&r);
        e->pen.tilt_x = rf64(&r); e->pen.tilt_y = rf64(&r); e->pen.time = rf64(&r); e->pen.tool = renum(&r, DC_TOOL_ERASER); e->pen.buttons = r32(&r);
        e->pen.serial = r32(&r);
        break;
    case DC_FRAME_DONE: e->frame_done.time = r64(&r); e->frame_done.refresh = rf64(&r); e->frame_done.seq = r64(&r); break;
    case DC_ERROR: {
        e->error.code = r16(&r);
        rtext(&r, e->error.message);
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
        rtext(&r, e->key.text);
        e->key.state = r8(&r);
        e->key.modifiers = r32(&r);
        e->key.time = rf64(&r);
        e->key.serial = r32(&r);
        if (e->key.state > DC_KEY_REPEATED) r.bad = 1;
        break;
    }
    case DC_PIP_ACTION:
        e->pip_action.action = r8(&r);
        if (e->pip_action.action > DC_PIP_CLOSE) r.bad = 1;
        break;
    case DC_TEXT_COMMIT: {
        rtext(&r, e->text_commit.text);
        break;
    }
    case DC_TEXT_DELETE:
        e->text_delete.before = r32(&r);
        e->text_delete.after = r32(&r);
        break;
    case DC_MENU_CHOSEN:
        e->menu_chosen.id = r32(&r);
        e->menu_chosen.index = r32(&r);
        break;
    case DC_ALERT_ANSWERED: {
        e->alert_answered.id = r32(&r);
        e->alert_answered.button = r32(&r);
        rtext(&r, e->alert_answered.text);
        break;
    }
    case DC_DISMISSED:
        e->dismissed.id = r32(&r);
        break;
    case DC_TEXT_INPUT_DISMISSED:
        break;
    case DC_KEYBOARD_FRAME:
        e->keyboard_frame.frame = rrect(&r);
        e->keyboard_frame.screen_frame = rrect(&r);
        e->keyboard_frame.duration = r32(&r);
        e->keyboard_frame.local = r8(&r);
        if (e->keyboard_frame.local > 1) r.bad = 1;
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
        e->pointer.serial = r32(&r);
        if (e->pointer.phase > DC_POINTER_SCROLL || e->pointer.pressed > 1 || e->pointer.source > DC_SCROLL_CONTINUOUS) r.bad = 1;
        break;
    default:
        return dc_fail(c, "unknown event opcode %u", opcode);
    }
    if (r.bad || r.at != r.n) return dc_fail(c, "malformed event (opcode %u, %zu bytes)", opcode, n);
    return 0;
}

/* Whether a whole configure is already among the bytes read (not read further): then the one
   just decoded is superseded, and only the newest state is worth drawing. */
static int newer_configure_buffered(const dc_connection *c) {
    for (size_t at = 0; at + DC_HEADER <= c->in_len;) {
        uint32_t len = (uint32_t)c->in[at] | (uint32_t)c->in[at + 1] << 8 | (uint32_t)c->in[at + 2] << 16 | (uint32_t)c->in[at + 3] << 24;
        uint16_t opcode = (uint16_t)(c->in[at + 6] | c->in[at + 7] << 8);
        if (len < DC_HEADER || at + len > c->in_len) return 0;
        if (opcode == DC_CONFIGURE) return 1;
        at += len;
    }
    return 0;
}

int dc_next_event(dc_connection *c, dc_event *e, int blocking) {
    /* The sync returned last time: the app has handled what came before it. */
    if (c->sync_pending && dc_sync_done(c, c->sync_serial) != 0) return -1;
    /* Requests still queued go first, as far as the socket takes them. */
    if (!c->closed && dc_write_queued(c) != 0 && errno != EAGAIN) return -1;
    for (;;) {
        if (c->in_len >= DC_HEADER) {
            uint32_t len = (uint32_t)c->in[0] | (uint32_t)c->in[1] << 8 | (uint32_t)c->in[2] << 16 | (uint32_t)c->in[3] << 24;
            uint16_t version = (uint16_t)(c->in[4] | c->in[5] << 8), opcode = (uint16_t)(c->in[6] | c->in[7] << 8);
            if (len < DC_HEADER || len > DC_MAX_MESSAGE) { c->closed = 1; return dc_fail(c, "bad message length %u", len); }
            if (version != DC_PROTOCOL_VERSION) { c->closed = 1; return dc_fail(c, "the compositor speaks protocol version %u, this library %u", version, DC_PROTOCOL_VERSION); }
            if (c->in_len >= len) {
                int r = decode(c, opcode, c->in + DC_HEADER, len - DC_HEADER, e);
                memmove(c->in, c->in + len, c->in_len - len);
                c->in_len -= len;
                if (r != 0) { c->closed = 1; return -1; }
                /* A configure with a newer one behind it is skipped (acking the newer acks it). */
                if (e->type == DC_CONFIGURE && newer_configure_buffered(c)) continue;
                /* The end of a tap or a key press handed to the app: a field it focuses while
                   handling it names it (dc_text_input). */
                if (e->type == DC_TOUCH && e->touch.phase == DC_TOUCH_UP) c->input_serial = e->touch.serial;
                if (e->type == DC_PEN && e->pen.phase == DC_PEN_UP) c->input_serial = e->pen.serial;
                if (e->type == DC_KEY && e->key.state == DC_KEY_PRESSED) c->input_serial = e->key.serial;
                return 1;
            }
        }
        if (c->closed) return -1;
        /* Waiting for an event while requests are queued: the socket's room is waited for too,
           and they are written as it comes. */
        while (blocking && c->out_len > 0) {
            struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLOUT };
            if (poll(&p, 1, -1) < 0) {
                if (errno == EINTR) continue;
                c->closed = 1;
                return dc_fail(c, "poll: %s", strerror(errno));
            }
            if ((p.revents & POLLOUT) && dc_write_queued(c) != 0 && errno != EAGAIN) return -1;
            if (p.revents & (POLLIN | POLLHUP | POLLERR)) break;
        }
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
            return dc_fail(c, "recvmsg: %s", strerror(errno));
        }
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
            if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
            int count = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < count; i++) { int fd; memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof fd); close(fd); }
        }
        if (n == 0) { c->closed = 1; return dc_fail(c, "the compositor closed the connection"); }
        c->in_len += (size_t)n;
    }
}

/* SPDX-License-Identifier: MIT */
/* hello.c: the smallest complete Diptych app in C, as diptych-hello (Swift) and hello.py. It fills
   its pane by size class (blue regular, orange compact), keeps clear of the status bar, draws a dot
   under every touch and pen stroke (in each buffer only what it lacks), has a text field a tap
   raises the on-screen keyboard for, answers snapshot requests at the size asked, logs its
   lifecycle, and draws at most one frame per frameDone.
     cc hello.c $(pkg-config --cflags --libs diptych-client) -o hello && diptych run --primary ./hello */
#include <diptych-client.h>
#include <stdio.h>
#include <string.h>

static struct { double x, y; } dots[4096];
static int ndots, waiting, needed, configured; static dc_event conf;
static struct { uint32_t id; int look, dots, field; double scale; } painted[8];  /* what a pool buffer shows */
/* The text field: what it holds (printable ASCII), whether it takes text, and a count of its changes. */
static char text[25]; static int editing, field_changes, field_touched, field_touch;

static void fill(dc_buffer *b, int x, int y, int w, int h, uint32_t color) {  /* clipped, by rows */
    int x0 = x < 0 ? 0 : x, x1 = x + w < b->width ? x + w : b->width, y1 = y + h < b->height ? y + h : b->height;
    for (int j = y < 0 ? 0 : y; j < y1; j++)
        for (uint32_t *row = b->pixels + (size_t)j * (size_t)(b->stride / 4), *p = row + x0; p < row + x1; p++) *p = 0xFF000000u | color;
}

/* The app at w x h pixels, `scale` pixels a point, for a pane of `size_class`: only what the
   buffer lacks (its background once for this look, then the dots added since it was drawn). */
static dc_buffer *draw(dc_connection *c, int w, int h, double scale, int size_class, double top) {
    dc_buffer *b = dc_buffer_get(c, w, h);
    if (!b) return NULL;
    int look = size_class << 16 | (int)(top * scale), k = (int)(b->id % 8);
    if (painted[k].id != b->id || painted[k].look != look || painted[k].scale != scale) {
        painted[k].id = b->id; painted[k].look = look; painted[k].scale = scale; painted[k].dots = 0; painted[k].field = -1;
        fill(b, 0, 0, w, h, size_class == DC_REGULAR ? 0x2F6FB5 : 0xE08A1E);
        fill(b, 0, (int)(top * scale), w, (int)(4 * scale), 0xFFFFFF);  /* where the content starts */
    }
    double r = 6 * scale;
    for (int i = painted[k].dots; i < ndots; i++) fill(b, (int)(dots[i].x * scale - r), (int)(dots[i].y * scale - r), (int)(2 * r), (int)(2 * r), 0xFFFFFF);
    /* The field over the dots: white, its text (or a hint) and a caret. */
    if (painted[k].field != field_changes || painted[k].dots != ndots) {
        int fx = (int)(12 * scale), fy = (int)((top + 16) * scale), fh = (int)(40 * scale), px = (int)(2 * scale), tx = fx + (int)(8 * scale);
        fill(b, fx, fy, w - 2 * fx, fh, 0xFFFFFF);
        int drawn = dc_draw_text(b, tx, fy + (fh - 7 * px) / 2, px, text[0] || editing ? text : "Tap to type", text[0] ? 0x1C1C1E : 0x8E8E93);
        if (editing) fill(b, tx + (text[0] ? drawn : 0) + (int)scale, fy + (int)(8 * scale), (int)(2 * scale), fh - 2 * (int)(8 * scale), 0x2F6FB5);
        painted[k].field = field_changes;
    }
    painted[k].dots = ndots;
    return b;
}

static void present(dc_connection *c) {
    if (!configured) return;
    if (waiting) { needed = 1; return; }
    dc_buffer *b = draw(c, conf.configure.pixel_width, conf.configure.pixel_height, conf.configure.scale,
                        conf.configure.horizontal_size_class, conf.configure.safe_top);
    if (b && dc_commit(c, b, NULL, 0) == 0) { waiting = 1; needed = 0; }
}

static void dot(dc_connection *c, double x, double y) {
    if (ndots < 4096) { dots[ndots].x = x; dots[ndots].y = y; ndots++; }
    present(c);
}

/* The field changed: the compositor is told what it takes (the caret after its text), and it is drawn. */
static void field_changed(dc_connection *c) {
    double top = conf.configure.safe_top;
    dc_text_state t = { .enabled = editing, .purpose = DC_PURPOSE_TEXT, .hints = DC_HINT_CAPITALIZE_SENTENCES, .return_key = DC_RETURN_DONE,
                        .caret_x = 21 + 12 * (double)strlen(text), .caret_y = top + 24, .caret_width = 2, .caret_height = 24, .surrounding = text };
    dc_text_input(c, &t);
    field_changes++;
    present(c);
}

/* A finger or the pen: a tap on the field edits it, a tap elsewhere ends that; strokes leave dots. */
static void contact(dc_connection *c, int id, int down, int up, double x, double y) {
    if (!configured) return;
    double top = conf.configure.safe_top, width = conf.configure.frame.width;
    if (down && x >= 12 && x < width - 12 && y >= top + 16 && y < top + 56) { field_touched = 1; field_touch = id; return; }
    if (field_touched && id == field_touch) {
        if (up) { field_touched = 0; if (!editing) { editing = 1; field_changed(c); } }
        return;
    }
    if (!up) dot(c, x, y);
    else if (editing) { editing = 0; field_changed(c); }
}

/* Typed text joins the field (printable ASCII, as much as it holds). */
static void type(dc_connection *c, const char *s) {
    size_t n = strlen(text);
    for (; *s && n < sizeof text - 1; s++) if (*s >= 0x20 && *s <= 0x7E) text[n++] = *s;
    text[n] = 0;
    field_changed(c);
}

int main(void) {
    char err[256];
    dc_connection *c = dc_connect("hello", 0, err, sizeof err);
    if (!c) { fprintf(stderr, "hello: %s\n", err); return 1; }
    static const char *names[] = { "willResignActive", "didBecomeActive", "didEnterBackground", "willEnterForeground" };
    dc_event e;
    while (dc_next_event(c, &e, 1) > 0) {
        switch (e.type) {
        case DC_CONFIGURE:  /* acked, and the new size drawn now */
            conf = e; configured = 1; waiting = 0;
            dc_ack(c, e.configure.serial); present(c); break;
        case DC_SNAPSHOT_REQUEST: {  /* the pane at another size; the live surface stays */
            double top = e.snapshot_request.frame.y < 20 ? 20 - e.snapshot_request.frame.y : 0;
            dc_buffer *b = draw(c, e.snapshot_request.pixel_width, e.snapshot_request.pixel_height,
                                (double)e.snapshot_request.pixel_width / e.snapshot_request.frame.width,
                                e.snapshot_request.horizontal_size_class, top);
            if (b) dc_snapshot(c, b, e.snapshot_request.serial);
            break;
        }
        case DC_TOUCH:
            if (e.touch.phase != DC_TOUCH_CANCEL) contact(c, e.touch.id, e.touch.phase == DC_TOUCH_DOWN, e.touch.phase == DC_TOUCH_UP, e.touch.x, e.touch.y);
            else if (field_touched && e.touch.id == field_touch) field_touched = 0;  /* a palm: no tap */
            break;
        case DC_PEN:
            if (e.pen.phase >= DC_PEN_DOWN && e.pen.phase <= DC_PEN_UP) contact(c, -2, e.pen.phase == DC_PEN_DOWN, e.pen.phase == DC_PEN_UP, e.pen.x, e.pen.y);
            break;
        case DC_TEXT_COMMIT: if (editing) type(c, e.text_commit.text); break;
        case DC_KEY:  /* the on-screen keyboard's return and delete come as keys, as a hardware keyboard's do */
            if (!editing || e.key.state == DC_KEY_RELEASED) break;
            if (e.key.keysym == 0xFF08) { if (text[0]) { text[strlen(text) - 1] = 0; field_changed(c); } }
            else if (e.key.keysym == 0xFF0D) { editing = 0; field_changed(c); }
            else if (e.key.text[0]) type(c, e.key.text);
            break;
        case DC_KEYBOARD_FOCUS: if (!e.keyboard_focus.focused && editing) { editing = 0; field_changed(c); } break;
        case DC_TEXT_INPUT_DISMISSED: if (editing) { editing = 0; field_changed(c); } break;  /* the keyboard's ↓ leaves the field */
        case DC_FRAME_DONE: waiting = 0; if (needed) present(c); break;
        case DC_LIFECYCLE: printf("hello: %s\n", names[e.lifecycle & 3]); fflush(stdout); break;
        case DC_ERROR: printf("hello: the compositor refused: %s\n", e.error.message); return 1;
        default: break;  /* a sync is answered at the next call; a release frees its buffer */
        }
    }
    fprintf(stderr, "hello: %s\n", dc_error(c));
    dc_disconnect(c);
    return 0;
}

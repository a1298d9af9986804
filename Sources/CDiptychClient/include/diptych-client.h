/* SPDX-License-Identifier: MIT */
/*
 * diptych-client.h - a Diptych app in C: connect, hello, configure/ack, shared-memory buffers
 * (memfds sealed against shrinking, registered once, committed by id, released by the
 * compositor), snapshots and every event of protocol version 9. Plain C99 and libc; one
 * connection per thread.
 *
 *   dc_connection *c = dc_connect("myapp", 0, err, sizeof err);
 *   dc_event e;
 *   while (dc_next_event(c, &e, 1) > 0) {
 *       if (e.type == DC_CONFIGURE) {
 *           dc_ack(c, e.configure.serial);
 *           dc_buffer *b = dc_buffer_get(c, e.configure.pixel_width, e.configure.pixel_height);
 *           ... draw into b->pixels (b->stride bytes a row, 0xXXRRGGBB) ...
 *           dc_commit(c, b, NULL, 0);
 *       }
 *   }
 */
#ifndef DIPTYCH_CLIENT_H
#define DIPTYCH_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol's version, opcodes, enumerations, limits and error names: generated from
   Assets/protocol/diptych-protocol.json. */
#include "diptych-protocol.h"

typedef struct dc_connection dc_connection;

typedef struct dc_rect { int32_t x, y, width, height; } dc_rect;

/* An event. dc_event is the ABI of soname libdiptych-client.so.1: its size (4136 bytes on
   LP64: x86-64 and ARM64, the targets built and tested) and every member's offset stay as they
   are (on a target that aligns doubles to 4 bytes, such as i386, the key's serial moved its
   time: rebuild there). A member a newer protocol version adds goes
   only where the struct has room for it without moving anything: into padding (the key's
   serial, between modifiers and time), or at the end of a union member smaller than the largest
   (the touch's, pen's and pointer's serial, version 9); an event without fields needs none
   (DC_TEXT_INPUT_DISMISSED). So an app built against an older header keeps working with
   this library. */
typedef struct dc_event {
    enum dc_event_type type;
    union {
        struct {
            uint32_t serial;
            int role;                       /* enum dc_role */
            dc_rect frame;                  /* points of the screen */
            int pixel_width, pixel_height;  /* the size to draw at */
            int horizontal_size_class, vertical_size_class;
            int orientation;                /* 0 landscape, 1 portrait */
            int arrangement;                /* 0 full, 1 slide-over, 2 split-2/3, 3 split-1/2 */
            double scale;                   /* pixels per point */
            double safe_top, safe_left, safe_bottom, safe_right;  /* points */
        } configure;
        struct { int horizontal, vertical, previous_horizontal, previous_vertical; } size_class_changed;
        int lifecycle;                      /* enum dc_lifecycle */
        struct { uint32_t serial; dc_rect frame; int pixel_width, pixel_height, horizontal_size_class; } snapshot_request;
        /* A finger on the pane: its id, enum dc_touch_phase, where in the pane's points, the
           time in ms; `serial` (version 9), as the key's. */
        struct { int32_t id; int phase; double x, y, time; uint32_t serial; } touch;
        /* The pen: enum dc_pen_phase, where, pressure 0 to 1, tilt in degrees, the time in ms,
           enum dc_pen_tool, its buttons' bits; `serial` (version 9), as the key's. */
        struct { int phase; double x, y, pressure, tilt_x, tilt_y, time; int tool; uint32_t buttons; uint32_t serial; } pen;
        struct { uint64_t time; double refresh; uint64_t seq; } frame_done;  /* ms; ms; the output's frame number */
        struct { int code; char message[4097]; } error;
        struct { uint32_t serial; uint64_t time; } sync;
        struct { uint32_t buffer; } release;
        struct { uint32_t screen; int pixel_width, pixel_height; } screen;
        /* The app gained (1) or lost (0) the keyboard; on losing it, every key is up. */
        struct { int focused; } keyboard_focus;
        /* A key of the app with the keyboard: the evdev code (+ 8 for an xkb keycode), the
           xkbcommon keysym, the UTF-8 text it types (empty for none and for releases), enum
           dc_key_state, enum dc_modifier bits, the time in ms. `serial` (version 9): the
           compositor's count of the input events it sent this connection (touch, pen, key and
           pointer share one increasing counter); dc_text_input_serial names one. It sits in
           what was padding before `time` (soname .1: no member moved). */
        struct { uint32_t keycode, keysym; char text[4097]; int state; uint32_t modifiers; uint32_t serial; double time; } key;
        /* The pointer over the pane, in points of the pane: enum dc_pointer_phase; for a button
           its Linux code and whether it went down; for a scroll dx, dy in points (down and right
           positive) and enum dc_scroll_source; the time in ms; `serial` (version 9), as the
           key's. */
        struct { int phase; double x, y; uint32_t button; int pressed; double dx, dy; int source; double time; uint32_t serial; } pointer;
        /* A request the policy declined now (not an error: the app lives on): what was asked
           ("pictureInPicture", "secondScreen"), why ("not-primary", "not-connected"), and a
           message for a person. A buffer sent with it is released by the event after. */
        struct { char request[64]; char reason[64]; char message[1025]; } refused;
        /* A Picture in Picture control was tapped: enum dc_pip_action. */
        struct { int action; } pip_action;
        /* Text the on-screen keyboard typed into the app's field (UTF-8). */
        struct { char text[4097]; } text_commit;
        /* Delete `before` and `after` Unicode scalar values around the caret. */
        struct { uint32_t before, after; } text_delete;
        /* Where the on-screen keyboard will be at the end of its move: in the pane's points
           (translated, not clipped; zeros when hidden), in the screen's, how long the move
           takes (ms), and whether this app raised it. */
        struct { dc_rect frame, screen_frame; uint32_t duration; int local; } keyboard_frame;
        /* The user chose item `index` of menu `id` (the menu is gone). */
        struct { uint32_t id, index; } menu_chosen;
        /* The user tapped button `button` of alert `id`, with `text` in its field (empty
           without one); the alert is gone. */
        struct { uint32_t id, button; char text[4097]; } alert_answered;
        /* Menu or alert `id` went unanswered: a tap outside the menu, the pane changed or left
           the screen. */
        struct { uint32_t id; } dismissed;
        /* DC_TEXT_INPUT_DISMISSED (version 9, no fields): the user pressed the on-screen
           keyboard's dismiss key; the app should blur its field (and turn its text input off). */
    };
} dc_event;

/* A text field's state for dc_text_input: whether it takes text now, enum dc_text_purpose,
   enum dc_text_hint bits (DC_HINT_HAS_PREVIOUS and DC_HINT_HAS_NEXT, version 9: the form has a
   field before or after this one), enum dc_return_key, the caret's rectangle in the pane's
   points, and up to 256 bytes of UTF-8 before the caret (NULL or "": unknown). */
typedef struct dc_text_state {
    int enabled;
    int purpose;
    uint32_t hints;
    int return_key;
    double caret_x, caret_y, caret_width, caret_height;
    const char *surrounding;
} dc_text_state;

/* A buffer object: a sealed memfd mapped writable, registered with the compositor. Draw into it
   only while `busy` is 0 (from a commit or snapshot until the compositor's release it reads it). */
typedef struct dc_buffer {
    uint32_t id;
    int width, height, stride;  /* stride in bytes */
    uint32_t *pixels;           /* XRGB8888: 0xXXRRGGBB, blue in the low byte */
    int busy;
} dc_buffer;

/* Connects as a launched app should (the inherited $DIPTYCH_SOCKET_FD, else $DIPTYCH_SOCKET,
   else diptych-0 in $XDG_RUNTIME_DIR) and says hello. NULL on failure, with the reason in err.
   The process is made non-dumpable (other processes of its user cannot read its memory or
   descriptors through /proc) unless DIPTYCH_DEBUGGABLE=1. */
dc_connection *dc_connect(const char *name, int requires_full_screen, char *err, size_t err_size);
void dc_disconnect(dc_connection *c);
/* The socket, for the app's own poll loop: when readable, call dc_next_event(c, &e, 0) until 0;
   while dc_flush says EAGAIN, also wait for it to be writable and call dc_flush then. */
int dc_fd(const dc_connection *c);
/* Requests are queued and written as far as the socket takes them, never waited for while
   there is room in the queue (256 KiB). dc_flush writes what is queued: 0 when all of it is
   written; -1 with errno EAGAIN when the socket is full (poll dc_fd for POLLOUT, then call it
   again); -1 with another errno (EPIPE when it is closed) when the connection broke (dc_error
   says why). A blocking dc_next_event
   writes the queue while it waits, so an app that only ever waits there need not call it. */
int dc_flush(dc_connection *c);

/* The next event: 1 with *e filled, 0 when none is there without blocking (blocking = 0), -1
   when the connection is closed or broken (dc_error says why). A release frees its buffer
   before it is returned. A configure with a newer one already read behind it is skipped (only
   the newest state is worth drawing; acking it acks the ones before). */
int dc_next_event(dc_connection *c, dc_event *e, int blocking);
const char *dc_error(const dc_connection *c);

/* Acknowledges configure `serial` (and the older ones). -1 for a serial this app was not sent or
   acknowledged already: nothing is sent. */
int dc_ack(dc_connection *c, uint32_t serial);
/* A DC_SYNC is answered for the app at its next dc_next_event call (what it had to draw before
   the sync is drawn by then). An app that answers later itself (it waits for something of its
   own) calls dc_answer_sync(c, 0) once, then dc_sync_done for each. */
void dc_answer_sync(dc_connection *c, int automatically);
int dc_sync_done(dc_connection *c, uint32_t serial);
/* How the status bar is drawn over this app's pane: enum dc_status_bar_style. */
int dc_status_bar_style(dc_connection *c, int style);
/* Whether a field of the app takes text now, and how (see dc_text_state), with the serial of
   the input event after which the app focused the field (0: none, as for a field focused by
   the app itself). The on-screen keyboard's typing arrives as DC_TEXT_COMMIT and
   DC_TEXT_DELETE (its return and delete as DC_KEY Return and BackSpace); its dismiss key as
   DC_TEXT_INPUT_DISMISSED. The keyboard shows for an enabled state (without
   DC_HINT_NO_KEYBOARD) only when `serial` names a tap the app was sent (a touch or pen lifted
   near where it came down) or a key the on-screen keyboard sent (its next/previous key, say),
   and no tap came after it; once shown it follows the app's later states. Only the app with the keyboard
   focus may enable it (else DC_REFUSED, reason "focus"). -1 for an unknown purpose, hint or
   return key, a non-finite or negative caret, or surrounding text over 256 bytes. Version 9. */
int dc_text_input_serial(dc_connection *c, const dc_text_state *state, uint32_t serial);
/* dc_text_input_serial with the serial of the last tap's end (DC_TOUCH_UP, DC_PEN_UP) or key
   press (DC_KEY_PRESSED) the library handed the app (0 before any): right for an app that
   focuses its field while handling that event, as apps built for versions 5 to 8 do (the
   library no longer sends the state again after each tap; the serial does its work). Two
   things an app built for an older library must do to keep its keyboard (library 1.1, protocol
   9): enable its field on the tap's end, not its start (a touch's down names the tap before
   it), and leave its field on DC_TEXT_INPUT_DISMISSED (a field kept enabled after the
   keyboard's ↓ raises it again only when enabled anew after a tap). */
int dc_text_input(dc_connection *c, const dc_text_state *state);

/* A menu row: its label (UTF-8, at most 256 bytes) and enum dc_menu_item_flag bits. */
typedef struct dc_menu_item { const char *label; uint32_t flags; } dc_menu_item;
/* Asks the compositor to show a menu (an iPad popover anchored at `anchor`, in the pane's
   points; a sheet from the bottom in a compact pane): answered by DC_MENU_CHOSEN with the
   item's index, or DC_DISMISSED. `id` is the app's own. One menu or alert an app at a time
   (else DC_REFUSED, reason "busy"); only while the app's pane shows ("hidden"). At most 10,000
   items (sent in messages of 1,000). -1 for more, a label over 256 bytes or unknown flags. */
int dc_present_menu(dc_connection *c, uint32_t id, dc_rect anchor, const char *title, const dc_menu_item *items, int count);
/* An alert button: its label and enum dc_alert_button_style. */
typedef struct dc_alert_button { const char *label; int style; } dc_alert_button;
/* Asks the compositor to show an alert centred in the app's pane, with 1 to 4 buttons and, with
   `field` DC_ALERT_FIELD_TEXT or _SECURE, a text field (typed with the on-screen keyboard;
   `placeholder` greyed in it while empty, `text` in it at first): answered by DC_ALERT_ANSWERED
   with the button's index and the field's text, or DC_DISMISSED. As dc_present_menu for "busy"
   and "hidden". -1 for no button or more than 4, unknown styles, or a label over 256 bytes. */
int dc_present_alert(dc_connection *c, uint32_t id, const char *title, const char *message, int field, const char *placeholder,
                     const char *text, const dc_alert_button *buttons, int count);
/* Takes the app's menu or alert `id` away (no event follows). */
int dc_dismiss_presented(dc_connection *c, uint32_t id);
/* Keeps the screen from blanking for idleness while the app is on screen (on = 1: a video
   plays), or lets it blank again (0). A blank schedule still blanks it. Version 8. */
int dc_idle_inhibit(dc_connection *c, int on);

/* A buffer of that size the compositor is not reading: a free one of the pool, else a new one
   while fewer than 3 of that size exist; NULL when all are busy (wait for a release). The pool
   keeps the six sizes asked for last: a buffer of an older size is let go, and a dc_buffer* to it
   stays busy with pixels NULL (committing it fails) until its place is needed again, which is
   only after every other of the 64 places has been used. */
dc_buffer *dc_buffer_get(dc_connection *c, int width, int height);
/* Draws UTF-8 text into the buffer in the library's small bitmap font: printable ASCII, each
   character 5 x 7 font pixels on a 6-pixel advance, each font pixel `scale` x `scale` buffer pixels
   (any other character a '?'); (x, y) its top left, `color` 0xRRGGBB, cut to the buffer. Returns
   the width drawn, as dc_text_width. The Swift and Python libraries draw the same pixels for the
   same (valid UTF-8) text; a malformed sequence here draws one '?'. */
int dc_draw_text(dc_buffer *b, int x, int y, int scale, const char *text, uint32_t color);
/* The width in buffer pixels of `text` at `scale`: 6 x scale a character. */
int dc_text_width(const char *text, int scale);
/* Shows the buffer; damage in buffer pixels (n = 0: the whole buffer). Busy until released.
   -1, with nothing sent, for a busy buffer or one not of this connection. */
int dc_commit(dc_connection *c, dc_buffer *b, const dc_rect *damage, int n);
/* Answers snapshot request `serial` with the buffer. Busy until released. */
int dc_snapshot(dc_connection *c, dc_buffer *b, uint32_t serial);
/* Shows the buffer in the app's Picture in Picture window, opening it (the primary may, or the
   app that was primary when it went to the background; else DC_REFUSED "pictureInPicture"
   "not-primary" and the buffer comes back). `playing`: the video plays (the window's controls
   offer pause). `source`: where the video is in the app's pane, in points (the window grows out
   of it and shrinks back into it), or NULL for the pane's centre. Taps on the window's controls
   come as DC_PIP_ACTION. */
int dc_pip_commit(dc_connection *c, dc_buffer *b, int playing, const dc_rect *source, const dc_rect *damage, int n);
/* Closes the app's Picture in Picture window. */
int dc_pip_close(dc_connection *c);
/* Shows the buffer on physical screen `screen` (2: the second screen, after DC_SCREEN_CONNECTED;
   the primary only, else DC_REFUSED "secondScreen"), fitted to it. Busy until released. */
int dc_screen_commit(dc_connection *c, uint32_t screen, dc_buffer *b, const dc_rect *damage, int n);
/* Gives the screen back: it mirrors the main screen again. */
int dc_screen_release(dc_connection *c, uint32_t screen);
/* Gives the app its icon: side x side premultiplied ARGB8888 pixels (120 to 1024), rows
   `stride` bytes apart, copied here into a buffer of its own (destroyed after). The compositor
   shows it 60 pt wide on the app's placeholder and over its blurred picture during a divider
   drag; at most one a second is taken (more: DC_REFUSED, reason "rate"). */
int dc_set_icon(dc_connection *c, int side, const uint32_t *pixels, int stride);

#ifdef __cplusplus
}
#endif
#endif

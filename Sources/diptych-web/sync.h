/* SPDX-License-Identifier: MIT */
/* The compositor's round trip waiting for WebKit (sync.c): a sync is answered once WebKit has
   delivered what the frame asked for, or at its deadline. And how the page says it has drawn:
   input, a resize or a dialog's answer stirs it (a script in diptych-web's world waits two
   animation frames and posts the stir's number back), and it has settled once the newest stir
   came back and its frame arrived (or had GRACE_MS to).
   Owns: the sync pending (its serial and deadline), whether the clock is a scenario's, the stirs
   sent and the one settled. */
#ifndef DIPTYCH_WEB_SYNC_H
#define DIPTYCH_WEB_SYNC_H

#include "common.h"

/* How long a frame's round trip may wait for WebKit (ms). */
#define SYNC_TIMEOUT_MS 3000
/* After the page has drawn what an input or a resize asked for (two animation frames later),
   how long its frame may take to arrive; and how long WebKit takes to synthesise a tap's click. */
#define GRACE_MS 150
#define TAP_MS 60

struct web_sync {
    dc_connection *dc;  /* borrowed (syncs are answered on it) */
    /* The compositor's round trip waiting for WebKit. */
    int pending;
    uint32_t serial;
    gint64 deadline_us;
    /* A scenario: syncs come, frames are not held for frameDone (the clock is the compositor's). */
    int virtual_clock;
    /* The stirs sent, the newest the page answered, and when (monotonic µs). */
    guint stirs, settled;
    gint64 settled_us;
};

/* Asks the page in `view` to say when it has drawn what was just sent to it; `later_ms`: once
   WebKit has had that long (TAP_MS: to turn a lifted touch into the click it synthesises).
   Nothing without a view. */
void web_sync_stir(struct web_sync *sync, WebKitWebView *view, guint later_ms);
/* The page answered stir `n` (only the newest counts). */
void web_sync_answered_stir(struct web_sync *sync, guint n);
/* Whether the page has drawn what it was last sent, and its frame (the last came at
   `last_frame_us`) had GRACE_MS to arrive. A hidden or unloaded page draws nothing: nothing to
   wait for. */
int web_sync_settled(const struct web_sync *sync, int visible, int loaded, gint64 last_frame_us);
/* When the page will have settled by the grace alone (monotonic µs): its newest stir came back
   and no frame since; 0 when it has settled already or waits for the page. */
gint64 web_sync_settles_at(const struct web_sync *sync, int visible, int loaded, gint64 last_frame_us);

/* A sync came: pending until `deadline_us`. */
void web_sync_begin(struct web_sync *sync, uint32_t serial, gint64 deadline_us);
/* Answers the pending sync; `busy`: WebKit still owed what it asked for (its deadline passed:
   logged as syncTimeout first). */
void web_sync_answer(struct web_sync *sync, int busy);

#endif

/* SPDX-License-Identifier: MIT */
/* What every part of diptych-web uses and none owns: the headers of WPE WebKit, wpebackend-fdo
   and the client library, saying things on stderr, whether to say more (DIPTYCH_WEB_DEBUG, read
   once at start), diptych-web's own script world, the hook by which a part tells its owner
   (the app) that something happened that other parts must follow, and a one-shot timer for a
   time something waits for. No state of the app is kept here. */
#ifndef DIPTYCH_WEB_COMMON_H
#define DIPTYCH_WEB_COMMON_H

#include "diptych-client.h"
#include "event-log.h"

#include <wayland-server.h>
#include <wpe/fdo.h>
#include <wpe/unstable/fdo-shm.h>
#include <wpe/webkit.h>

/* diptych-web's own script world: its probes and message handlers live there, apart from the
   page's scripts. */
#define SCRIPT_WORLD "diptych"

/* DIPTYCH_WEB_DEBUG is set: say what happens on stderr (set in main, read only after). */
extern int web_debug;

void say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* A part's word to the app (fn(data)), for what the part cannot finish alone. */
struct web_hook {
    void (*fn)(void *data);
    void *data;
};

static inline void web_hook_call(const struct web_hook *hook) {
    if (hook->fn) hook->fn(hook->data);
}

/* A one-shot timer: `due` is called once at `at_us` (monotonic µs). Armed only while something
   waits for that time; arming it again moves it. */
struct web_timer {
    guint source;
    gint64 at_us;
    struct web_hook due;
};

void web_timer_arm(struct web_timer *timer, gint64 at_us);
void web_timer_disarm(struct web_timer *timer);
/* Armed for `at_us`, or disarmed for 0 (nothing waits). */
void web_timer_set(struct web_timer *timer, gint64 at_us);

#endif

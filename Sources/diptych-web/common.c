/* SPDX-License-Identifier: MIT */
/* Saying things on stderr, and one-shot timers (common.h). */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>

int web_debug;

void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diptych-web: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static gboolean timer_due(gpointer data) {
    struct web_timer *timer = data;
    timer->source = 0;
    web_hook_call(&timer->due);
    return G_SOURCE_REMOVE;
}

void web_timer_arm(struct web_timer *timer, gint64 at_us) {
    if (timer->source && timer->at_us == at_us) return;
    web_timer_disarm(timer);
    gint64 now = g_get_monotonic_time();
    /* (Rounded up: it never fires before its time.) */
    guint ms = at_us > now ? (guint)((at_us - now + 999) / 1000) : 0;
    timer->at_us = at_us;
    timer->source = g_timeout_add(ms, timer_due, timer);
}

void web_timer_disarm(struct web_timer *timer) {
    if (timer->source) g_source_remove(timer->source);
    timer->source = 0;
}

void web_timer_set(struct web_timer *timer, gint64 at_us) {
    if (at_us) web_timer_arm(timer, at_us);
    else web_timer_disarm(timer);
}

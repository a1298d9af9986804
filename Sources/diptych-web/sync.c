/* SPDX-License-Identifier: MIT */
/* The compositor's round trip and the page's settling (sync.h). */
#include "sync.h"

struct stir_later {
    WebKitWebView *view;
    guint n;
};

static void send_stir(WebKitWebView *view, guint n) {
    char *source = g_strdup_printf(
        "requestAnimationFrame(function(){requestAnimationFrame(function(){window.webkit.messageHandlers.diptych.postMessage(%u)})})", n);
    /* In diptych-web's own script world: the page can neither replace the requestAnimationFrame
       it calls nor see or post to its handler, so it can neither stall nor forge its readiness. */
    webkit_web_view_run_javascript_in_world(view, source, SCRIPT_WORLD, NULL, NULL, NULL);
    g_free(source);
}

static gboolean send_stir_later(gpointer data) {
    struct stir_later *later = data;
    send_stir(later->view, later->n);
    return G_SOURCE_REMOVE;
}

void web_sync_stir(struct web_sync *sync, WebKitWebView *view, guint later_ms) {
    if (!view) return;
    sync->stirs++;
    if (later_ms) {
        struct stir_later *later = g_new(struct stir_later, 1);
        later->view = view;
        later->n = sync->stirs;
        g_timeout_add_full(G_PRIORITY_DEFAULT, later_ms, send_stir_later, later, g_free);
    } else {
        send_stir(view, sync->stirs);
    }
}

void web_sync_answered_stir(struct web_sync *sync, guint n) {
    if (n == sync->stirs) {
        sync->settled = n;
        sync->settled_us = g_get_monotonic_time();
    }
}

int web_sync_settled(const struct web_sync *sync, int visible, int loaded, gint64 last_frame_us) {
    if (!visible || !loaded) return 1;
    if (sync->settled != sync->stirs) return 0;
    return last_frame_us > sync->settled_us || g_get_monotonic_time() - sync->settled_us >= GRACE_MS * 1000;
}

gint64 web_sync_settles_at(const struct web_sync *sync, int visible, int loaded, gint64 last_frame_us) {
    if (!visible || !loaded || sync->settled != sync->stirs || last_frame_us > sync->settled_us) return 0;
    gint64 at = sync->settled_us + GRACE_MS * 1000;
    return at > g_get_monotonic_time() ? at : 0;
}

void web_sync_begin(struct web_sync *sync, uint32_t serial, gint64 deadline_us) {
    sync->pending = 1;
    sync->serial = serial;
    sync->deadline_us = deadline_us;
}

void web_sync_answer(struct web_sync *sync, int busy) {
    sync->pending = 0;
    /* The page never said it had drawn: the round trip is answered at its deadline, logged. */
    if (busy) {
        say("%s: a round trip answered at its %d ms bound: the page had not drawn what the frame asked for", event_log.label, SYNC_TIMEOUT_MS);
        GString *s = log_start("syncTimeout");
        g_string_append_printf(s, ",\"serial\":%u,\"ms\":%d", sync->serial, SYNC_TIMEOUT_MS);
        log_line(s);
        g_string_free(s, TRUE);
    }
    dc_sync_done(sync->dc, sync->serial);
}

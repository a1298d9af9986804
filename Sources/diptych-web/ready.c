/* SPDX-License-Identifier: MIT */
/* When a page is ready: its load finished, no resource load is in flight, and it has drawn
   nothing new for READY_QUIET_MS of real time; at most READY_BOUND_MS after its load began (then
   said, and taken as ready). Until then the compositor's round trip waits, so `render` and a
   scenario capture the page drawn, not on its way. In a scenario the text caret is hidden (it
   blinks on the wall clock). */
#include "diptych-web.h"

#define READY_QUIET_MS 500
#define READY_BOUND_MS 10000
/* How long a round trip may wait for readiness once the page has been ready (a navigation): it
   stays within the compositor's round-trip timeout. */
#define READY_AGAIN_MS 4500

static struct {
    int ready, ever_ready, answered, in_flight;
    gint64 load_started_us;
} page = { .load_started_us = 0 };

int page_ready(void) { return page.ready || !app.view; }

void ready_load_started(void) {
    page.ready = 0;
    page.load_started_us = g_get_monotonic_time();
}

/* A round trip was answered: the compositor's first wait (the long one, for the page's first
   load) is over, whatever ended it (a dialog the page raised before it finished loading). */
void ready_sync_answered(void) { page.answered = 1; }

/* How long from now a round trip may wait (µs since the monotonic epoch). Only the first may
   wait out the first load's bound: the later ones are a scenario's frames, whose round trips
   the compositor waits for less long (an app that misses one is not waited for again). */
gint64 ready_sync_deadline(void) {
    gint64 now = g_get_monotonic_time(), normal = now + SYNC_TIMEOUT_MS * 1000;
    if (page.ready) return normal;
    if (page.ever_ready || page.answered) return now + READY_AGAIN_MS * 1000;
    gint64 bound = (page.load_started_us ? page.load_started_us : now) + (READY_BOUND_MS + 500) * 1000;
    return bound > normal ? bound : normal;
}

/* Looked at every tick. */
void ready_check(void) {
    if (page.ready || !app.view) return;
    gint64 now = g_get_monotonic_time();
    if (!app.loaded) {
        /* A load that never finishes (a resource that never comes): at the bound the page is
           shown as far as it got, and taken as ready. */
        if (!page.load_started_us || now - page.load_started_us < READY_BOUND_MS * 1000) return;
        say("%s has not finished loading %d s after its load began: shown as it is, taken as ready", app.shown_uri, READY_BOUND_MS / 1000);
        app.loaded = 1;
        app.loaded_us = now;
        if (app.held && app.held->width == app.px_w && app.held->height == app.px_h && app.snapshotting >= app.nsnapshots) commit_live(app.held);
        page.ready = page.ever_ready = 1;
        answer_sync_if_done();
        return;
    }
    int quiet = now - app.last_frame_us >= READY_QUIET_MS * 1000 && now - app.loaded_us >= READY_QUIET_MS * 1000;
    if ((quiet && page.in_flight <= 0) || now - page.load_started_us >= READY_BOUND_MS * 1000) {
        if (!(quiet && page.in_flight <= 0))
            say("%s is still %s %d s after its load began: taken as ready", app.shown_uri, page.in_flight > 0 ? "loading" : "drawing", READY_BOUND_MS / 1000);
        page.ready = page.ever_ready = 1;
        if (app.debug) say("ready");
        answer_sync_if_done();
    }
}

static void on_resource_finished(WebKitWebResource *resource, gpointer data) {
    (void)resource; (void)data;
    page.in_flight--;
}

static void on_resource_started(WebKitWebView *view, WebKitWebResource *resource, WebKitURIRequest *request, gpointer data) {
    (void)view; (void)request; (void)data;
    page.in_flight++;
    /* ("finished" comes after "failed" too.) */
    g_signal_connect(resource, "finished", G_CALLBACK(on_resource_finished), NULL);
}

void ready_attach(WebKitWebView *view) { g_signal_connect(view, "resource-load-started", G_CALLBACK(on_resource_started), NULL); }

/* A scenario: the caret hidden (its blink would make two runs' captures differ). */
void hide_caret(void) {
    static int hidden;
    if (hidden || !app.content) return;
    hidden = 1;
    WebKitUserStyleSheet *sheet = webkit_user_style_sheet_new("*{caret-color:transparent !important}", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_STYLE_LEVEL_USER, NULL, NULL);
    webkit_user_content_manager_add_style_sheet(app.content, sheet);
    webkit_user_style_sheet_unref(sheet);
}

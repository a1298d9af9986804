/* SPDX-License-Identifier: MIT */
/* When a page is ready: its load finished, no resource load is in flight, and it has drawn
   nothing new for READY_QUIET_MS of real time; at most READY_BOUND_MS after its load began (then
   said, and taken as ready). After the first ready (a navigation), once its load finished and a
   frame of it is on screen: a page that keeps drawing is not waited on. Until then the
   compositor's round trip waits, so `render` and a scenario capture the page drawn, not on its
   way. In a scenario the text caret is hidden (it blinks on the wall clock). (view.h) */
#include "view.h"

#include "sync.h"

#define READY_QUIET_MS 500
#define READY_BOUND_MS 10000
/* How long a round trip may wait for readiness once the page has been ready (a navigation): it
   stays within the compositor's round-trip timeout. */
#define READY_AGAIN_MS 4500

int web_view_ready(const struct web_view *view) { return view->readiness.ready || !view->webkit; }

/* (After the first ready a scenario's frames go on with the page drawing: each round trip waits
   for what its frame asked for, not for the page to be quiet; a navigation waits for its first
   frame, within the bound.) */
int web_view_shown(const struct web_view *view) {
    if (web_view_ready(view)) return 1;
    return view->readiness.ever_ready && view->loaded && view->readiness.drawn;
}

void web_view_drawn(struct web_view *view) {
    if (view->loaded) view->readiness.drawn = 1;
}

void web_view_load_started(struct web_view *view) {
    view->readiness.ready = 0;
    view->readiness.drawn = 0;
    view->readiness.load_started_us = g_get_monotonic_time();
}

/* A round trip was answered: the compositor's first wait (the long one, for the page's first
   load) is over, whatever ended it (a dialog the page raised before it finished loading). */
void web_view_sync_answered(struct web_view *view) { view->readiness.answered = 1; }

/* Only the first round trip may wait out the first load's bound: the later ones are a
   scenario's frames, whose round trips the compositor waits for less long (an app that misses
   one is not waited for again). */
gint64 web_view_sync_deadline(const struct web_view *view) {
    gint64 now = g_get_monotonic_time(), normal = now + SYNC_TIMEOUT_MS * 1000;
    if (view->readiness.ready) return normal;
    if (view->readiness.ever_ready || view->readiness.answered) return now + READY_AGAIN_MS * 1000;
    gint64 started = view->readiness.load_started_us;
    gint64 bound = (started ? started : now) + (READY_BOUND_MS + 500) * 1000;
    return bound > normal ? bound : normal;
}

int web_view_ready_check(struct web_view *view, gint64 last_frame_us) {
    if (view->readiness.ready || !view->webkit) return WEB_READY_NOTHING;
    gint64 now = g_get_monotonic_time(), started = view->readiness.load_started_us;
    if (!view->loaded) {
        /* A load that never finishes (a resource that never comes): at the bound the page is
           shown as far as it got, and taken as ready. */
        if (!started || now - started < READY_BOUND_MS * 1000) return WEB_READY_NOTHING;
        say("%s has not finished loading %d s after its load began: shown as it is, taken as ready", view->shown_uri, READY_BOUND_MS / 1000);
        view->loaded = 1;
        view->loaded_us = now;
        view->readiness.ready = view->readiness.ever_ready = 1;
        return WEB_READY_LOAD_BOUND;
    }
    /* After the first ready, a page (a navigation's) is ready once a frame of it is on screen. */
    if (view->readiness.ever_ready && view->readiness.drawn) {
        view->readiness.ready = 1;
        if (web_debug) say("ready (drawn)");
        return WEB_READY_NOW;
    }
    int quiet = now - last_frame_us >= READY_QUIET_MS * 1000 && now - view->loaded_us >= READY_QUIET_MS * 1000;
    int in_flight = view->readiness.in_flight;
    if ((quiet && in_flight <= 0) || now - started >= READY_BOUND_MS * 1000) {
        if (!(quiet && in_flight <= 0))
            say("%s is still %s %d s after its load began: taken as ready", view->shown_uri, in_flight > 0 ? "loading" : "drawing", READY_BOUND_MS / 1000);
        view->readiness.ready = view->readiness.ever_ready = 1;
        if (web_debug) say("ready");
        return WEB_READY_NOW;
    }
    return WEB_READY_NOTHING;
}

gint64 web_view_ready_due(const struct web_view *view, gint64 last_frame_us) {
    if (view->readiness.ready || !view->webkit) return 0;
    gint64 started = view->readiness.load_started_us, bound = started + READY_BOUND_MS * 1000;
    if (!view->loaded) return started ? bound : 0;
    /* (Quiet once neither a frame nor the load came for READY_QUIET_MS.) */
    if (view->readiness.in_flight > 0) return bound;
    gint64 quiet = MAX(last_frame_us, view->loaded_us) + READY_QUIET_MS * 1000;
    return MIN(quiet, bound);
}

static void on_resource_finished(WebKitWebResource *resource, gpointer data) {
    (void)resource;
    struct web_view *view = data;
    if (--view->readiness.in_flight <= 0) web_hook_call(&view->resources_done);
}

static void on_resource_started(WebKitWebView *webkit, WebKitWebResource *resource, WebKitURIRequest *request, gpointer data) {
    (void)webkit; (void)request;
    struct web_view *view = data;
    view->readiness.in_flight++;
    /* ("finished" comes after "failed" too.) */
    g_signal_connect(resource, "finished", G_CALLBACK(on_resource_finished), view);
}

void web_view_ready_attach(struct web_view *view) { g_signal_connect(view->webkit, "resource-load-started", G_CALLBACK(on_resource_started), view); }

/* A scenario: the caret hidden (its blink would make two runs' captures differ). */
void web_view_hide_caret(struct web_view *view) {
    if (view->caret_hidden || !view->content) return;
    view->caret_hidden = 1;
    WebKitUserStyleSheet *sheet = webkit_user_style_sheet_new("*{caret-color:transparent !important}", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_STYLE_LEVEL_USER, NULL, NULL);
    webkit_user_content_manager_add_style_sheet(view->content, sheet);
    webkit_user_style_sheet_unref(sheet);
}

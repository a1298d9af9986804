/* SPDX-License-Identifier: MIT */
/* The page in its WebKit view (view.c, ready.c, video.c, icon.c, policy.c): the view and its
   wpebackend-fdo backend, the page's load and readiness, the size classes and safe area it is
   told before each resize, its faults (a crashed web process, a page that fails to load), a
   playing video's idleInhibit, its icon, and what a kiosk's page may not do.
   Owns: the WebKit view, backend and user content; the URI; whether the page has loaded and
   is ready (resources in flight, when its load began); the class sizes and the size the view is
   being given; the load and crash retries; the page's console's rate limit; the caret hidden;
   the idleInhibit held. */
#ifndef DIPTYCH_WEB_VIEW_H
#define DIPTYCH_WEB_VIEW_H

#include "common.h"
#include "pane.h"
#include "state.h"

/* The sizes (CSS px) the compositor named, with their classes: a pane's and each snapshot's. */
#define MAX_CLASS_SIZES 32

struct web_view {
    dc_connection *dc;  /* borrowed (idleInhibit and the icon are sent on it) */
    /* No resource load is in flight any more: the page may be ready (the app checks). */
    struct web_hook resources_done;
    /* The page loaded (a file: page as diptych-file:, files.c), and as the operator named it. */
    const char *uri, *shown_uri;

    struct wpe_view_backend_exportable_fdo *exportable;
    struct wpe_view_backend *backend;
    WebKitWebView *webkit;
    WebKitUserContentManager *content;

    /* The page's load finished (or was taken as finished at READY_BOUND_MS), and when. */
    int loaded;
    gint64 loaded_us;
    /* When the page is ready (ready.c): loaded, no resource in flight, drawn nothing new a
       while. */
    struct {
        int ready, ever_ready, answered, in_flight;
        gint64 load_started_us;
        /* A frame went on screen since the load finished. */
        int drawn;
    } readiness;

    struct { int width, height, hclass, vclass; } class_sizes[MAX_CLASS_SIZES];
    int nclass_sizes;
    /* The size the view is being given (CSS px): the page is told its classes first, and the
       view resized once that script has run, so the first frame of the new size is laid out
       with them. */
    int target_w, target_h, resize_pending;
    guint resize_epoch;

    /* Faults. */
    int load_retries, crash_retries, showing_error;
    gint64 last_crash_us;
    guint retry_source;
    /* WebKit's bubblewrap sandbox is on. */
    int sandboxed;
    /* A scenario's caret is hidden (its blink would make two runs' captures differ). */
    int caret_hidden;
    /* Whether the compositor is asked to keep the screen awake (a video plays: video.c). */
    int inhibiting;
    struct web_console console;
};

/* ---- view.c: the page and its view ---- */

void web_view_note_class_size(struct web_view *view, int width, int height, int hclass, int vclass);
/* The script that gives the page its size classes and safe area (the band's height less) for
   the size the view is being given (newly allocated). */
char *web_view_classes_script(const struct web_view *view, const struct web_pane *pane, double band_top);
/* The user scripts (classes, console, touch, band, video, media, field) and styles, again. */
void web_view_install_user_content(struct web_view *view, const struct web_pane *pane, double band_top);
/* The view and its backend, made for the first configure; its frames go to `client` with
   `client_data`. Then the app connects its own handlers and attaches the parts, and
   web_view_load loads the page. */
void web_view_create(struct web_view *view, const struct web_pane *pane, double band_top,
                     const struct wpe_view_backend_exportable_fdo_client *client, void *client_data);
void web_view_load(struct web_view *view, const struct web_pane *pane);
/* The view's activity as the pane's new `visible` and `focused` (the pane says the old). */
void web_view_set_activity(struct web_view *view, const struct web_pane *pane, int visible, int focused);
/* The error page naming the URL and the reason, retried with back-off. */
void web_view_show_load_error(struct web_view *view, const char *uri, const GError *error);
/* A load finished: the error page stays while its retry is to come; the retries counted again
   from 0 once the page itself loaded. */
void web_view_load_finished(struct web_view *view);
/* A scenario: the caret hidden. */
void web_view_hide_caret(struct web_view *view);

/* ---- ready.c: when the page is ready (loaded, no resource in flight, drawn nothing new a
   while) ---- */

int web_view_ready(const struct web_view *view);
/* Whether a round trip may be answered as far as loads go: the page's first load ready, a later
   one's (a navigation's) first frame on screen (an animating page need not be quiet). */
int web_view_shown(const struct web_view *view);
/* A frame of the page went on screen. */
void web_view_drawn(struct web_view *view);
void web_view_load_started(struct web_view *view);
/* How long from now a round trip may wait (µs since the monotonic epoch). */
gint64 web_view_sync_deadline(const struct web_view *view);
/* A round trip was answered. */
void web_view_sync_answered(struct web_view *view);
/* What the ready check found: nothing new, the page taken as loaded at the bound (its held frame
   may go on screen), or the page ready now. */
enum { WEB_READY_NOTHING, WEB_READY_LOAD_BOUND, WEB_READY_NOW };
int web_view_ready_check(struct web_view *view, gint64 last_frame_us);
/* When the ready check may next find something (monotonic µs), the page's last frame having
   come at `last_frame_us`; 0 when only an event can change it (or the page is ready). */
gint64 web_view_ready_due(const struct web_view *view, gint64 last_frame_us);
/* Resource loads counted from now on. */
void web_view_ready_attach(struct web_view *view);

/* ---- video.c: a playing <video> holds idleInhibit ---- */

extern const char *video_script;
void web_view_idle_inhibit(struct web_view *view, int on);
/* `view`: the struct web_view. */
void on_video_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer view);

/* ---- icon.c: the page's icon ---- */

void probe_icon(WebKitWebView *webkit);
/* `view`: the struct web_view (its page's folder; the icon is sent on its connection). */
void on_icon_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer view);

/* ---- policy.c: new windows in the same pane, permissions denied, file choosers cancelled,
   downloads refused, TLS errors shown (the error page: view.c) ---- */

void policy_attach(struct web_view *view);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * diptych-web URL [--event-log FILE] [--requires-full-screen] [--data-dir DIR | --ephemeral] [--name NAME]
 *             [--file-root DIR ... | --no-file-access | --allow-file-access] [--tls-ca FILE]
 *
 * A web page as a Diptych app: WPE WebKit renders it (wpebackend-fdo's exportable SHM path, Mesa's
 * software GL; no GPU, no display server) and every frame is copied into a Diptych buffer.
 *
 *   pane of W x H points      -> a viewport of W x H CSS px at devicePixelRatio = the scale
 *   size classes              -> data-horizontal-size-class / data-vertical-size-class on <html>,
 *                                and a `diptychsizeclasschange` event on window
 *   safe area                 -> --diptych-safe-area-inset-top/left/bottom/right on <html>
 *   willResignActive / didBecomeActive          -> blur / focus
 *   didEnterBackground / willEnterForeground    -> visibilityState hidden / visible (no frames)
 *   snapshotRequest           -> the page rendered at that size, then its live size restored
 *   touch                     -> touch events (ids kept); the pen -> pointer (mouse) events
 *   key                       -> keyboard events (keysym, xkb keycode, modifiers; repeats pressed)
 *   pointer                   -> mouse motion and buttons (held ones as modifiers); scroll -> a
 *                                smooth wheel event in CSS px (dy > 0 scrolls the page down)
 *   frameDone                 -> the page's next frame (never faster than the screen shows it)
 *   sync (scenarios)          -> answered once WebKit has delivered what the frame asked for
 *   <meta name="apple-mobile-web-app-status-bar-style"> or a dark theme-color -> statusBarStyle
 *   a focused text field      -> textInput (WebKit's input-method context: purpose, hints, caret,
 *                                the text before it; search and enterkeyhint read by a script)
 *   textCommit / textDelete   -> the context's committed / delete-surrounding (field.c)
 *   keyboardFrame (local)     -> the view ends at the keyboard's top (innerHeight follows), the
 *                                focused field scrolled into view; the pane below it the page's
 *                                background (not while a prompt() or a sign-in shows)
 *   textInputDismissed        -> the focused element blurred
 *   an input, then a focus    -> textInput names that input's serial (a focus by script: 0)
 *   a file: page              -> served by diptych-web itself from its folders, nothing outside
 *                                them (files.c); --allow-file-access: plain file: (unsafe)
 *
 * The web process crashing reloads the page with back-off; a page that fails to load shows an
 * error page naming the URL and the reason, and is retried with back-off.
 *
 * This file is the app: the compositor's events, and what needs several parts at once (frames
 * from WebKit, resizes and snapshots, the round trip's answer, the page's load); the parts are
 * in their own files (diptych-web.h lists them). Its jobs (a snapshot taken, a blank frame
 * shown, the ready check, the round trip answered) run when something they wait
 * for happens, or at the time they wait for: no timer runs while nothing is pending.
 */
#define _GNU_SOURCE
#include "diptych-web.h"

#include "connection.h"
#include "files.h"
#include "state.h"

#include <glib-unix.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the parts together ---- */

static double band_top(const struct web_app *app) { return web_band_top(&app->band, &app->pane); }

static int band_rows(const struct web_app *app) { return web_band_rows(&app->band, &app->pane); }

/* The view's live height (CSS px): the pane's less the band, and less what the keyboard this app
   raised covers. */
static int view_height(const struct web_app *app) { return app->pane.css_h - (int)lround(band_top(app)) - app->field.overlap; }

/* The pixels WebKit draws for `css` CSS px of the view: its surface is the view's size scaled
   by the device scale factor (a float) and truncated (WebCore's IntSize::scale), so a frame of
   the view's height is known at a fractional scale too (the keyboard's overlap is not rounded
   apart from the rest). */
static int view_pixels(const struct web_app *app, int css) { return (int)((float)css * (float)app->pane.scale); }

static int view_rows(const struct web_app *app) { return view_pixels(app, view_height(app)); }

/* Whether the view is busy with snapshots or a resize (its buffers are theirs). */
static int resizing(const struct web_app *app) { return web_frames_snapshotting(&app->frames) || app->view.resize_pending; }

/* Whether the page has drawn what it was last sent (sync.h). */
static int settled(const struct web_app *app) {
    return web_sync_settled(&app->sync, app->pane.visible, app->view.loaded, app->frames.last_frame_us);
}

static void stir_after(struct web_app *app, guint later_ms) { web_sync_stir(&app->sync, app->view.webkit, later_ms); }

static void stir(struct web_app *app) { stir_after(app, 0); }

static void answer_sync_if_done(struct web_app *app);
static void poke(struct web_app *app);

/* ---- sizes and snapshots ---- */

struct classes_told { struct web_app *app; guint epoch; };

static void on_classes_told(GObject *object, GAsyncResult *result, gpointer data) {
    struct classes_told *told = data;
    struct web_app *app = told->app;
    guint epoch = told->epoch;
    g_free(told);
    WebKitJavascriptResult *r = webkit_web_view_run_javascript_finish(WEBKIT_WEB_VIEW(object), result, NULL);
    if (r) webkit_javascript_result_unref(r);
    if (epoch != app->view.resize_epoch) return;  /* a newer size was asked for */
    app->view.resize_pending = 0;
    wpe_view_backend_dispatch_set_size(app->view.backend, (uint32_t)app->view.target_w, (uint32_t)app->view.target_h);
    /* The keyboard shows: the focused field scrolled into view above it. */
    if (app->field.overlap > 0 && !web_frames_snapshotting(&app->frames) && app->view.target_h == view_height(app))
        web_field_reveal(&app->field, app->view.target_h);
    stir(app);
    /* (A snapshot's frame may be waited for now.) */
    poke(app);
}

/* Gives the view css_w x css_h (a pane's size less the band, and the keyboard): the page's classes
   for that size first, then the size. */
static void resize_to(struct web_app *app, int css_w, int css_h) {
    struct web_view *view = &app->view;
    view->target_w = css_w;
    view->target_h = css_h;
    view->resize_pending = 1;
    view->resize_epoch++;
    view->resize_started_us = g_get_monotonic_time();
    web_view_install_user_content(view, &app->pane, band_top(app));
    char *source = web_view_classes_script(view, &app->pane, band_top(app));
    struct classes_told *told = g_new(struct classes_told, 1);
    told->app = app;
    told->epoch = view->resize_epoch;
    webkit_web_view_run_javascript(view->webkit, source, NULL, on_classes_told, told);
    g_free(source);
}

/* The page at the next snapshot's size and size class (as iOS resizes an app offscreen for
   its snapshots), or back at its live size and class once all are taken. */
static void next_snapshot(struct web_app *app) {
    app->frames.candidate = NULL;
    if (web_frames_snapshotting(&app->frames)) {
        struct web_snapshot *s = web_frames_snapshot(&app->frames);
        resize_to(app, s->css_w, s->css_h - (int)lround(band_top(app)));
    } else {
        web_frames_drop_snapshots(&app->frames);
        resize_to(app, app->pane.css_w, view_height(app));
        answer_sync_if_done(app);
    }
}

/* The view resized to the pane less the band and the keyboard (after either changed), in the
   pane's size classes (a keyboard changes no class, as on iPad). */
static void relayout_view(struct web_app *app) {
    web_frames_resized(&app->frames);
    web_view_note_class_size(&app->view, app->pane.css_w, view_height(app), app->pane.hclass, app->pane.vclass);
    if (!web_frames_snapshotting(&app->frames)) resize_to(app, app->pane.css_w, view_height(app));
}

/* ---- frames ---- */

static void commit_live(struct web_app *app, dc_buffer *b) {
    web_frames_commit_live(&app->frames, b);
    web_view_drawn(&app->view);
}

static void on_frame(void *data, struct wpe_fdo_shm_exported_buffer *exported) {
    struct web_app *app = data;
    struct web_frames *frames = &app->frames;
    const struct web_pane *pane = &app->pane;
    struct web_view *view = &app->view;
    struct wl_shm_buffer *shm = wpe_fdo_shm_exported_buffer_get_shm_buffer(exported);
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm);
    if (web_debug) say("frame %dx%d (live %dx%d, snapshot %d of %d)", w, h, pane->px_w, pane->px_h, frames->snapshotting, frames->nsnapshots);
    frames->last_frame_us = g_get_monotonic_time();
    int hold = 0;
    if (web_frames_snapshotting(frames)) {
        struct web_snapshot *s = web_frames_snapshot(frames);
        if (!view->resize_pending && w == s->px_w && h == view_pixels(app, s->css_h - (int)lround(band_top(app)))) {
            dc_buffer *b = frames->candidate ? frames->candidate : dc_buffer_get(app->dc, s->px_w, s->px_h);
            if (b) web_frames_copy(&app->band, pane, shm, b);
            frames->candidate = b;
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(view->exportable, exported);
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(view->exportable);
            return;
        }
    } else if (pane->configured && !view->resize_pending && w == pane->px_w && h == view_rows(app)) {
        dc_buffer *held = web_frames_held_fitting(frames, pane);
        dc_buffer *b = held ? held : dc_buffer_get(app->dc, pane->px_w, pane->px_h);
        if (b) {
            web_frames_copy(&app->band, pane, shm, b);
            int blank = view->loaded && !frames->shown_live_size && g_get_monotonic_time() - view->loaded_us < BLANK_MS * 1000
                && web_frames_one_colour(b, band_rows(app));
            /* (A dialog of a page still loading, an HTTP sign-in: what it drew shows under it.) */
            if ((view->loaded || web_dialogs_showing(&app->dialogs)) && !blank) {
                if (web_debug && !frames->shown_live_size && view->resize_started_us)
                    say("the first frame of %dx%d, %.1f ms after its resize", w, h, (double)(g_get_monotonic_time() - view->resize_started_us) / 1000.0);
                commit_live(app, b);
                /* Live, WebKit's next frame waits for this one to reach the screen. */
                hold = !app->sync.virtual_clock;
            } else {
                frames->held = b;
            }
        }
    }
    wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(view->exportable, exported);
    if (hold) frames->frame_complete_owed = 1;
    else wpe_view_backend_exportable_fdo_dispatch_frame_complete(view->exportable);
    answer_sync_if_done(app);
    poke(app);
}

/* ---- the compositor's round trip ---- */

/* Whether WebKit still owes what the compositor asked for: snapshots, a frame at the live size,
   the answer to input dispatched lately (none while a dialog blocks the page), the page's first
   load ready, or a later one's first frame drawn (an animating page need not be quiet). */
static int webkit_busy(const struct web_app *app) {
    if (!app->pane.configured) return 0;
    /* A dialog showing blocks the page until the user answers: nothing more will come (not even
       a resize's, whose script waits for the page). */
    if (web_dialogs_showing(&app->dialogs)) return 0;
    if (resizing(app)) return 1;
    if (!settled(app)) return 1;
    if (!web_view_shown(&app->view)) return 1;
    if (app->pane.visible && !app->frames.shown_live_size) return 1;
    return 0;
}

static void answer_sync_if_done(struct web_app *app) {
    if (!app->sync.pending) return;
    int busy = webkit_busy(app);
    if (busy && g_get_monotonic_time() < app->sync.deadline_us) return;
    if (web_debug) say("sync %u answered (busy %d)", app->sync.serial, busy);
    /* (The field's state of this turn goes before the answer.) */
    web_field_flush(&app->field);
    web_sync_answer(&app->sync, busy);
    web_view_sync_answered(&app->view);
}

/* The page is ready, or taken as loaded at its bound (its held frame shown as it is). */
static void ready_check(struct web_app *app) {
    switch (web_view_ready_check(&app->view, app->frames.last_frame_us)) {
    case WEB_READY_LOAD_BOUND: {
        dc_buffer *held = web_frames_held_fitting(&app->frames, &app->pane);
        if (held && !web_frames_snapshotting(&app->frames)) commit_live(app, held);
        answer_sync_if_done(app);
        break;
    }
    case WEB_READY_NOW:
        answer_sync_if_done(app);
        break;
    default:
        break;
    }
}

/* ---- the jobs, and what sets them going ---- */

/* A snapshot's frame waits for the page to settle at its size. */
static int snapshot_waiting(const struct web_app *app) {
    return app->frames.candidate && web_frames_snapshotting(&app->frames) && !app->view.resize_pending;
}

/* When the frame held back (of one colour, the page loaded, or under a dialog) goes on screen
   as it is; 0: none is held so. */
static gint64 blank_shown_at(const struct web_app *app) {
    if (!web_frames_held_fitting(&app->frames, &app->pane) || web_frames_snapshotting(&app->frames)) return 0;
    if (!app->view.loaded && !web_dialogs_showing(&app->dialogs)) return 0;
    return app->view.loaded_us + BLANK_MS * 1000;
}

/* Each job, when what it waits for has come: a snapshot taken once the page settled at its size;
   a blank frame held back shown as it is; the page found ready; the round trip answered. */
static void run_jobs(struct web_app *app) {
    struct web_frames *frames = &app->frames;
    /* The snapshot's page has settled at its size: its newest frame is the snapshot. */
    if (snapshot_waiting(app) && settled(app)) {
        web_frames_snapshot_taken(frames);
        next_snapshot(app);
    }
    /* The page is loaded and only drew one colour: that may be all it is. */
    gint64 blank = blank_shown_at(app);
    if (blank && g_get_monotonic_time() >= blank) commit_live(app, frames->held);
    ready_check(app);
    answer_sync_if_done(app);
}

/* Each time a job waits for, its timer armed; the others disarmed: nothing pending, no wakeup. */
static void schedule(struct web_app *app) {
    int waits_for_settling = app->sync.pending || snapshot_waiting(app);
    web_timer_set(&app->triggers.settle,
                  waits_for_settling ? web_sync_settles_at(&app->sync, app->pane.visible, app->view.loaded, app->frames.last_frame_us) : 0);
    web_timer_set(&app->triggers.deadline, app->sync.pending ? app->sync.deadline_us : 0);
    web_timer_set(&app->triggers.blank, blank_shown_at(app));
    web_timer_set(&app->triggers.ready, web_view_ready_due(&app->view, app->frames.last_frame_us));
}

/* A script dialog or a sign-in shows, or no longer does: the keyboard's frames are not the
   field's meanwhile (a prompt()'s own field raised it); once it closes the view follows the
   keyboard again. */
static void keyboard_under_dialogs(struct web_app *app) {
    if (web_field_block(&app->field, &app->pane, &app->band, web_dialogs_showing(&app->dialogs)) & WEB_FIELD_RESIZE) relayout_view(app);
}

static void update(struct web_app *app) {
    /* (A dialog answered, cancelled or gone with its page.) */
    keyboard_under_dialogs(app);
    run_jobs(app);
    schedule(app);
}

/* A timer's time came. */
static void on_due(void *data) { update(data); }

static gboolean on_poked(gpointer data) {
    struct web_app *app = data;
    app->triggers.update = 0;
    update(app);
    return G_SOURCE_REMOVE;
}

/* Something a job may wait for happened (in WebKit's callbacks): the jobs run once, when the
   loop is next free. */
static void poke(struct web_app *app) {
    if (!app->triggers.update) app->triggers.update = g_idle_add_full(G_PRIORITY_DEFAULT, on_poked, app, NULL);
}

/* ---- WebKit's word ---- */

/* The page answered a stir (sync.h). */
static void on_settle_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager;
    struct web_app *app = data;
    guint n = (guint)jsc_value_to_int32(webkit_javascript_result_get_js_value(result));
    web_sync_answered_stir(&app->sync, n);
    web_field_stir_answered(&app->field, n);
    poke(app);
}

static void on_band_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager;
    struct web_app *app = data;
    int news = web_band_message(&app->band, result);
    /* The view takes the pane's new height (a frame of it follows). */
    if (news & WEB_BAND_RELAYOUT) relayout_view(app);
    else if ((news & WEB_BAND_RECOLOURED) && app->frames.live && band_rows(app) > 0) stir(app);
    poke(app);
}

static void on_style_read(GObject *object, GAsyncResult *result, gpointer data) {
    struct web_app *app = data;
    if (web_band_style_read(&app->band, WEBKIT_WEB_VIEW(object), result)) web_band_send_style(&app->band, &app->pane);
}

static void on_load_changed(WebKitWebView *webkit, WebKitLoadEvent event, gpointer data) {
    struct web_app *app = data;
    struct web_view *view = &app->view;
    if (web_debug) say("load event %d", (int)event);
    /* The input before forgotten once a load starts; the field over once its page is replaced
       (WebKit may say nothing of it): a load that never commits (a download refused, a
       navigation cancelled) leaves the field focused and its keyboard up. */
    if (event == WEBKIT_LOAD_STARTED || event == WEBKIT_LOAD_COMMITTED) web_field_navigated(&app->field, event == WEBKIT_LOAD_COMMITTED);
    if (event == WEBKIT_LOAD_STARTED) {
        view->loaded = 0;
        /* The page that played is gone. */
        web_view_idle_inhibit(view, 0);
        web_view_load_started(view);
    }
    /* (Where it goes, then where it went: a redirect may take it to another origin.) */
    if (event == WEBKIT_LOAD_STARTED || event == WEBKIT_LOAD_COMMITTED) web_dialogs_navigated(&app->dialogs, webkit_web_view_get_uri(webkit));
    /* (A load started: its ready check's bound is waited for.) */
    poke(app);
    if (event != WEBKIT_LOAD_FINISHED) return;
    if (web_dialogs_sign_in_again(&app->dialogs)) {
        say("WebKit dropped the sign-in it asked for: loading %s again to be asked again", view->shown_uri);
        webkit_web_view_load_uri(webkit, view->uri); /* (a reload does nothing: nothing was committed) */
        return;
    }
    view->loaded = 1;
    view->loaded_us = g_get_monotonic_time();
    /* A stir the page that went away never answered (it navigated right after an input or a
       dialog's answer): asked again of this one, else the page would never count as settled. */
    if (app->sync.settled != app->sync.stirs) stir(app);
    /* A frame drawn while it loaded, not blank, goes on screen now. */
    dc_buffer *held = web_frames_held_fitting(&app->frames, &app->pane);
    if (held && !web_frames_snapshotting(&app->frames) && !web_frames_one_colour(held, band_rows(app))) commit_live(app, held);
    answer_sync_if_done(app);
    web_view_load_finished(view);
    webkit_web_view_run_javascript_in_world(webkit, style_probe, SCRIPT_WORLD, NULL, on_style_read, app);
    if (!view->showing_error) probe_icon(webkit);
}

static gboolean on_option_menu(WebKitWebView *webkit, WebKitOptionMenu *menu, WebKitRectangle *rect, gpointer data) {
    struct web_app *app = data;
    if (!web_dialogs_option_menu(&app->dialogs, webkit, menu, rect, band_top(app))) return FALSE;
    stir(app);
    poke(app);
    return TRUE;
}

static gboolean on_script_dialog(WebKitWebView *webkit, WebKitScriptDialog *dialog, gpointer data) {
    struct web_app *app = data;
    if (web_dialogs_script_dialog(&app->dialogs, webkit, dialog)) web_frames_blank_under_dialog(&app->frames, &app->pane, resizing(app));
    keyboard_under_dialogs(app);
    /* (A dialog showing: the round trip is not waited for.) */
    poke(app);
    return TRUE;
}

static gboolean on_authenticate(WebKitWebView *webkit, WebKitAuthenticationRequest *request, gpointer data) {
    struct web_app *app = data;
    int r = web_dialogs_authenticate(&app->dialogs, webkit, request);
    if (r < 0) return FALSE;
    if (r > 0) web_frames_blank_under_dialog(&app->frames, &app->pane, resizing(app));
    keyboard_under_dialogs(app);
    poke(app);
    return TRUE;
}

/* WebKit cancelled the sign-in that showed. */
static void dialogs_stir(void *data) {
    stir(data);
    poke(data);
}

static void field_send(void *data) {
    struct web_app *app = data;
    web_field_send(&app->field, &app->pane, &app->band);
}

/* No resource load is in flight any more: the page may be ready. */
static void resources_done(void *data) { poke(data); }

static void create_view(struct web_app *app) {
    static const struct wpe_view_backend_exportable_fdo_client client = { .export_shm_buffer = on_frame };
    struct web_view *view = &app->view;
    web_view_create(view, &app->pane, band_top(app), &client, app);
    g_signal_connect(view->content, "script-message-received::diptych", G_CALLBACK(on_settle_message), app);
    g_signal_connect(view->content, "script-message-received::diptychBand", G_CALLBACK(on_band_message), app);
    g_signal_connect(view->content, "script-message-received::diptychField", G_CALLBACK(on_field_message), &app->field);
    web_field_attach(&app->field, view->webkit);
    g_signal_connect(view->webkit, "show-option-menu", G_CALLBACK(on_option_menu), app);
    g_signal_connect(view->webkit, "script-dialog", G_CALLBACK(on_script_dialog), app);
    g_signal_connect(view->webkit, "authenticate", G_CALLBACK(on_authenticate), app);
    g_signal_connect(view->webkit, "load-changed", G_CALLBACK(on_load_changed), app);
    web_view_load(view, &app->pane);
}

static void set_activity(struct web_app *app, int visible, int focused) {
    /* (Before WebKit hears it: its focus-out for the view is not the field's.) */
    web_field_view_focus(&app->field, focused);
    web_view_set_activity(&app->view, &app->pane, visible, focused);
    app->pane.visible = visible;
    app->pane.focused = focused;
}

/* ---- the compositor's events ---- */

static void configure(struct web_app *app, const dc_event *e) {
    struct web_pane *pane = &app->pane;
    int first = !pane->configured;
    int was_primary = pane->role == DC_PRIMARY;
    dc_ack(app->dc, e->configure.serial);
    pane->configured = 1;
    pane->role = e->configure.role;
    if (e->configure.pixel_width != pane->px_w || e->configure.pixel_height != pane->px_h) {
        web_frames_resized(&app->frames);
        web_field_resized(&app->field);
    }
    pane->css_w = e->configure.frame.width;
    pane->css_h = e->configure.frame.height;
    pane->px_w = e->configure.pixel_width;
    pane->px_h = e->configure.pixel_height;
    pane->hclass = e->configure.horizontal_size_class;
    pane->vclass = e->configure.vertical_size_class;
    double scale = e->configure.scale > 0 ? e->configure.scale : (double)pane->px_w / pane->css_w;
    pane->safe[0] = e->configure.safe_top; pane->safe[1] = e->configure.safe_left;
    pane->safe[2] = e->configure.safe_bottom; pane->safe[3] = e->configure.safe_right;
    /* The drag that asked for snapshots is over. */
    web_frames_drop_snapshots(&app->frames);
    int view_h = view_height(app);
    if (first) {
        pane->scale = scale;
        web_view_note_class_size(&app->view, pane->css_w, pane->css_h, pane->hclass, pane->vclass);
        web_view_note_class_size(&app->view, pane->css_w, view_h, pane->hclass, pane->vclass);
        app->view.target_w = pane->css_w;
        app->view.target_h = view_h;
        create_view(app);
    } else {
        if (scale != pane->scale) {
            pane->scale = scale;
            wpe_view_backend_dispatch_set_device_scale_factor(app->view.backend, (float)scale);
        }
        web_view_note_class_size(&app->view, pane->css_w, pane->css_h, pane->hclass, pane->vclass);
        web_view_note_class_size(&app->view, pane->css_w, view_h, pane->hclass, pane->vclass);
        resize_to(app, pane->css_w, view_h);
    }
    if (pane->role == DC_PRIMARY && !was_primary) app->band.sent_style = -1;
    web_band_send_style(&app->band, pane);
}

/* An input to the page: stirred when WebKit has it; a field it focuses is its (field.h). */
static void input(struct web_app *app, const dc_event *e) {
    int ended, later = web_input_event(&app->input, &app->view, &app->pane, &app->band, e, &ended);
    if (later >= 0) stir_after(app, (guint)later);
    if (ended == WEB_INPUT_NONE) return;
    uint32_t serial = e->type == DC_TOUCH ? e->touch.serial : e->type == DC_PEN ? e->pen.serial : e->type == DC_KEY ? e->key.serial : e->pointer.serial;
    web_field_input(&app->field, serial, ended == WEB_INPUT_TAP, app->sync.stirs);
}

static void handle(struct web_app *app, const dc_event *e) {
    log_event(e);
    if (web_debug && e->type != DC_SYNC) say("event %d", (int)e->type);
    struct web_view *view = &app->view;
    switch (e->type) {
    case DC_CONFIGURE:
        configure(app, e);
        break;
    case DC_LIFECYCLE:
        switch (e->lifecycle) {
        case DC_WILL_RESIGN_ACTIVE: set_activity(app, app->pane.visible, 0); break;
        case DC_DID_BECOME_ACTIVE: set_activity(app, 1, 1); break;
        case DC_DID_ENTER_BACKGROUND: set_activity(app, 0, 0); break;
        case DC_WILL_ENTER_FOREGROUND: set_activity(app, 1, app->pane.focused); break;
        }
        break;
    case DC_SNAPSHOT_REQUEST: {
        if (!view->webkit) break;
        struct web_snapshot *s = web_frames_add_snapshot(&app->frames, e);
        if (!s) break;
        web_view_note_class_size(view, s->css_w, s->css_h - (int)lround(band_top(app)), s->hclass, app->pane.vclass);
        if (app->frames.nsnapshots == 1) next_snapshot(app);
        break;
    }
    case DC_TOUCH:
    case DC_PEN:
    case DC_KEY:
    case DC_POINTER:
        input(app, e);
        break;
    case DC_FRAME_DONE:
        web_frames_pay_owed(&app->frames, view->exportable);
        break;
    case DC_SYNC:
        /* A scenario: frames are not held for frameDone (the clock is the compositor's), and
           the caret is hidden. */
        app->sync.virtual_clock = 1;
        web_view_hide_caret(view);
        web_frames_pay_owed(&app->frames, view->exportable);
        web_sync_begin(&app->sync, e->sync.serial, web_view_sync_deadline(view));
        answer_sync_if_done(app);
        break;
    case DC_TEXT_COMMIT:
    case DC_TEXT_DELETE:
    case DC_KEYBOARD_FRAME:
    case DC_TEXT_INPUT_DISMISSED: {
        int todo = web_field_event(&app->field, &app->pane, &app->band, e);
        if (todo & WEB_FIELD_RESIZE) relayout_view(app);
        if (todo & WEB_FIELD_STIR) stir(app);
        break;
    }
    case DC_MENU_CHOSEN:
    case DC_ALERT_ANSWERED:
    case DC_DISMISSED:
    case DC_REFUSED:
        if (web_dialogs_event(&app->dialogs, e)) stir(app);
        break;
    case DC_ERROR:
        say("the compositor reported a protocol error: %s", e->error.message);
        g_main_loop_quit(app->loop);
        break;
    default:
        break;
    }
}

static gboolean on_socket(gpointer data) {
    struct web_app *app = data;
    dc_event e;
    int r;
    while ((r = dc_next_event(app->dc, &e, 0)) > 0) handle(app, &e);
    if (r < 0) {
        g_main_loop_quit(app->loop);
        return G_SOURCE_REMOVE;
    }
    /* (A sync came, a buffer was released, a dialog answered, the pane changed: what waited for
       it goes on.) */
    update(app);
    return G_SOURCE_CONTINUE;
}

static gboolean on_signal(gpointer data) {
    struct web_app *app = data;
    g_main_loop_quit(app->loop);
    return G_SOURCE_REMOVE;
}

static char *uri_of(const char *arg) {
    if (strstr(arg, "://") || g_str_has_prefix(arg, "about:") || g_str_has_prefix(arg, "data:")) return g_strdup(arg);
    char *absolute = g_canonicalize_filename(arg, NULL);
    char *uri = g_filename_to_uri(absolute, NULL, NULL);
    g_free(absolute);
    return uri ? uri : g_strdup(arg);
}

#define USAGE "usage: diptych-web URL [--event-log FILE] [--requires-full-screen] [--data-dir DIR | --ephemeral] [--name NAME]\n" \
              "       [--file-root DIR ... | --no-file-access | --allow-file-access] [--tls-ca FILE]\n"

int main(int argc, char **argv) {
    static struct web_app app = {
        .pane = WEB_PANE_INIT, .field = WEB_FIELD_INIT, .dialogs = WEB_DIALOGS_INIT, .band = WEB_BAND_INIT, .input = WEB_INPUT_INIT,
    };
    const char *url = NULL;
    int full_screen = 0, file_flags = 0;
    /* No accessibility bus on a kiosk: WebKit would look for one on the session bus and say on
       every start that it found none. (An empty address: none looked for; one given wins.) */
    g_setenv("WEBKIT_A11Y_BUS_ADDRESS", "", FALSE);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--event-log") == 0 && i + 1 < argc) event_log.path = argv[++i];
        else if (strcmp(argv[i], "--requires-full-screen") == 0) full_screen = 1;
        else if (strcmp(argv[i], "--data-dir") == 0 && i + 1 < argc) web_options.data_dir = argv[++i];
        else if (strcmp(argv[i], "--ephemeral") == 0) web_options.ephemeral = 1;
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) web_options.name = argv[++i];
        else if (strcmp(argv[i], "--allow-file-access") == 0) file_flags |= 1, web_options.file_access = 1;
        else if (strcmp(argv[i], "--no-file-access") == 0) file_flags |= 2, web_options.file_access = -1;
        else if (strcmp(argv[i], "--file-root") == 0 && i + 1 < argc) {
            if (!web_options.file_roots) web_options.file_roots = g_ptr_array_new();
            g_ptr_array_add(web_options.file_roots, argv[++i]);
        }
        else if (strcmp(argv[i], "--tls-ca") == 0 && i + 1 < argc) {
            GError *error = NULL;
            const char *path = argv[++i];
            GList *more = g_tls_certificate_list_new_from_file(path, &error);
            if (!more) {
                fprintf(stderr, "diptych-web: --tls-ca %s: %s\n", path, error ? error->message : "no certificate in it");
                return 2;
            }
            web_options.tls_ca = g_list_concat(web_options.tls_ca, more);
        }
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(USAGE "A web page (http(s)://, file://, or a file path) as a Diptych app, rendered by WPE WebKit.\n"
                   "Its cookies and storage are kept in DIR (default $STATE_DIRECTORY/web/NAME, else\n"
                   "$XDG_STATE_HOME/diptych/web/NAME; NAME web-primary or web-secondary); --ephemeral keeps nothing.\n"
                   "--tls-ca FILE trusts the certificate authorities in FILE (PEM) besides the system's.\n"
                   "A file: page is served by diptych-web itself (as diptych-file://app/PATH): it reaches only the regular\n"
                   "files inside its own folder, symlinks resolved, or inside the folders given with --file-root DIR\n"
                   "(repeatable; then those alone, e.g. --file-root /usr/share/javascript/pdf --file-root /usr/share/pdf.js\n"
                   "--file-root /srv/pdfs for Debian's pdf.js viewer); --no-file-access serves the page alone. A folder that is /,\n"
                   "the home folder, or holds (or is inside) where web clients keep their data is refused.\n"
                   "--allow-file-access loads it as plain file: with WebKit's file access on instead: UNSAFE, its scripts\n"
                   "may then read any file the kiosk user can (the other web app's cookies too).\n");
            return 0;
        } else if (argv[i][0] == '-' || url) {
            fprintf(stderr, "diptych-web: unexpected argument '%s'\n" USAGE, argv[i]);
            return 2;
        } else url = argv[i];
    }
    if (!url) {
        fprintf(stderr, "diptych-web: no URL\n" USAGE);
        return 2;
    }
    if (web_options.data_dir && web_options.ephemeral) {
        fprintf(stderr, "diptych-web: --data-dir and --ephemeral exclude each other\n" USAGE);
        return 2;
    }
    if (web_options.name && (!*web_options.name || strchr(web_options.name, '/') || !strcmp(web_options.name, ".") || !strcmp(web_options.name, ".."))) {
        fprintf(stderr, "diptych-web: --name '%s': a name is one path component\n" USAGE, web_options.name);
        return 2;
    }
    if (web_options.file_roots) file_flags |= 4;
    if (file_flags & (file_flags - 1)) {
        fprintf(stderr, "diptych-web: --file-root, --no-file-access and --allow-file-access exclude each other\n" USAGE);
        return 2;
    }
    web_debug = getenv("DIPTYCH_WEB_DEBUG") != NULL;
    char *uri = uri_of(url);
    if (g_str_has_prefix(uri, "file:") && web_options.file_access <= 0) {
        /* Served from its folders by diptych-web (files.c), not by WebKit. */
        char *page = serve_file_page(uri);
        g_free(uri);
        uri = page;
    } else if (web_options.file_roots) {
        fprintf(stderr, "diptych-web: --file-root is for a file: page (served by diptych-web)\n" USAGE);
        return 2;
    }
    app.view.uri = uri;
    app.view.shown_uri = shown_uri(uri);
    snprintf(event_log.label, sizeof event_log.label, "web:%s", url);
    event_log.frames = getenv("DIPTYCH_WEB_LOG_FRAMES") && strcmp(getenv("DIPTYCH_WEB_LOG_FRAMES"), "1") == 0;
    /* No GPU: Mesa's software rasteriser in the web process (inherited). */
    setenv("LIBGL_ALWAYS_SOFTWARE", "1", 0);
    if (!wpe_loader_init("libWPEBackend-fdo-1.0.so.1")) {
        say("cannot load libWPEBackend-fdo-1.0.so.1 (install libwpebackend-fdo-1.0-1)");
        return 1;
    }
    if (!wpe_fdo_initialize_shm()) {
        say("wpebackend-fdo's shared-memory path did not initialise");
        return 1;
    }
    char error[512];
    app.dc = dc_connect(event_log.label, full_screen, error, sizeof error);
    if (!app.dc) {
        say("%s", error);
        return 1;
    }
    /* Each part that talks to the compositor does it on this connection. */
    app.view.dc = app.frames.dc = app.sync.dc = app.field.dc = app.dialogs.dc = app.band.dc = app.dc;
    app.field.send = (struct web_hook){ field_send, &app };
    app.dialogs.stir = (struct web_hook){ dialogs_stir, &app };
    app.view.resources_done = (struct web_hook){ resources_done, &app };
    app.triggers.settle.due = app.triggers.deadline.due = app.triggers.blank.due = app.triggers.ready.due = (struct web_hook){ on_due, &app };
    /* A sync is answered once WebKit has drawn what came before it (answer_sync_if_done). */
    dc_answer_sync(app.dc, 0);
    app.loop = g_main_loop_new(NULL, FALSE);
    /* The socket: its events read, and what is queued for it written before the loop sleeps (it
       is watched for room only while it is full). No timer runs unless a job waits for a time. */
    GSource *socket = web_connection_source_new(app.dc);
    g_source_set_callback(socket, on_socket, &app, NULL);
    g_source_attach(socket, NULL);
    g_source_unref(socket);
    g_unix_signal_add(SIGTERM, on_signal, &app);
    g_unix_signal_add(SIGINT, on_signal, &app);
    g_unix_signal_add(SIGHUP, on_signal, &app);
    g_main_loop_run(app.loop);
    /* The view goes first: its web and network processes end with it. */
    if (app.view.webkit) g_object_unref(app.view.webkit);
    dc_disconnect(app.dc);
    g_free(uri);
    return 0;
}

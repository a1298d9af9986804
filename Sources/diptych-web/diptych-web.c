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
 *   textCommit / textDelete   -> the context's committed / delete-surrounding (text-input.c)
 *   keyboardFrame (local)     -> the page panned up while the keyboard covers the caret
 *   a file: page              -> served by diptych-web itself from its folders, nothing outside
 *                                them (files.c); --allow-file-access: plain file: (unsafe)
 *
 * The web process crashing reloads the page with back-off; a page that fails to load shows an
 * error page naming the URL and the reason, and is retried with back-off.
 */
#define _GNU_SOURCE
#include "diptych-web.h"

#include <errno.h>
#include <glib-unix.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct web_app app = { .wanted_style = -1, .sent_style = -1, .visible = 1, .focused = 1, .band_colour = 0xFFFFFF };


void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diptych-web: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}


/* WebKit's frame of the view into a buffer of the pane, below the status bar's band. */
static void copy_frame(struct wl_shm_buffer *shm, dc_buffer *b) {
    gint64 t0 = g_get_monotonic_time();
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm), stride = wl_shm_buffer_get_stride(shm);
    wl_shm_buffer_begin_access(shm);
    place_frame(b, wl_shm_buffer_get_data(shm), (size_t)stride, w, h, 0);
    wl_shm_buffer_end_access(shm);
    log_frame(w, h, (double)(g_get_monotonic_time() - t0) / 1000.0);
}

static void on_classes_told(GObject *object, GAsyncResult *result, gpointer epoch) {
    WebKitJavascriptResult *r = webkit_web_view_run_javascript_finish(WEBKIT_WEB_VIEW(object), result, NULL);
    if (r) webkit_javascript_result_unref(r);
    if (GPOINTER_TO_UINT(epoch) != app.resize_epoch) return;  /* a newer size was asked for */
    app.resize_pending = 0;
    wpe_view_backend_dispatch_set_size(app.backend, (uint32_t)app.target_w, (uint32_t)app.target_h);
    stir();
}

/* Gives the view css_w x css_h (a pane's size less the band): the page's classes for that size
   first, then the size. */
static void resize_to(int css_w, int css_h) {
    app.target_w = css_w;
    app.target_h = css_h;
    app.resize_pending = 1;
    app.resize_epoch++;
    install_user_content();
    char *source = classes_script();
    webkit_web_view_run_javascript(app.view, source, NULL, on_classes_told, GUINT_TO_POINTER(app.resize_epoch));
    g_free(source);
}

/* The page at the next snapshot's size and size class (as iOS resizes an app offscreen for
   its snapshots), or back at its live size and class once all are taken. */
static void next_snapshot(void) {
    app.candidate = NULL;
    if (app.snapshotting < app.nsnapshots) {
        struct snapshot *s = &app.snapshots[app.snapshotting];
        resize_to(s->css_w, s->css_h - (int)lround(band_top()));
    } else {
        app.nsnapshots = app.snapshotting = 0;
        resize_to(app.css_w, app.css_h - (int)lround(band_top()));
        answer_sync_if_done();
    }
}

void relayout_view(void) {
    int view_h = app.css_h - (int)lround(band_top());
    note_class_size(app.css_w, view_h, app.hclass, app.vclass);
    app.shown_live_size = 0;
    app.live = NULL;
    text_input_resized();
    if (app.snapshotting >= app.nsnapshots) resize_to(app.css_w, view_h);
}

/* Whether a frame is all one colour below the band (the blank page WebKit shows before the
   first paint). */
int one_colour(const dc_buffer *b) {
    int band = band_rows() < b->height ? band_rows() : b->height - 1;
    uint32_t first = ((const uint32_t *)((const uint8_t *)b->pixels + (size_t)band * (size_t)b->stride))[0];
    for (int y = band; y < b->height; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        for (int x = 0; x < b->width; x++) if (row[x] != first) return 0;
    }
    return 1;
}

void commit_live(dc_buffer *b) {
    app.held = NULL;
    app.live = b;
    dc_commit(app.dc, b, NULL, 0);
    app.shown_live_size = 1;
}

/* A dialog shows before the page drew anything (an HTTP sign-in before any page): a white pane
   under it, so that the app is on screen to answer it. */
void show_blank_under_dialog(void) {
    if (!app.configured || app.shown_live_size || app.resize_pending || app.snapshotting < app.nsnapshots) return;
    int held = app.held && app.held->width == app.px_w && app.held->height == app.px_h;
    dc_buffer *b = held ? app.held : dc_buffer_get(app.dc, app.px_w, app.px_h);
    if (!b) return;
    if (!held)
        for (int y = 0; y < b->height; y++)
            for (int x = 0; x < b->width; x++) b->pixels[(size_t)y * (size_t)b->stride / 4 + (size_t)x] = 0xFFFFFFFF;
    commit_live(b);
}

void on_frame(void *data, struct wpe_fdo_shm_exported_buffer *exported) {
    (void)data;
    struct wl_shm_buffer *shm = wpe_fdo_shm_exported_buffer_get_shm_buffer(exported);
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm);
    if (app.debug) say("frame %dx%d (live %dx%d, snapshot %d of %d)", w, h, app.px_w, app.px_h, app.snapshotting, app.nsnapshots);
    app.last_frame_us = g_get_monotonic_time();
    int hold = 0;
    if (app.snapshotting < app.nsnapshots) {
        struct snapshot *s = &app.snapshots[app.snapshotting];
        if (!app.resize_pending && w == s->px_w && h == s->px_h - band_rows()) {
            dc_buffer *b = app.candidate ? app.candidate : dc_buffer_get(app.dc, s->px_w, s->px_h);
            if (b) copy_frame(shm, b);
            app.candidate = b;
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(app.exportable, exported);
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
            return;
        }
    } else if (app.configured && !app.resize_pending && w == app.px_w && h == app.px_h - band_rows()) {
        dc_buffer *b = app.held && app.held->width == app.px_w && app.held->height == app.px_h ? app.held : dc_buffer_get(app.dc, app.px_w, app.px_h);
        if (b) {
            if (!text_input_copy_frame(shm, b)) copy_frame(shm, b);
            int blank = app.loaded && !app.shown_live_size && g_get_monotonic_time() - app.loaded_us < BLANK_MS * 1000 && one_colour(b);
            /* (A dialog of a page still loading, an HTTP sign-in: what it drew shows under it.) */
            if ((app.loaded || dialogs_showing()) && !blank) {
                commit_live(b);
                /* Live, WebKit's next frame waits for this one to reach the screen. */
                hold = !app.virtual_clock;
            } else {
                app.held = b;
            }
        }
    }
    wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(app.exportable, exported);
    if (hold) app.frame_complete_owed = 1;
    else wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
    answer_sync_if_done();
}

/* ---- the compositor's round trip ---- */

/* Whether WebKit still owes what the compositor asked for: snapshots, a frame at the live size,
   or the answer to input dispatched lately (none while a dialog blocks the page). */
static int webkit_busy(void) {
    if (!app.configured) return 0;
    if (app.snapshotting < app.nsnapshots || app.resize_pending) return 1;
    /* A dialog showing blocks the page until the user answers: nothing more will come. */
    if (dialogs_showing()) return 0;
    if (!settled()) return 1;
    if (!app.loaded || !page_ready()) return 1;
    if (app.visible && !app.shown_live_size) return 1;
    return 0;
}

void answer_sync_if_done(void) {
    if (!app.sync_pending) return;
    int busy = webkit_busy();
    if (busy && g_get_monotonic_time() < app.sync_deadline_us) return;
    app.sync_pending = 0;
    /* The page never said it had drawn: the round trip is answered at its deadline, logged. */
    if (busy) {
        GString *s = log_start("syncTimeout");
        g_string_append_printf(s, ",\"serial\":%u,\"ms\":%d", app.sync_serial, SYNC_TIMEOUT_MS);
        log_line(s);
        g_string_free(s, TRUE);
    }
    if (app.debug) say("sync %u answered (busy %d)", app.sync_serial, webkit_busy());
    dc_sync_done(app.dc, app.sync_serial);
    ready_sync_answered();
}

static gboolean sync_tick(gpointer data) {
    (void)data;
    /* The snapshot's page has settled at its size: its newest frame is the snapshot. */
    if (app.candidate && app.snapshotting < app.nsnapshots && !app.resize_pending && settled()) {
        dc_snapshot(app.dc, app.candidate, app.snapshots[app.snapshotting].serial);
        app.candidate = NULL;
        app.snapshotting++;
        next_snapshot();
    }
    /* The page is loaded and only drew one colour: that may be all it is. */
    if (app.held && (app.loaded || dialogs_showing()) && g_get_monotonic_time() - app.loaded_us >= BLANK_MS * 1000 && app.held->width == app.px_w &&
        app.held->height == app.px_h && app.snapshotting >= app.nsnapshots)
        commit_live(app.held);
    ready_check();
    text_input_tick();
    answer_sync_if_done();
    /* Requests the socket did not take at once (a compositor reading slowly) go now. */
    if (dc_flush(app.dc) != 0 && errno != EAGAIN) fprintf(stderr, "diptych-web: %s\n", dc_error(app.dc));
    return G_SOURCE_CONTINUE;
}

/* ---- input ---- */

/* ---- the compositor's events ---- */

static void handle(const dc_event *e) {
    log_event(e);
    if (app.debug && e->type != DC_SYNC) say("event %d", (int)e->type);
    switch (e->type) {
    case DC_CONFIGURE: {
        int first = !app.configured;
        int was_primary = app.role == DC_PRIMARY;
        dc_ack(app.dc, e->configure.serial);
        app.configured = 1;
        app.role = e->configure.role;
        if (e->configure.pixel_width != app.px_w || e->configure.pixel_height != app.px_h) {
            app.shown_live_size = 0;
            app.live = NULL;
            text_input_resized();
        }
        app.css_w = e->configure.frame.width;
        app.css_h = e->configure.frame.height;
        app.px_w = e->configure.pixel_width;
        app.px_h = e->configure.pixel_height;
        app.hclass = e->configure.horizontal_size_class;
        app.vclass = e->configure.vertical_size_class;
        double scale = e->configure.scale > 0 ? e->configure.scale : (double)app.px_w / app.css_w;
        app.safe[0] = e->configure.safe_top; app.safe[1] = e->configure.safe_left;
        app.safe[2] = e->configure.safe_bottom; app.safe[3] = e->configure.safe_right;
        /* The drag that asked for snapshots is over. */
        app.nsnapshots = app.snapshotting = 0;
        app.candidate = NULL;
        int view_h = app.css_h - (int)lround(band_top());
        if (first) {
            app.scale = scale;
            note_class_size(app.css_w, app.css_h, app.hclass, app.vclass);
            note_class_size(app.css_w, view_h, app.hclass, app.vclass);
            app.target_w = app.css_w;
            app.target_h = view_h;
            create_view();
        } else {
            if (scale != app.scale) {
                app.scale = scale;
                wpe_view_backend_dispatch_set_device_scale_factor(app.backend, (float)scale);
            }
            note_class_size(app.css_w, app.css_h, app.hclass, app.vclass);
            note_class_size(app.css_w, view_h, app.hclass, app.vclass);
            resize_to(app.css_w, view_h);
        }
        if (app.role == DC_PRIMARY && !was_primary) app.sent_style = -1;
        send_status_bar_style();
        break;
    }
    case DC_LIFECYCLE:
        switch (e->lifecycle) {
        case DC_WILL_RESIGN_ACTIVE: set_activity(app.visible, 0); break;
        case DC_DID_BECOME_ACTIVE: set_activity(1, 1); break;
        case DC_DID_ENTER_BACKGROUND: set_activity(0, 0); break;
        case DC_WILL_ENTER_FOREGROUND: set_activity(1, app.focused); break;
        }
        break;
    case DC_SNAPSHOT_REQUEST: {
        if (!app.view || app.nsnapshots == MAX_SNAPSHOTS) break;
        struct snapshot *s = &app.snapshots[app.nsnapshots++];
        s->serial = e->snapshot_request.serial;
        s->css_w = e->snapshot_request.frame.width;
        s->css_h = e->snapshot_request.frame.height;
        s->px_w = e->snapshot_request.pixel_width;
        s->px_h = e->snapshot_request.pixel_height;
        s->hclass = e->snapshot_request.horizontal_size_class;
        note_class_size(s->css_w, s->css_h - (int)lround(band_top()), s->hclass, app.vclass);
        if (app.nsnapshots == 1) next_snapshot();
        break;
    }
    case DC_TOUCH:
        if (app.view) dispatch_touch(e->touch.id, e->touch.phase, e->touch.x, e->touch.y, e->touch.time);
        break;
    case DC_PEN:
        if (app.view && e->pen.phase != DC_PEN_PROXIMITY_OUT)
            dispatch_pen(e->pen.phase, e->pen.x, e->pen.y, e->pen.pressure, e->pen.tilt_x, e->pen.tilt_y, e->pen.time);
        break;
    case DC_KEY:
        if (app.view) dispatch_key(e);
        break;
    case DC_POINTER:
        if (app.view) dispatch_pointer(e);
        break;
    case DC_FRAME_DONE:
        if (app.frame_complete_owed) {
            app.frame_complete_owed = 0;
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
        }
        break;
    case DC_SYNC:
        /* A scenario: frames are not held for frameDone (the clock is the compositor's), and
           the caret is hidden. */
        app.virtual_clock = 1;
        hide_caret();
        if (app.frame_complete_owed) {
            app.frame_complete_owed = 0;
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
        }
        app.sync_pending = 1;
        app.sync_serial = e->sync.serial;
        app.sync_deadline_us = ready_sync_deadline();
        answer_sync_if_done();
        break;
    case DC_TEXT_COMMIT:
    case DC_TEXT_DELETE:
    case DC_KEYBOARD_FRAME:
        text_input_event(e);
        break;
    case DC_MENU_CHOSEN:
    case DC_ALERT_ANSWERED:
    case DC_DISMISSED:
    case DC_REFUSED:
        dialogs_event(e);
        break;
    case DC_ERROR:
        say("the compositor reported a protocol error: %s", e->error.message);
        g_main_loop_quit(app.loop);
        break;
    default:
        break;
    }
}

static gboolean on_socket(gint fd, GIOCondition condition, gpointer data) {
    (void)fd; (void)condition; (void)data;
    dc_event e;
    int r;
    while ((r = dc_next_event(app.dc, &e, 0)) > 0) handle(&e);
    if (r < 0) {
        g_main_loop_quit(app.loop);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

static gboolean on_signal(gpointer data) {
    (void)data;
    g_main_loop_quit(app.loop);
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
    const char *url = NULL;
    int full_screen = 0, file_flags = 0;
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
    app.debug = getenv("DIPTYCH_WEB_DEBUG") != NULL;
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
    app.uri = uri;
    app.shown_uri = shown_uri(uri);
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
    /* A sync is answered once WebKit has drawn what came before it (answer_sync_if_done). */
    dc_answer_sync(app.dc, 0);
    app.loop = g_main_loop_new(NULL, FALSE);
    g_unix_fd_add(dc_fd(app.dc), G_IO_IN | G_IO_HUP | G_IO_ERR, on_socket, NULL);
    g_unix_signal_add(SIGTERM, on_signal, NULL);
    g_unix_signal_add(SIGINT, on_signal, NULL);
    g_unix_signal_add(SIGHUP, on_signal, NULL);
    g_timeout_add(10, sync_tick, NULL);
    g_main_loop_run(app.loop);
    /* The view goes first: its web and network processes end with it. */
    if (app.view) g_object_unref(app.view);
    dc_disconnect(app.dc);
    g_free(uri);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * diptych-web URL [--event-log FILE] [--requires-full-screen]
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
 *   frameDone                 -> the page's next frame (never faster than the screen shows it)
 *   sync (scenarios)          -> answered once WebKit has delivered what the frame asked for
 *   <meta name="apple-mobile-web-app-status-bar-style"> or a dark theme-color -> statusBarStyle
 *
 * The web process crashing reloads the page with back-off; a page that fails to load shows an
 * error page naming the URL and the reason, and is retried with back-off.
 */
#define _GNU_SOURCE
#include "diptych-client.h"

#include <glib-unix.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server.h>
#include <wpe/fdo.h>
#include <wpe/unstable/fdo-shm.h>
#include <wpe/webkit.h>

#define MAX_SNAPSHOTS 8
#define MAX_TOUCHES 10
/* How long a frame's round trip may wait for WebKit (ms), and how long without a frame after
   input counts as "nothing more to draw". */
#define SYNC_TIMEOUT_MS 3000
/* After the page has drawn what an input or a resize asked for (two animation frames later),
   how long its frame may take to arrive; and how long WebKit takes to synthesise a tap's click. */
#define GRACE_MS 150
#define TAP_MS 60
#define BLANK_MS 1000

struct snapshot { uint32_t serial; int css_w, css_h, px_w, px_h, hclass; };

static struct {
    dc_connection *dc;
    GMainLoop *loop;
    const char *uri;
    const char *log_path;
    int log_frames;             /* DIPTYCH_WEB_LOG_FRAMES=1: a webFrame line per frame WebKit makes */
    char app_label[1024];
    struct wpe_view_backend_exportable_fdo *exportable;
    struct wpe_view_backend *backend;
    WebKitWebView *view;
    WebKitUserContentManager *content;

    /* The live pane. */
    int configured;
    int role, css_w, css_h, px_w, px_h, hclass, vclass;
    double scale, safe[4];
    /* Frames: one committed and not yet shown holds WebKit's next (frame_complete owed). */
    int frame_complete_owed;
    /* Until the page has loaded and painted, frames are kept (the last one) rather than shown:
       the frames before the load, and often the first after it, are a blank page. After the
       load a frame of one colour is kept back for up to BLANK_MS, in case the page's first
       paint is on its way. */
    int loaded;
    dc_buffer *held;
    int virtual_clock;          /* a scenario: syncs come, frames are not held for frameDone */
    gint64 last_frame_us;       /* monotonic time of the last frame exported */
    int last_frame_w, last_frame_h;
    /* A frame of the live size went on screen since the size last changed. */
    int shown_live_size;

    /* Snapshots asked for, done one after another. */
    struct snapshot snapshots[MAX_SNAPSHOTS];
    int nsnapshots, snapshotting;
    /* The size the view is being given (CSS px): the page is told its classes first, and the
       view resized once that script has run, so the first frame of the new size is laid out
       with them. */
    int target_w, target_h, resize_pending;
    /* The newest frame of the snapshot being taken: sent once the page has settled at its size
       (the first frames of a new size can still show the old layout). */
    dc_buffer *candidate;
    guint resize_epoch;
    gint64 loaded_us;

    /* The compositor's round trip waiting for WebKit. */
    int sync_pending;
    uint32_t sync_serial;
    gint64 sync_deadline_us;
    /* Input or a resize stirs the page; a script then waits two animation frames and posts
       the stir's number back: the page has drawn what it asked for. */
    guint stirs, settled;
    gint64 settled_us;

    /* Touch points down, in device pixels. */
    struct wpe_input_touch_event_raw touches[MAX_TOUCHES];
    int ntouches;
    int pen_down;

    /* Activity. */
    int visible, focused;
    /* Status bar style the page asks for (-1: none), and whether it was sent as primary. */
    int wanted_style, sent_style;
    /* Faults. */
    int load_retries, crash_retries, showing_error;
    guint retry_source;
} app = { .wanted_style = -1, .sent_style = -1, .visible = 1, .focused = 1 };


static void say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diptych-web: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- the event log (the same lines as the other apps', plus the page's title) ---- */

static void json_string(GString *s, const char *v) {
    g_string_append_c(s, '"');
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') g_string_append_printf(s, "\\%c", *p);
        else if (*p < 0x20) g_string_append_printf(s, "\\u%04x", *p);
        else g_string_append_c(s, (char)*p);
    }
    g_string_append_c(s, '"');
}

static void json_number(GString *s, double v) {
    if (v == floor(v) && fabs(v) < 1e15) g_string_append_printf(s, "%.0f", v);
    else g_string_append_printf(s, "%.17g", v);
}

/* `,"key":number` */
static void json_field(GString *s, const char *key, double v) {
    g_string_append_printf(s, ",\"%s\":", key);
    json_number(s, v);
}

static void log_line(GString *line) {
    if (!app.log_path) return;
    g_string_append(line, "}\n");
    FILE *f = fopen(app.log_path, "a");
    if (f) {
        fwrite(line->str, 1, line->len, f);
        fclose(f);
    }
}

static GString *log_start(const char *event) {
    GString *s = g_string_new("{\"app\":");
    json_string(s, app.app_label);
    g_string_append(s, ",\"event\":");
    json_string(s, event);
    return s;
}

static const char *class_name(int c) { return c == DC_REGULAR ? "regular" : "compact"; }

static void log_event(const dc_event *e) {
    static const char *lifecycle[] = { "willResignActive", "didBecomeActive", "didEnterBackground", "willEnterForeground" };
    static const char *touch_phase[] = { "down", "motion", "up", "cancel" };
    static const char *pen_phase[] = { "proximityIn", "down", "motion", "up", "proximityOut" };
    static const char *arrangement[] = { "full", "slide-over", "split-2/3", "split-1/2" };
    GString *s;
    switch (e->type) {
    case DC_CONFIGURE:
        s = log_start("configure");
        g_string_append_printf(s, ",\"serial\":%u,\"role\":\"%s\",\"frame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d}",
            e->configure.serial, e->configure.role == DC_PRIMARY ? "primary" : "secondary", e->configure.frame.x,
            e->configure.frame.y, e->configure.frame.width, e->configure.frame.height);
        g_string_append_printf(s, ",\"pixelWidth\":%d,\"pixelHeight\":%d,\"horizontalSizeClass\":\"%s\",\"verticalSizeClass\":\"%s\"",
            e->configure.pixel_width, e->configure.pixel_height, class_name(e->configure.horizontal_size_class),
            class_name(e->configure.vertical_size_class));
        g_string_append_printf(s, ",\"orientation\":\"%s\",\"arrangement\":\"%s\"",
            e->configure.orientation ? "portrait" : "landscape", arrangement[e->configure.arrangement & 3]);
        json_field(s, "scale", e->configure.scale);
        g_string_append(s, ",\"safeAreaInsets\":{\"top\":");
        json_number(s, e->configure.safe_top);
        json_field(s, "left", e->configure.safe_left);
        json_field(s, "bottom", e->configure.safe_bottom);
        json_field(s, "right", e->configure.safe_right);
        g_string_append(s, "}");
        break;
    case DC_SIZE_CLASS_CHANGED:
        s = log_start("sizeClassChanged");
        g_string_append_printf(s, ",\"horizontalSizeClass\":\"%s\",\"verticalSizeClass\":\"%s\",\"previousHorizontal\":\"%s\",\"previousVertical\":\"%s\"",
            class_name(e->size_class_changed.horizontal), class_name(e->size_class_changed.vertical),
            class_name(e->size_class_changed.previous_horizontal), class_name(e->size_class_changed.previous_vertical));
        break;
    case DC_LIFECYCLE:
        s = log_start(lifecycle[e->lifecycle & 3]);
        break;
    case DC_SNAPSHOT_REQUEST:
        s = log_start("snapshotRequest");
        g_string_append_printf(s, ",\"serial\":%u,\"frame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d},\"pixelWidth\":%d,\"pixelHeight\":%d,\"horizontalSizeClass\":\"%s\"",
            e->snapshot_request.serial, e->snapshot_request.frame.x, e->snapshot_request.frame.y, e->snapshot_request.frame.width,
            e->snapshot_request.frame.height, e->snapshot_request.pixel_width, e->snapshot_request.pixel_height,
            class_name(e->snapshot_request.horizontal_size_class));
        break;
    case DC_TOUCH:
        s = log_start("touch");
        g_string_append_printf(s, ",\"id\":%d,\"phase\":\"%s\"", e->touch.id, touch_phase[e->touch.phase & 3]);
        json_field(s, "x", e->touch.x);
        json_field(s, "y", e->touch.y);
        json_field(s, "time", e->touch.time);
        break;
    case DC_PEN:
        s = log_start("pen");
        g_string_append_printf(s, ",\"phase\":\"%s\"", pen_phase[e->pen.phase % 5]);
        json_field(s, "x", e->pen.x);
        json_field(s, "y", e->pen.y);
        json_field(s, "pressure", e->pen.pressure);
        json_field(s, "tiltX", e->pen.tilt_x);
        json_field(s, "tiltY", e->pen.tilt_y);
        json_field(s, "time", e->pen.time);
        g_string_append_printf(s, ",\"tool\":\"%s\",\"buttons\":%u", e->pen.tool ? "eraser" : "pen", e->pen.buttons);
        break;
    case DC_FRAME_DONE:
        s = log_start("frameDone");
        g_string_append_printf(s, ",\"time\":%llu", (unsigned long long)e->frame_done.time);
        json_field(s, "refresh", e->frame_done.refresh);
        g_string_append_printf(s, ",\"seq\":%llu", (unsigned long long)e->frame_done.seq);
        break;
    case DC_ERROR:
        s = log_start("protocolError");
        g_string_append_printf(s, ",\"code\":%d,\"message\":", e->error.code);
        json_string(s, e->error.message);
        break;
    case DC_RELEASE:
        s = log_start("release");
        g_string_append_printf(s, ",\"buffer\":%u", e->release.buffer);
        break;
    case DC_SCREEN_CONNECTED:
    case DC_SCREEN_DISCONNECTED:
        s = log_start(e->type == DC_SCREEN_CONNECTED ? "screenConnected" : "screenDisconnected");
        g_string_append_printf(s, ",\"screen\":%u,\"pixelWidth\":%d,\"pixelHeight\":%d", e->screen.screen, e->screen.pixel_width,
            e->screen.pixel_height);
        break;
    default:
        return;  /* sync is not logged */
    }
    log_line(s);
    g_string_free(s, TRUE);
}

/* ---- the page's state ---- */

/* The sizes (CSS px) the compositor named, with their classes: a pane's and each snapshot's. */
#define MAX_CLASS_SIZES 32
static struct { int width, height, hclass, vclass; } class_sizes[MAX_CLASS_SIZES];
static int nclass_sizes;

static void note_class_size(int width, int height, int hclass, int vclass) {
    for (int i = 0; i < nclass_sizes; i++)
        if (class_sizes[i].width == width && class_sizes[i].height == height) {
            class_sizes[i].hclass = hclass;
            class_sizes[i].vclass = vclass;
            return;
        }
    if (nclass_sizes == MAX_CLASS_SIZES) memmove(class_sizes, class_sizes + 1, sizeof class_sizes[0] * --nclass_sizes);
    class_sizes[nclass_sizes].width = width;
    class_sizes[nclass_sizes].height = height;
    class_sizes[nclass_sizes].hclass = hclass;
    class_sizes[nclass_sizes++].vclass = vclass;
}

/* The page sets its classes itself in the first `resize` listener, from its viewport (the
   sizes the compositor named, else its thresholds), so every frame is laid out with the
   classes of its own size, however WebKit orders this script and a resize. */
static char *classes_script(void) {
    GString *w = g_string_new(""), *h = g_string_new("");
    for (int i = 0; i < nclass_sizes; i++) {
        g_string_append_printf(w, "%s%d:'%s'", w->len ? "," : "", class_sizes[i].width, class_name(class_sizes[i].hclass));
        g_string_append_printf(h, "%s%d:'%s'", h->len ? "," : "", class_sizes[i].height, class_name(class_sizes[i].vclass));
    }
    char *source = g_strdup_printf(
        "(function(){var D=window.__diptych||(window.__diptych={w:{},h:{}});"
        "Object.assign(D.w,{%s});Object.assign(D.h,{%s});D.safe=[%g,%g,%g,%g];"
        "if(!D.apply){D.apply=function(W,H){var r=document.documentElement;if(!r)return;"
        "W=typeof W==='number'?W:innerWidth;H=typeof H==='number'?H:innerHeight;"
        "var h=D.w[W]||(W>=678?'regular':'compact'),v=D.h[H]||(H>=678?'regular':'compact');"
        "var ph=r.dataset.horizontalSizeClass,pv=r.dataset.verticalSizeClass;"
        "r.dataset.horizontalSizeClass=h;r.dataset.verticalSizeClass=v;"
        "['top','left','bottom','right'].forEach(function(k,i){r.style.setProperty('--diptych-safe-area-inset-'+k,D.safe[i]+'px');});"
        "if(ph&&(ph!==h||pv!==v))window.dispatchEvent(new CustomEvent('diptychsizeclasschange',"
        "{detail:{horizontal:h,vertical:v,previousHorizontal:ph,previousVertical:pv}}));};"
        "window.addEventListener('resize',function(){D.apply()},true);}D.apply(%d,%d);})();",
        w->str, h->str, app.safe[0], app.safe[1], app.safe[2], app.safe[3], app.target_w, app.target_h);
    g_string_free(w, TRUE);
    g_string_free(h, TRUE);
    return source;
}

/* The user script that sets the classes before the page's own scripts (on every load), and the
   stylesheet that hides the overlay scrollbars (they animate for seconds after every scroll). */
static void install_user_content(void) {
    webkit_user_content_manager_remove_all_scripts(app.content);
    char *source = classes_script();
    WebKitUserScript *script = webkit_user_script_new(
        source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    g_free(source);
}

static void answer_sync_if_done(void);


static void send_status_bar_style(void) {
    if (app.wanted_style < 0 || app.role != DC_PRIMARY || !app.configured || app.sent_style == app.wanted_style) return;
    dc_status_bar_style(app.dc, app.wanted_style);
    app.sent_style = app.wanted_style;
}

static void on_style_read(GObject *object, GAsyncResult *result, gpointer data) {
    (void)data;
    WebKitJavascriptResult *r = webkit_web_view_run_javascript_finish(WEBKIT_WEB_VIEW(object), result, NULL);
    if (!r) return;
    char *style = jsc_value_to_string(webkit_javascript_result_get_js_value(r));
    int wanted = -1;
    if (style && strcmp(style, "light") == 0) wanted = DC_STATUS_BAR_LIGHT;
    else if (style && strcmp(style, "dark") == 0) wanted = DC_STATUS_BAR_DARK;
    g_free(style);
    webkit_javascript_result_unref(r);
    if (wanted >= 0) {
        app.wanted_style = wanted;
        send_status_bar_style();
    }
}

/* iOS's meta tag (black and black-translucent want light text), else a dark theme-color. */
static const char *style_probe =
    "(function(){var m=document.querySelector('meta[name=\"apple-mobile-web-app-status-bar-style\"]');"
    "if(m){var c=(m.content||'').trim();return c==='black'||c==='black-translucent'?'light':'dark';}"
    "var t=document.querySelector('meta[name=\"theme-color\"]');if(!t)return 'none';"
    "var d=document.createElement('div');d.style.color=t.content;document.documentElement.appendChild(d);"
    "var m2=getComputedStyle(d).color.match(/\\d+(\\.\\d+)?/g);d.remove();if(!m2)return 'none';"
    "var l=0.2126*m2[0]+0.7152*m2[1]+0.0722*m2[2];return l<128?'light':'dark';})()";

static gboolean send_stir(gpointer n) {
    char *source = g_strdup_printf(
        "requestAnimationFrame(function(){requestAnimationFrame(function(){window.webkit.messageHandlers.diptych.postMessage(%u)})})",
        GPOINTER_TO_UINT(n));
    webkit_web_view_run_javascript(app.view, source, NULL, NULL, NULL);
    g_free(source);
    return G_SOURCE_REMOVE;
}

/* Asks the page to say when it has drawn what was just sent to it; `later`: once WebKit has
   had TAP_MS to turn a lifted touch into the click it synthesises. */
static void stir_after(guint later_ms) {
    if (!app.view) return;
    app.stirs++;
    if (later_ms) g_timeout_add(later_ms, send_stir, GUINT_TO_POINTER(app.stirs));
    else send_stir(GUINT_TO_POINTER(app.stirs));
}

static void stir(void) { stir_after(0); }

static void on_script_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager; (void)data;
    guint n = (guint)jsc_value_to_int32(webkit_javascript_result_get_js_value(result));
    if (n == app.stirs) {
        app.settled = n;
        app.settled_us = g_get_monotonic_time();
    }
}

/* Whether the page has drawn what it was last sent (a hidden or unloaded page draws nothing:
   nothing to wait for), and its frame had GRACE_MS to arrive. */
static int settled(void) {
    if (!app.visible || !app.loaded) return 1;
    if (app.settled != app.stirs) return 0;
    return app.last_frame_us > app.settled_us || g_get_monotonic_time() - app.settled_us >= GRACE_MS * 1000;
}

/* DIPTYCH_WEB_LOG_FRAMES=1: a webFrame line for each frame WebKit made, with the time the copy
   into the compositor's buffer took (for the tests and the benchmark). */
static void log_frame(int w, int h, double copy_ms) {
    if (!app.log_frames) return;
    GString *line = log_start("webFrame");
    g_string_append_printf(line, ",\"pixelWidth\":%d,\"pixelHeight\":%d,\"copyMs\":%.3f,\"at\":%.3f", w, h, copy_ms,
        (double)g_get_monotonic_time() / 1000.0);
    log_line(line);
    g_string_free(line, TRUE);
}

static void copy_frame(struct wl_shm_buffer *shm, dc_buffer *b) {
    gint64 t0 = g_get_monotonic_time();
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm), stride = wl_shm_buffer_get_stride(shm);
    wl_shm_buffer_begin_access(shm);
    const uint8_t *src = wl_shm_buffer_get_data(shm);
    for (int y = 0; y < h && y < b->height; y++)
        memcpy((uint8_t *)b->pixels + (size_t)y * (size_t)b->stride, src + (size_t)y * (size_t)stride,
               (size_t)(w < b->width ? w : b->width) * 4);
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

/* Gives the view css_w x css_h: the page's classes for that size first, then the size. */
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
        resize_to(s->css_w, s->css_h);
    } else {
        app.nsnapshots = app.snapshotting = 0;
        resize_to(app.css_w, app.css_h);
        answer_sync_if_done();
    }
}

/* Whether a frame is all one colour (the blank page WebKit shows before the first paint). */
static int one_colour(const dc_buffer *b) {
    uint32_t first = b->pixels[0];
    for (int y = 0; y < b->height; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        for (int x = 0; x < b->width; x++) if (row[x] != first) return 0;
    }
    return 1;
}

static void commit_live(dc_buffer *b) {
    app.held = NULL;
    dc_commit(app.dc, b, NULL, 0);
    app.shown_live_size = 1;
}

static void on_frame(void *data, struct wpe_fdo_shm_exported_buffer *exported) {
    (void)data;
    struct wl_shm_buffer *shm = wpe_fdo_shm_exported_buffer_get_shm_buffer(exported);
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm);
    if (getenv("DIPTYCH_WEB_DEBUG")) say("frame %dx%d (live %dx%d, snapshot %d of %d)", w, h, app.px_w, app.px_h, app.snapshotting, app.nsnapshots);
    app.last_frame_us = g_get_monotonic_time();
    app.last_frame_w = w;
    app.last_frame_h = h;
    int hold = 0;
    if (app.snapshotting < app.nsnapshots) {
        struct snapshot *s = &app.snapshots[app.snapshotting];
        if (!app.resize_pending && w == s->px_w && h == s->px_h) {
            dc_buffer *b = app.candidate ? app.candidate : dc_buffer_get(app.dc, w, h);
            if (b) copy_frame(shm, b);
            app.candidate = b;
            wpe_view_backend_exportable_fdo_dispatch_release_shm_exported_buffer(app.exportable, exported);
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
            return;
        }
    } else if (app.configured && !app.resize_pending && w == app.px_w && h == app.px_h) {
        dc_buffer *b = app.held && app.held->width == w && app.held->height == h ? app.held : dc_buffer_get(app.dc, w, h);
        if (b) {
            copy_frame(shm, b);
            int blank = app.loaded && !app.shown_live_size && g_get_monotonic_time() - app.loaded_us < BLANK_MS * 1000 && one_colour(b);
            if (app.loaded && !blank) {
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
   or the answer to input dispatched lately. */
static int webkit_busy(void) {
    if (!app.configured) return 0;
    if (app.snapshotting < app.nsnapshots || app.resize_pending) return 1;
    if (!settled()) return 1;
    if (!app.loaded) return 1;
    if (app.visible && !app.shown_live_size) return 1;
    return 0;
}

static void answer_sync_if_done(void) {
    if (!app.sync_pending) return;
    if (webkit_busy() && g_get_monotonic_time() < app.sync_deadline_us) return;
    app.sync_pending = 0;
    if (getenv("DIPTYCH_WEB_DEBUG")) say("sync %u answered (busy %d)", app.sync_serial, webkit_busy());
    dc_sync_done(app.dc, app.sync_serial);
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
    if (app.held && app.loaded && g_get_monotonic_time() - app.loaded_us >= BLANK_MS * 1000 && app.held->width == app.px_w &&
        app.held->height == app.px_h && app.snapshotting >= app.nsnapshots)
        commit_live(app.held);
    answer_sync_if_done();
    return G_SOURCE_CONTINUE;
}

/* ---- input ---- */

static void dispatch_touch(int32_t id, int phase, double x, double y, double time) {
    enum wpe_input_touch_event_type type = phase == DC_TOUCH_DOWN ? wpe_input_touch_event_type_down
        : phase == DC_TOUCH_MOTION ? wpe_input_touch_event_type_motion : wpe_input_touch_event_type_up;
    int at = -1;
    for (int i = 0; i < app.ntouches; i++) if (app.touches[i].id == id) at = i;
    if (at < 0) {
        if (phase != DC_TOUCH_DOWN || app.ntouches == MAX_TOUCHES) return;
        at = app.ntouches++;
    }
    /* WebKit takes input in device pixels (it divides by the scale factor). */
    app.touches[at] = (struct wpe_input_touch_event_raw){ type, (uint32_t)time, id, (int32_t)lround(x * app.scale), (int32_t)lround(y * app.scale) };
    struct wpe_input_touch_event event = { app.touches, (uint64_t)app.ntouches, type, id, (uint32_t)time, 0 };
    wpe_view_backend_dispatch_touch_event(app.backend, &event);
    if (type == wpe_input_touch_event_type_up) {
        app.touches[at] = app.touches[--app.ntouches];
    } else {
        app.touches[at].type = wpe_input_touch_event_type_motion;
    }
    stir_after(type == wpe_input_touch_event_type_up ? TAP_MS : 0);
}

static void dispatch_pen(int phase, double x, double y, double time) {
    struct wpe_input_pointer_event e = { wpe_input_pointer_event_type_motion, (uint32_t)time, (int)lround(x * app.scale), (int)lround(y * app.scale), 0, 0, 0 };
    if (phase == DC_PEN_DOWN || phase == DC_PEN_UP) {
        e.type = wpe_input_pointer_event_type_button;
        e.button = 1;
        e.state = phase == DC_PEN_DOWN;
        app.pen_down = phase == DC_PEN_DOWN;
        e.modifiers = app.pen_down ? wpe_input_pointer_modifier_button1 : 0;
        /* The position first, then the button there. */
        struct wpe_input_pointer_event move = e;
        move.type = wpe_input_pointer_event_type_motion;
        move.button = move.state = 0;
        move.modifiers = phase == DC_PEN_UP ? wpe_input_pointer_modifier_button1 : 0;
        wpe_view_backend_dispatch_pointer_event(app.backend, &move);
    } else {
        e.modifiers = app.pen_down ? wpe_input_pointer_modifier_button1 : 0;
    }
    wpe_view_backend_dispatch_pointer_event(app.backend, &e);
    stir_after(phase == DC_PEN_UP ? TAP_MS : 0);
}

/* ---- faults ---- */

static gboolean retry_load(gpointer data) {
    (void)data;
    app.retry_source = 0;
    webkit_web_view_load_uri(app.view, app.uri);
    return G_SOURCE_REMOVE;
}

static guint backoff_ms(int attempt) {
    guint ms = 500;
    for (int i = 0; i < attempt && ms < 30000; i++) ms *= 2;
    return ms > 30000 ? 30000 : ms;
}

static gboolean on_load_failed(WebKitWebView *view, WebKitLoadEvent event, gchar *uri, GError *error, gpointer data) {
    (void)event; (void)data;
    if (g_error_matches(error, WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_CANCELLED)) return FALSE;
    if (app.load_retries == 0) say("cannot load %s: %s; showing an error page and retrying", uri, error->message);
    char *u = g_markup_escape_text(uri, -1), *m = g_markup_escape_text(error->message, -1);
    char *html = g_strdup_printf(
        "<!doctype html><meta name=viewport content='width=device-width'><title>error</title>"
        "<style>html{background:#1c1c1e;color:#f2f2f7;font:17px sans-serif}body{margin:0;padding:calc(40px + var(--diptych-safe-area-inset-top,0px)) 24px}"
        "h1{font-size:22px;margin:0 0 12px}p{word-break:break-all;color:#aeaeb2}</style>"
        "<h1>This page could not be loaded</h1><p id=url>%s</p><p id=reason>%s</p><p>Trying again in %u s.</p>",
        u, m, backoff_ms(app.load_retries) / 1000);
    app.showing_error = 1;
    webkit_web_view_load_alternate_html(view, html, uri, NULL);
    g_free(html); g_free(u); g_free(m);
    if (!app.retry_source) app.retry_source = g_timeout_add(backoff_ms(app.load_retries++), retry_load, NULL);
    return TRUE;
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)data;
    if (getenv("DIPTYCH_WEB_DEBUG")) say("load event %d", (int)event);
    if (event == WEBKIT_LOAD_STARTED) app.loaded = 0;
    if (event != WEBKIT_LOAD_FINISHED) return;
    app.loaded = 1;
    app.loaded_us = g_get_monotonic_time();
    /* A frame drawn while it loaded, not blank, goes on screen now. */
    if (app.held && app.held->width == app.px_w && app.held->height == app.px_h && app.snapshotting >= app.nsnapshots && !one_colour(app.held))
        commit_live(app.held);
    answer_sync_if_done();
    const char *loaded = webkit_web_view_get_uri(view);
    if (app.showing_error && loaded && strcmp(loaded, app.uri) == 0 && app.retry_source == 0) app.showing_error = 0;
    if (!app.showing_error) {
        app.load_retries = 0;
        app.crash_retries = 0;
    }
    webkit_web_view_run_javascript(view, style_probe, NULL, on_style_read, NULL);
}

static gboolean reload_after_crash(gpointer data) {
    (void)data;
    app.retry_source = 0;
    webkit_web_view_reload(app.view);
    return G_SOURCE_REMOVE;
}

static void on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason, gpointer data) {
    (void)view; (void)data;
    if (app.crash_retries == 0)
        say("the web process ended (%s); reloading %s", reason == WEBKIT_WEB_PROCESS_CRASHED ? "crashed" : "out of memory", app.uri);
    if (app.retry_source) g_source_remove(app.retry_source);
    app.retry_source = g_timeout_add(app.crash_retries ? backoff_ms(app.crash_retries - 1) : 0, reload_after_crash, NULL);
    app.crash_retries++;
}

static void on_title(WebKitWebView *view, GParamSpec *spec, gpointer data) {
    (void)spec; (void)data;
    GString *s = log_start("pageTitle");
    g_string_append(s, ",\"title\":");
    json_string(s, webkit_web_view_get_title(view) ? webkit_web_view_get_title(view) : "");
    log_line(s);
    g_string_free(s, TRUE);
}

/* ---- the view ---- */

static void create_view(void) {
    static struct wpe_view_backend_exportable_fdo_client client = { .export_shm_buffer = on_frame };
    app.exportable = wpe_view_backend_exportable_fdo_create(&client, NULL, (uint32_t)app.css_w, (uint32_t)app.css_h);
    app.backend = wpe_view_backend_exportable_fdo_get_view_backend(app.exportable);
    WebKitWebViewBackend *backend = webkit_web_view_backend_new(app.backend, (GDestroyNotify)wpe_view_backend_exportable_fdo_destroy, app.exportable);
    WebKitWebContext *context = webkit_web_context_new_ephemeral();
    app.content = webkit_user_content_manager_new();
    WebKitUserStyleSheet *sheet = webkit_user_style_sheet_new("::-webkit-scrollbar{display:none}", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_STYLE_LEVEL_USER, NULL, NULL);
    webkit_user_content_manager_add_style_sheet(app.content, sheet);
    webkit_user_content_manager_register_script_message_handler(app.content, "diptych");
    g_signal_connect(app.content, "script-message-received::diptych", G_CALLBACK(on_script_message), NULL);
    webkit_user_style_sheet_unref(sheet);
    install_user_content();
    WebKitSettings *settings = webkit_settings_new();
    webkit_settings_set_enable_developer_extras(settings, FALSE);
    app.view = g_object_new(WEBKIT_TYPE_WEB_VIEW, "backend", backend, "web-context", context, "settings", settings,
        "user-content-manager", app.content, NULL);
    g_object_unref(context);
    g_object_unref(settings);
    /* devicePixelRatio: after the view exists (before, the backend has no client to tell). */
    wpe_view_backend_dispatch_set_device_scale_factor(app.backend, (float)app.scale);
    /* All three bits once (the backend starts at none while the view assumes all). */
    wpe_view_backend_add_activity_state(app.backend,
        wpe_view_activity_state_visible | wpe_view_activity_state_focused | wpe_view_activity_state_in_window);
    if (!app.visible) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_visible);
    if (!app.focused) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_focused);
    g_signal_connect(app.view, "load-failed", G_CALLBACK(on_load_failed), NULL);
    g_signal_connect(app.view, "load-changed", G_CALLBACK(on_load_changed), NULL);
    g_signal_connect(app.view, "web-process-terminated", G_CALLBACK(on_web_process_terminated), NULL);
    g_signal_connect(app.view, "notify::title", G_CALLBACK(on_title), NULL);
    webkit_web_view_load_uri(app.view, app.uri);
}

static void set_activity(int visible, int focused) {
    if (app.backend) {
        if (visible && !app.visible) wpe_view_backend_add_activity_state(app.backend, wpe_view_activity_state_visible);
        if (!visible && app.visible) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_visible);
        if (focused && !app.focused) wpe_view_backend_add_activity_state(app.backend, wpe_view_activity_state_focused);
        if (!focused && app.focused) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_focused);
    }
    app.visible = visible;
    app.focused = focused;
}

/* ---- the compositor's events ---- */

static void handle(const dc_event *e) {
    log_event(e);
    if (getenv("DIPTYCH_WEB_DEBUG") && e->type != DC_SYNC) say("event %d", (int)e->type);
    switch (e->type) {
    case DC_CONFIGURE: {
        int first = !app.configured;
        int was_primary = app.role == DC_PRIMARY;
        dc_ack(app.dc, e->configure.serial);
        app.configured = 1;
        app.role = e->configure.role;
        if (e->configure.pixel_width != app.px_w || e->configure.pixel_height != app.px_h) app.shown_live_size = 0;
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
        if (first) {
            app.scale = scale;
            note_class_size(app.css_w, app.css_h, app.hclass, app.vclass);
            app.target_w = app.css_w;
            app.target_h = app.css_h;
            create_view();
        } else {
            if (scale != app.scale) {
                app.scale = scale;
                wpe_view_backend_dispatch_set_device_scale_factor(app.backend, (float)scale);
            }
            note_class_size(app.css_w, app.css_h, app.hclass, app.vclass);
            resize_to(app.css_w, app.css_h);
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
        note_class_size(s->css_w, s->css_h, s->hclass, app.vclass);
        if (app.nsnapshots == 1) next_snapshot();
        break;
    }
    case DC_TOUCH:
        if (app.view) dispatch_touch(e->touch.id, e->touch.phase, e->touch.x, e->touch.y, e->touch.time);
        break;
    case DC_PEN:
        if (app.view && e->pen.phase != DC_PEN_PROXIMITY_OUT) dispatch_pen(e->pen.phase, e->pen.x, e->pen.y, e->pen.time);
        break;
    case DC_FRAME_DONE:
        if (app.frame_complete_owed) {
            app.frame_complete_owed = 0;
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
        }
        break;
    case DC_SYNC:
        /* A scenario: frames are not held for frameDone (the clock is the compositor's). */
        app.virtual_clock = 1;
        if (app.frame_complete_owed) {
            app.frame_complete_owed = 0;
            wpe_view_backend_exportable_fdo_dispatch_frame_complete(app.exportable);
        }
        app.sync_pending = 1;
        app.sync_serial = e->sync.serial;
        app.sync_deadline_us = g_get_monotonic_time() + SYNC_TIMEOUT_MS * 1000;
        answer_sync_if_done();
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

int main(int argc, char **argv) {
    const char *url = NULL;
    int full_screen = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--event-log") == 0 && i + 1 < argc) app.log_path = argv[++i];
        else if (strcmp(argv[i], "--requires-full-screen") == 0) full_screen = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: diptych-web URL [--event-log FILE] [--requires-full-screen]\n"
                   "A web page (http(s)://, file://, or a file path) as a Diptych app, rendered by WPE WebKit.\n");
            return 0;
        } else if (argv[i][0] == '-' || url) {
            fprintf(stderr, "diptych-web: unexpected argument '%s'\nusage: diptych-web URL [--event-log FILE] [--requires-full-screen]\n", argv[i]);
            return 2;
        } else url = argv[i];
    }
    if (!url) {
        fprintf(stderr, "diptych-web: no URL\nusage: diptych-web URL [--event-log FILE] [--requires-full-screen]\n");
        return 2;
    }
    char *uri = uri_of(url);
    app.uri = uri;
    snprintf(app.app_label, sizeof app.app_label, "web:%s", url);
    app.log_frames = getenv("DIPTYCH_WEB_LOG_FRAMES") && strcmp(getenv("DIPTYCH_WEB_LOG_FRAMES"), "1") == 0;
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
    app.dc = dc_connect(app.app_label, full_screen, error, sizeof error);
    if (!app.dc) {
        say("%s", error);
        return 1;
    }
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

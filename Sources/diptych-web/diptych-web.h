/* SPDX-License-Identifier: MIT */
/* diptych-web's state, shared by its parts: diptych-web.c (the compositor's events, frames,
   round trips, input) and page.c (the page: its classes, settling, status bar, faults, view). */
#ifndef DIPTYCH_WEB_H
#define DIPTYCH_WEB_H

#include "diptych-client.h"
#include "event-log.h"

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

struct web_app {
    dc_connection *dc;
    GMainLoop *loop;
    /* The page loaded (a file: page as diptych-file:, files.c), and as the operator named it. */
    const char *uri, *shown_uri;

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
    int debug;                  /* DIPTYCH_WEB_DEBUG set: say what happens on stderr */
    gint64 last_frame_us;       /* monotonic time of the last frame exported */
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
    /* The pointer's buttons held, as WPE's modifier bits. */
    uint32_t pointer_buttons;

    /* Activity. */
    int visible, focused;
    /* Status bar style the page asks for (-1: none), and whether it was sent as primary. */
    int wanted_style, sent_style;
    /* Whether the compositor is asked to keep the screen awake (a video plays: video.c). */
    int inhibiting;
    /* The page's viewport says viewport-fit=cover (its view takes the whole pane, under the
       status bar); else the band above it shows this colour (status-band.c). */
    int cover;
    uint32_t band_colour;
    /* The live frame committed last (its pixels stay readable while the compositor holds it). */
    const dc_buffer *live;
    /* Faults. */
    int load_retries, crash_retries, showing_error;
    gint64 last_crash_us;
    /* WebKit's bubblewrap sandbox is on. */
    int sandboxed;
    guint retry_source;
};
extern struct web_app app;

void say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);


/* diptych-web's own script world: its probes and message handlers live there, apart from the
   page's scripts. */
#define SCRIPT_WORLD "diptych"

/* icon.c: the page's icon */
void probe_icon(WebKitWebView *view);
void on_icon_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);

/* page.c: the page */
void note_class_size(int width, int height, int hclass, int vclass);
char *classes_script(void);
void install_user_content(void);
void send_status_bar_style(void);
void stir(void);
void stir_after(guint later_ms);
int settled(void);
void create_view(void);
void set_activity(int visible, int focused);

/* diptych-web.c: frames and round trips */
void on_frame(void *data, struct wpe_fdo_shm_exported_buffer *exported);
void answer_sync_if_done(void);
int one_colour(const dc_buffer *b);
/* input.c: the compositor's input events to WebKit. */
void dispatch_touch(int32_t id, int phase, double x, double y, double time);
void dispatch_pen(int phase, double x, double y, double pressure, double tilt_x, double tilt_y, double time);
void dispatch_key(const dc_event *e);
void dispatch_pointer(const dc_event *e);
void commit_live(dc_buffer *b);
void show_blank_under_dialog(void);

/* policy.c: new windows in the same pane, permissions denied, file choosers cancelled,
   downloads refused, beforeunload left, TLS errors shown. page.c: the error page. */
void policy_attach(WebKitWebView *view);

/* dialogs.c: <select>, alert/confirm/prompt and HTTP sign-in through the compositor. */
void dialogs_attach(WebKitWebView *view);
void dialogs_event(const dc_event *e);
void dialogs_navigated(const char *uri);
int dialogs_sign_in_again(void);
int dialogs_showing(void);
void show_load_error(WebKitWebView *view, const char *uri, const GError *error);

/* ready.c: when the page is ready (loaded, no resource in flight, drawn nothing new a while). */
int page_ready(void);
void ready_load_started(void);
gint64 ready_sync_deadline(void);
void ready_sync_answered(void);
void ready_check(void);
void ready_attach(WebKitWebView *view);
void hide_caret(void);

/* state.c: the data directory, file access and the console. */
extern struct web_options {
    const char *data_dir, *name;
    int ephemeral;
    /* A file: page: 0 served by diptych-web from its folders (files.c), -1 served alone
       (--no-file-access), 1 plain file: with WebKit's file access (--allow-file-access, unsafe). */
    int file_access;
    /* --file-root DIR (repeatable): the folders served to a file: page (char *). */
    GPtrArray *file_roots;
    /* --tls-ca FILE: certificate authorities trusted besides the system's (GTlsCertificate *). */
    GList *tls_ca;
} web_options;
WebKitWebContext *make_context(void);
void apply_file_access(WebKitSettings *settings);
extern const char *console_script;

/* files.c: a file: page served through diptych-web's own scheme, confined to its folders. */
char *serve_file_page(const char *uri);
void files_attach(WebKitWebContext *context);
int is_served_uri(const char *uri);
/* A URI as the operator knows it: a served page's as file: (newly allocated). */
char *shown_uri(const char *uri);
/* The script that plays a served page's <video> and <audio> files over loopback HTTP (GStreamer
   plays no custom scheme); NULL without its listener. */
char *media_script(void);
/* The frames it is given (an allow-list of the served page's URLs). */
const char *const *media_script_frames(void);
void on_console_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);

/* touch.c: pointer events for touch and the pen, touch scrolling's wheel events hidden, a
   cancelled touch's click undone (a script in diptych-web's world). */
extern const char *touch_script;
void touch_cancelled(int32_t id);
void touch_pen(int down, double pressure, double tilt_x, double tilt_y);

/* status-band.c: the status bar's band above the view (the safe area's top, unless cover). */
extern const char *band_script;
double band_top(void);
int band_rows(void);
void on_band_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);
/* video.c: a playing <video> holds idleInhibit. */
extern const char *video_script;
void set_idle_inhibit(int on);
void on_video_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);
void place_frame(dc_buffer *b, const uint8_t *src, size_t stride, int w, int h, int from);
int band_contact(int id, int phase, double y);
/* diptych-web.c: the view resized to the pane less the band (after the band changed). */
void relayout_view(void);

/* text-input.c: WebKit's input-method context as the compositor's textInput, and the pan that
   keeps the caret above the on-screen keyboard. */
extern const char *text_input_script;
void text_input_attach(WebKitWebView *view);
void on_field_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data);
void text_input_event(const dc_event *e);
int text_input_pan(void);
int text_input_copy_frame(struct wl_shm_buffer *shm, dc_buffer *b);
void text_input_resized(void);
void text_input_tick(void);
/* The view gained or lost the window's focus (set_activity). */
void text_input_view_focus(int focused);

#endif

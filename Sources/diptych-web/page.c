/* SPDX-License-Identifier: MIT */
/* diptych-web's page: the size classes and safe area it is told (before each resize), how it
   reports having drawn what it was sent (settling), the status bar style it asks for, its
   faults (a crashed web process, a page that fails to load), and the view itself. */
#define _GNU_SOURCE
#include "diptych-web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A page that stays up this long after a crash starts its count of crashes again. */
#define CRASH_FORGIVEN_US (60 * G_USEC_PER_SEC)

/* ---- the page's state ---- */

/* The sizes (CSS px) the compositor named, with their classes: a pane's and each snapshot's. */
#define MAX_CLASS_SIZES 32
static struct { int width, height, hclass, vclass; } class_sizes[MAX_CLASS_SIZES];
static int nclass_sizes;

void note_class_size(int width, int height, int hclass, int vclass) {
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
char *classes_script(void) {
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
        w->str, h->str, app.safe[0] - band_top(), app.safe[1], app.safe[2], app.safe[3], app.target_w, app.target_h);
    g_string_free(w, TRUE);
    g_string_free(h, TRUE);
    return source;
}

/* The user script that sets the classes before the page's own scripts (on every load), and the
   stylesheet that hides the overlay scrollbars (they animate for seconds after every scroll). */
void install_user_content(void) {
    webkit_user_content_manager_remove_all_scripts(app.content);
    char *source = classes_script();
    WebKitUserScript *script = webkit_user_script_new(
        source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    g_free(source);
    /* The page's console to stderr and the event log (state.c), in the page's world. */
    script = webkit_user_script_new(console_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    /* Touch as an iPad's pages expect it (touch.c), in every frame. */
    script = webkit_user_script_new_for_world(touch_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
        SCRIPT_WORLD, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    /* Whether the page covers the status bar, and the band's colour, from the same world. */
    script = webkit_user_script_new_for_world(band_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
        SCRIPT_WORLD, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    /* Whether a video plays (video.c), from diptych-web's own world. */
    script = webkit_user_script_new_for_world(video_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
        SCRIPT_WORLD, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
    /* A served file: page's media, played from the loopback listener (files.c): in the served
       page's frames only (the script holds the listener's secret). */
    char *media = is_served_uri(app.uri) ? media_script() : NULL;
    if (media) {
        script = webkit_user_script_new_for_world(media, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
            WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, SCRIPT_WORLD, media_script_frames(), NULL);
        webkit_user_content_manager_add_script(app.content, script);
        webkit_user_script_unref(script);
        g_free(media);
    }
    /* What the focused element says of its keyboard, from diptych-web's own world. */
    script = webkit_user_script_new_for_world(text_input_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, SCRIPT_WORLD, NULL, NULL);
    webkit_user_content_manager_add_script(app.content, script);
    webkit_user_script_unref(script);
}



void send_status_bar_style(void) {
    if (app.wanted_style < 0 || app.role != DC_PRIMARY || !app.configured || app.sent_style == app.wanted_style) return;
    dc_status_bar_style(app.dc, app.wanted_style);
    app.sent_style = app.wanted_style;
}

static void on_style_read(GObject *object, GAsyncResult *result, gpointer data) {
    (void)data;
    WebKitJavascriptResult *r = webkit_web_view_run_javascript_in_world_finish(WEBKIT_WEB_VIEW(object), result, NULL);
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
    /* In diptych-web's own script world: the page can neither replace the requestAnimationFrame
       it calls nor see or post to its handler, so it can neither stall nor forge its readiness. */
    webkit_web_view_run_javascript_in_world(app.view, source, SCRIPT_WORLD, NULL, NULL, NULL);
    g_free(source);
    return G_SOURCE_REMOVE;
}

/* Asks the page to say when it has drawn what was just sent to it; `later`: once WebKit has
   had TAP_MS to turn a lifted touch into the click it synthesises. */
void stir_after(guint later_ms) {
    if (!app.view) return;
    app.stirs++;
    if (later_ms) g_timeout_add(later_ms, send_stir, GUINT_TO_POINTER(app.stirs));
    else send_stir(GUINT_TO_POINTER(app.stirs));
}

void stir(void) { stir_after(0); }

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
int settled(void) {
    if (!app.visible || !app.loaded) return 1;
    if (app.settled != app.stirs) return 0;
    return app.last_frame_us > app.settled_us || g_get_monotonic_time() - app.settled_us >= GRACE_MS * 1000;
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
    /* (A download refused ends its navigation so: no error page.) */
    if (g_error_matches(error, WEBKIT_POLICY_ERROR, WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE)) return FALSE;
    show_load_error(view, uri, error);
    return TRUE;
}

/* The error page naming the URL and the reason, retried with back-off. */
void show_load_error(WebKitWebView *view, const char *uri, const GError *error) {
    char *shown = shown_uri(uri);
    if (app.load_retries == 0) say("cannot load %s: %s; showing an error page and retrying", shown, error->message);
    char *u = g_markup_escape_text(shown, -1), *m = g_markup_escape_text(error->message, -1);
    g_free(shown);
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
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data) {
    (void)data;
    if (app.debug) say("load event %d", (int)event);
    if (event == WEBKIT_LOAD_STARTED) {
        app.loaded = 0;
        /* The page that played is gone. */
        set_idle_inhibit(0);
        ready_load_started();
    }
    /* (Where it goes, then where it went: a redirect may take it to another origin.) */
    if (event == WEBKIT_LOAD_STARTED || event == WEBKIT_LOAD_COMMITTED) dialogs_navigated(webkit_web_view_get_uri(view));
    if (event != WEBKIT_LOAD_FINISHED) return;
    if (dialogs_sign_in_again()) {
        say("WebKit dropped the sign-in it asked for: loading %s again to be asked again", app.shown_uri);
        webkit_web_view_load_uri(view, app.uri); /* (a reload does nothing: nothing was committed) */
        return;
    }
    app.loaded = 1;
    app.loaded_us = g_get_monotonic_time();
    /* A stir the page that went away never answered (it navigated right after an input or a
       dialog's answer): asked again of this one, else the page would never count as settled. */
    if (app.settled != app.stirs) stir();
    /* A frame drawn while it loaded, not blank, goes on screen now. */
    if (app.held && app.held->width == app.px_w && app.held->height == app.px_h && app.snapshotting >= app.nsnapshots && !one_colour(app.held))
        commit_live(app.held);
    answer_sync_if_done();
    const char *loaded = webkit_web_view_get_uri(view);
    if (app.showing_error && loaded && strcmp(loaded, app.uri) == 0 && app.retry_source == 0) app.showing_error = 0;
    /* (Crashes are counted across loads: a page that loads and then crashes backs off too.) */
    if (!app.showing_error) app.load_retries = 0;
    webkit_web_view_run_javascript_in_world(view, style_probe, SCRIPT_WORLD, NULL, on_style_read, NULL);
    if (!app.showing_error) probe_icon(view);
}

static gboolean reload_after_crash(gpointer data) {
    (void)data;
    app.retry_source = 0;
    webkit_web_view_reload(app.view);
    return G_SOURCE_REMOVE;
}

static void on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason, gpointer data) {
    (void)view; (void)data;
    /* The count of crashes in a row goes back to zero only after the page stayed up a minute,
       whatever loaded in between (a page that crashes once loaded would otherwise be reloaded
       at once, for ever). */
    gint64 now = g_get_monotonic_time();
    if (app.last_crash_us && now - app.last_crash_us > CRASH_FORGIVEN_US) app.crash_retries = 0;
    app.last_crash_us = now;
    if (app.crash_retries == 0)
        say("the web process ended (%s); reloading %s", reason == WEBKIT_WEB_PROCESS_CRASHED ? "crashed" : "out of memory", app.shown_uri);
    if (app.retry_source) g_source_remove(app.retry_source);
    guint delay = app.crash_retries ? backoff_ms(app.crash_retries - 1) : 0;
    app.retry_source = g_timeout_add(delay, reload_after_crash, NULL);
    app.crash_retries++;
    GString *s = log_start("webProcessEnded");
    g_string_append_printf(s, ",\"reason\":\"%s\",\"reloadMs\":%u",
        reason == WEBKIT_WEB_PROCESS_CRASHED ? "crashed" : reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? "memory" : "ended", delay);
    log_line(s);
    g_string_free(s, TRUE);
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

/* WebKit's own sandbox (bubblewrap: the web process in its own namespaces, seeing only what a
   page needs, and for a plain file: page (--allow-file-access) its folder, read-only; a served
   file: page's files come from diptych-web, files.c) where the platform allows it: bwrap
   is there and may make namespaces. It is off, said why, where it may not (a unit with
   RestrictNamespaces, a container without user namespaces) or with DIPTYCH_WEB_SANDBOX=0. */
static void enable_sandbox(WebKitWebContext *context) {
    const char *want = getenv("DIPTYCH_WEB_SANDBOX");
    if (want && strcmp(want, "0") == 0) {
        say("WebKit's sandbox is off (DIPTYCH_WEB_SANDBOX=0)");
        return;
    }
    char *argv[] = {"bwrap", "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true", NULL};
    gint status = -1;
    GError *error = NULL;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL,
            &status, &error) || !g_spawn_check_wait_status(status, NULL)) {
        say("WebKit's sandbox is off: bwrap cannot make namespaces here (%s)", error ? error->message : "it failed");
        g_clear_error(&error);
        return;
    }
    webkit_web_context_set_sandbox_enabled(context, TRUE);
    /* (WebKit itself leaves it off inside a Docker container, whatever is asked.) */
    if (app.debug && access("/.dockerenv", F_OK) == 0) say("WebKit's sandbox is asked for, but WebKit leaves it off inside a container (/.dockerenv)");
    char *page = g_str_has_prefix(app.uri, "file:") ? g_filename_from_uri(app.uri, NULL, NULL) : NULL;
    if (page) {
        char *folder = g_path_get_dirname(page);
        webkit_web_context_add_path_to_sandbox(context, folder, TRUE);
        g_free(folder);
        g_free(page);
    }
    app.sandboxed = 1;
}

void create_view(void) {
    static struct wpe_view_backend_exportable_fdo_client client = { .export_shm_buffer = on_frame };
    app.exportable = wpe_view_backend_exportable_fdo_create(&client, NULL, (uint32_t)app.target_w, (uint32_t)app.target_h);
    app.backend = wpe_view_backend_exportable_fdo_get_view_backend(app.exportable);
    WebKitWebViewBackend *backend = webkit_web_view_backend_new(app.backend, (GDestroyNotify)wpe_view_backend_exportable_fdo_destroy, app.exportable);
    WebKitWebContext *context = make_context();
    files_attach(context);
    enable_sandbox(context);
    app.content = webkit_user_content_manager_new();
    WebKitUserStyleSheet *sheet = webkit_user_style_sheet_new("::-webkit-scrollbar{display:none}", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_STYLE_LEVEL_USER, NULL, NULL);
    webkit_user_content_manager_add_style_sheet(app.content, sheet);
    /* The handlers exist only in diptych-web's own script world: the page's scripts cannot see
       them, post to them, or replace what the probes call. */
    webkit_user_content_manager_register_script_message_handler_in_world(app.content, "diptych", SCRIPT_WORLD);
    g_signal_connect(app.content, "script-message-received::diptych", G_CALLBACK(on_script_message), NULL);
    webkit_user_content_manager_register_script_message_handler_in_world(app.content, "diptychIcon", SCRIPT_WORLD);
    g_signal_connect(app.content, "script-message-received::diptychIcon", G_CALLBACK(on_icon_message), NULL);
    /* The console is the page's own (its script wraps the page's console, in its world). */
    webkit_user_content_manager_register_script_message_handler(app.content, "diptychConsole");
    g_signal_connect(app.content, "script-message-received::diptychConsole", G_CALLBACK(on_console_message), NULL);
    webkit_user_content_manager_register_script_message_handler_in_world(app.content, "diptychVideo", SCRIPT_WORLD);
    g_signal_connect(app.content, "script-message-received::diptychVideo", G_CALLBACK(on_video_message), NULL);
    webkit_user_content_manager_register_script_message_handler_in_world(app.content, "diptychBand", SCRIPT_WORLD);
    g_signal_connect(app.content, "script-message-received::diptychBand", G_CALLBACK(on_band_message), NULL);
    webkit_user_content_manager_register_script_message_handler_in_world(app.content, "diptychField", SCRIPT_WORLD);
    g_signal_connect(app.content, "script-message-received::diptychField", G_CALLBACK(on_field_message), NULL);
    webkit_user_style_sheet_unref(sheet);
    install_user_content();
    WebKitSettings *settings = webkit_settings_new();
    webkit_settings_set_enable_developer_extras(settings, FALSE);
    apply_file_access(settings);
    app.view = g_object_new(WEBKIT_TYPE_WEB_VIEW, "backend", backend, "web-context", context, "settings", settings,
        "user-content-manager", app.content, NULL);
    g_object_unref(context);
    g_object_unref(settings);
    text_input_attach(app.view);
    ready_attach(app.view);
    policy_attach(app.view);
    dialogs_attach(app.view);
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

void set_activity(int visible, int focused) {
    /* (Before WebKit hears it: its focus-out for the view is not the field's.) */
    text_input_view_focus(focused);
    if (app.backend) {
        if (visible && !app.visible) wpe_view_backend_add_activity_state(app.backend, wpe_view_activity_state_visible);
        if (!visible && app.visible) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_visible);
        if (focused && !app.focused) wpe_view_backend_add_activity_state(app.backend, wpe_view_activity_state_focused);
        if (!focused && app.focused) wpe_view_backend_remove_activity_state(app.backend, wpe_view_activity_state_focused);
    }
    app.visible = visible;
    app.focused = focused;
}


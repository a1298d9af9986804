/* SPDX-License-Identifier: MIT */
/* diptych-web's page: the size classes and safe area it is told (before each resize), its
   faults (a crashed web process, a page that fails to load), and the view itself (view.h). */
#define _GNU_SOURCE
#include "view.h"

#include "band.h"
#include "field.h"
#include "files.h"
#include "touch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A page that stays up this long after a crash starts its count of crashes again. */
#define CRASH_FORGIVEN_US (60 * G_USEC_PER_SEC)

/* ---- the page's state ---- */

void web_view_note_class_size(struct web_view *view, int width, int height, int hclass, int vclass) {
    for (int i = 0; i < view->nclass_sizes; i++)
        if (view->class_sizes[i].width == width && view->class_sizes[i].height == height) {
            view->class_sizes[i].hclass = hclass;
            view->class_sizes[i].vclass = vclass;
            return;
        }
    if (view->nclass_sizes == MAX_CLASS_SIZES) memmove(view->class_sizes, view->class_sizes + 1, sizeof view->class_sizes[0] * --view->nclass_sizes);
    view->class_sizes[view->nclass_sizes].width = width;
    view->class_sizes[view->nclass_sizes].height = height;
    view->class_sizes[view->nclass_sizes].hclass = hclass;
    view->class_sizes[view->nclass_sizes++].vclass = vclass;
}

/* The page sets its classes itself in the first `resize` listener, from its viewport (the
   sizes the compositor named, else its thresholds), so every frame is laid out with the
   classes of its own size, however WebKit orders this script and a resize. */
char *web_view_classes_script(const struct web_view *view, const struct web_pane *pane, double band_top) {
    GString *w = g_string_new(""), *h = g_string_new("");
    for (int i = 0; i < view->nclass_sizes; i++) {
        g_string_append_printf(w, "%s%d:'%s'", w->len ? "," : "", view->class_sizes[i].width, class_name(view->class_sizes[i].hclass));
        g_string_append_printf(h, "%s%d:'%s'", h->len ? "," : "", view->class_sizes[i].height, class_name(view->class_sizes[i].vclass));
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
        w->str, h->str, pane->safe[0] - band_top, pane->safe[1], pane->safe[2], pane->safe[3], view->target_w, view->target_h);
    g_string_free(w, TRUE);
    g_string_free(h, TRUE);
    return source;
}

/* Adds a script run at the start of every document: in the top frame or all frames, in the
   page's world (`world` NULL) or diptych-web's own, in the frames `allow` names (NULL: all). */
static void add_script(struct web_view *view, const char *source, WebKitUserContentInjectedFrames frames, const char *world,
                       const char *const *allow) {
    WebKitUserScript *script = world
        ? webkit_user_script_new_for_world(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, world, allow, NULL)
        : webkit_user_script_new(source, frames, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, allow, NULL);
    webkit_user_content_manager_add_script(view->content, script);
    webkit_user_script_unref(script);
}

/* The user script that sets the classes before the page's own scripts (on every load), and the
   stylesheet that hides the overlay scrollbars (they animate for seconds after every scroll). */
void web_view_install_user_content(struct web_view *view, const struct web_pane *pane, double band_top) {
    webkit_user_content_manager_remove_all_scripts(view->content);
    char *source = web_view_classes_script(view, pane, band_top);
    add_script(view, source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, NULL, NULL);
    g_free(source);
    /* The page's console to stderr and the event log (state.c), in the page's world. */
    add_script(view, console_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, NULL, NULL);
    /* Touch as an iPad's pages expect it (touch.c), in every frame. */
    add_script(view, touch_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, SCRIPT_WORLD, NULL);
    /* Whether the page covers the status bar, and the band's colour, from the same world. */
    add_script(view, band_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, SCRIPT_WORLD, NULL);
    /* Whether a video plays (video.c), from diptych-web's own world. */
    add_script(view, video_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, SCRIPT_WORLD, NULL);
    /* A served file: page's media, played from the loopback listener (files.c): in the served
       page's frames only (the script holds the listener's secret). */
    char *media = is_served_uri(view->uri) ? media_script() : NULL;
    if (media) {
        add_script(view, media, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, SCRIPT_WORLD, media_script_frames());
        g_free(media);
    }
    /* What the focused element says of its keyboard, from diptych-web's own world. */
    add_script(view, text_input_script, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, SCRIPT_WORLD, NULL);
}


/* ---- faults ---- */

static gboolean retry_load(gpointer data) {
    struct web_view *view = data;
    view->retry_source = 0;
    webkit_web_view_load_uri(view->webkit, view->uri);
    return G_SOURCE_REMOVE;
}

static guint backoff_ms(int attempt) {
    guint ms = 500;
    for (int i = 0; i < attempt && ms < 30000; i++) ms *= 2;
    return ms > 30000 ? 30000 : ms;
}

static gboolean on_load_failed(WebKitWebView *webkit, WebKitLoadEvent event, gchar *uri, GError *error, gpointer data) {
    (void)webkit; (void)event;
    if (g_error_matches(error, WEBKIT_NETWORK_ERROR, WEBKIT_NETWORK_ERROR_CANCELLED)) return FALSE;
    /* (A download refused ends its navigation so: no error page.) */
    if (g_error_matches(error, WEBKIT_POLICY_ERROR, WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE)) return FALSE;
    web_view_show_load_error(data, uri, error);
    return TRUE;
}

void web_view_show_load_error(struct web_view *view, const char *uri, const GError *error) {
    char *shown = shown_uri(uri);
    if (view->load_retries == 0) say("cannot load %s: %s; showing an error page and retrying", shown, error->message);
    char *u = g_markup_escape_text(shown, -1), *m = g_markup_escape_text(error->message, -1);
    g_free(shown);
    char *html = g_strdup_printf(
        "<!doctype html><meta name=viewport content='width=device-width'><title>error</title>"
        "<style>html{background:#1c1c1e;color:#f2f2f7;font:17px sans-serif}body{margin:0;padding:calc(40px + var(--diptych-safe-area-inset-top,0px)) 24px}"
        "h1{font-size:22px;margin:0 0 12px}p{word-break:break-all;color:#aeaeb2}</style>"
        "<h1>This page could not be loaded</h1><p id=url>%s</p><p id=reason>%s</p><p>Trying again in %u s.</p>",
        u, m, backoff_ms(view->load_retries) / 1000);
    view->showing_error = 1;
    webkit_web_view_load_alternate_html(view->webkit, html, uri, NULL);
    g_free(html); g_free(u); g_free(m);
    if (!view->retry_source) view->retry_source = g_timeout_add(backoff_ms(view->load_retries++), retry_load, view);
}

void web_view_load_finished(struct web_view *view) {
    const char *loaded = webkit_web_view_get_uri(view->webkit);
    if (view->showing_error && loaded && strcmp(loaded, view->uri) == 0 && view->retry_source == 0) view->showing_error = 0;
    /* (Crashes are counted across loads: a page that loads and then crashes backs off too.) */
    if (!view->showing_error) view->load_retries = 0;
}

static gboolean reload_after_crash(gpointer data) {
    struct web_view *view = data;
    view->retry_source = 0;
    webkit_web_view_reload(view->webkit);
    return G_SOURCE_REMOVE;
}

static void on_web_process_terminated(WebKitWebView *webkit, WebKitWebProcessTerminationReason reason, gpointer data) {
    (void)webkit;
    struct web_view *view = data;
    /* The count of crashes in a row goes back to zero only after the page stayed up a minute,
       whatever loaded in between (a page that crashes once loaded would otherwise be reloaded
       at once, for ever). */
    gint64 now = g_get_monotonic_time();
    if (view->last_crash_us && now - view->last_crash_us > CRASH_FORGIVEN_US) view->crash_retries = 0;
    view->last_crash_us = now;
    if (view->crash_retries == 0)
        say("the web process ended (%s); reloading %s", reason == WEBKIT_WEB_PROCESS_CRASHED ? "crashed" : "out of memory", view->shown_uri);
    if (view->retry_source) g_source_remove(view->retry_source);
    guint delay = view->crash_retries ? backoff_ms(view->crash_retries - 1) : 0;
    view->retry_source = g_timeout_add(delay, reload_after_crash, view);
    view->crash_retries++;
    GString *s = log_start("webProcessEnded");
    g_string_append_printf(s, ",\"reason\":\"%s\",\"reloadMs\":%u",
        reason == WEBKIT_WEB_PROCESS_CRASHED ? "crashed" : reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? "memory" : "ended", delay);
    log_line(s);
    g_string_free(s, TRUE);
}

static void on_title(WebKitWebView *webkit, GParamSpec *spec, gpointer data) {
    (void)spec; (void)data;
    GString *s = log_start("pageTitle");
    g_string_append(s, ",\"title\":");
    json_string(s, webkit_web_view_get_title(webkit) ? webkit_web_view_get_title(webkit) : "");
    log_line(s);
    g_string_free(s, TRUE);
}

/* ---- the view ---- */

/* WebKit's own sandbox (bubblewrap: the web process in its own namespaces, seeing only what a
   page needs, and for a plain file: page (--allow-file-access) its folder, read-only; a served
   file: page's files come from diptych-web, files.c) where the platform allows it: bwrap
   is there and may make namespaces. It is off, said why, where it may not (a unit with
   RestrictNamespaces, a container without user namespaces) or with DIPTYCH_WEB_SANDBOX=0. */
static void enable_sandbox(struct web_view *view, WebKitWebContext *context) {
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
    if (web_debug && access("/.dockerenv", F_OK) == 0) say("WebKit's sandbox is asked for, but WebKit leaves it off inside a container (/.dockerenv)");
    char *page = g_str_has_prefix(view->uri, "file:") ? g_filename_from_uri(view->uri, NULL, NULL) : NULL;
    if (page) {
        char *folder = g_path_get_dirname(page);
        webkit_web_context_add_path_to_sandbox(context, folder, TRUE);
        g_free(folder);
        g_free(page);
    }
    view->sandboxed = 1;
}

void web_view_create(struct web_view *view, const struct web_pane *pane, double band_top,
                     const struct wpe_view_backend_exportable_fdo_client *client, void *client_data) {
    view->exportable = wpe_view_backend_exportable_fdo_create(client, client_data, (uint32_t)view->target_w, (uint32_t)view->target_h);
    view->backend = wpe_view_backend_exportable_fdo_get_view_backend(view->exportable);
    WebKitWebViewBackend *backend = webkit_web_view_backend_new(view->backend, (GDestroyNotify)wpe_view_backend_exportable_fdo_destroy, view->exportable);
    WebKitWebContext *context = make_context(pane->role);
    files_attach(context, view->uri);
    enable_sandbox(view, context);
    view->content = webkit_user_content_manager_new();
    WebKitUserStyleSheet *sheet = webkit_user_style_sheet_new("::-webkit-scrollbar{display:none}", WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES,
        WEBKIT_USER_STYLE_LEVEL_USER, NULL, NULL);
    webkit_user_content_manager_add_style_sheet(view->content, sheet);
    /* The handlers exist only in diptych-web's own script world: the page's scripts cannot see
       them, post to them, or replace what the probes call. (The app connects to "diptych",
       "diptychBand" and "diptychField"; the view to the others.) */
    webkit_user_content_manager_register_script_message_handler_in_world(view->content, "diptych", SCRIPT_WORLD);
    webkit_user_content_manager_register_script_message_handler_in_world(view->content, "diptychIcon", SCRIPT_WORLD);
    g_signal_connect(view->content, "script-message-received::diptychIcon", G_CALLBACK(on_icon_message), view);
    /* The console is the page's own (its script wraps the page's console, in its world). */
    webkit_user_content_manager_register_script_message_handler(view->content, "diptychConsole");
    g_signal_connect(view->content, "script-message-received::diptychConsole", G_CALLBACK(on_console_message), &view->console);
    webkit_user_content_manager_register_script_message_handler_in_world(view->content, "diptychVideo", SCRIPT_WORLD);
    g_signal_connect(view->content, "script-message-received::diptychVideo", G_CALLBACK(on_video_message), view);
    webkit_user_content_manager_register_script_message_handler_in_world(view->content, "diptychBand", SCRIPT_WORLD);
    webkit_user_content_manager_register_script_message_handler_in_world(view->content, "diptychField", SCRIPT_WORLD);
    webkit_user_style_sheet_unref(sheet);
    web_view_install_user_content(view, pane, band_top);
    WebKitSettings *settings = webkit_settings_new();
    webkit_settings_set_enable_developer_extras(settings, FALSE);
    apply_file_access(settings, view->uri);
    view->webkit = g_object_new(WEBKIT_TYPE_WEB_VIEW, "backend", backend, "web-context", context, "settings", settings,
        "user-content-manager", view->content, NULL);
    g_object_unref(context);
    g_object_unref(settings);
}

void web_view_load(struct web_view *view, const struct web_pane *pane) {
    web_view_ready_attach(view);
    policy_attach(view);
    /* devicePixelRatio: after the view exists (before, the backend has no client to tell). */
    wpe_view_backend_dispatch_set_device_scale_factor(view->backend, (float)pane->scale);
    /* All three bits once (the backend starts at none while the view assumes all). */
    wpe_view_backend_add_activity_state(view->backend,
        wpe_view_activity_state_visible | wpe_view_activity_state_focused | wpe_view_activity_state_in_window);
    if (!pane->visible) wpe_view_backend_remove_activity_state(view->backend, wpe_view_activity_state_visible);
    if (!pane->focused) wpe_view_backend_remove_activity_state(view->backend, wpe_view_activity_state_focused);
    g_signal_connect(view->webkit, "load-failed", G_CALLBACK(on_load_failed), view);
    g_signal_connect(view->webkit, "web-process-terminated", G_CALLBACK(on_web_process_terminated), view);
    g_signal_connect(view->webkit, "notify::title", G_CALLBACK(on_title), NULL);
    webkit_web_view_load_uri(view->webkit, view->uri);
}

void web_view_set_activity(struct web_view *view, const struct web_pane *pane, int visible, int focused) {
    if (!view->backend) return;
    if (visible && !pane->visible) wpe_view_backend_add_activity_state(view->backend, wpe_view_activity_state_visible);
    if (!visible && pane->visible) wpe_view_backend_remove_activity_state(view->backend, wpe_view_activity_state_visible);
    if (focused && !pane->focused) wpe_view_backend_add_activity_state(view->backend, wpe_view_activity_state_focused);
    if (!focused && pane->focused) wpe_view_backend_remove_activity_state(view->backend, wpe_view_activity_state_focused);
}

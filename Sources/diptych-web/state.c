/* SPDX-License-Identifier: MIT */
/* What a page keeps and says: its data directory (cookies, localStorage, IndexedDB, caches) so
   that a kiosk's sign-in outlives a relaunch, WebKit's access to local files (off: files.c
   serves a file: page's folders), and its console (console.*, errors, unhandled rejections) on
   stderr and in the event log. */
#define _GNU_SOURCE
#include "state.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Console lines a second, and bytes a line, at most. */
#define CONSOLE_PER_SECOND 100
#define CONSOLE_LINE_BYTES 4096

struct web_options web_options;

/* `path` and its parents made (0700 for the ones made here). */
static int make_directories(const char *path) {
    char *p = g_strdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) { g_free(p); return -1; }
        *s = '/';
    }
    int r = mkdir(p, 0700) == 0 || errno == EEXIST ? 0 : -1;
    g_free(p);
    return r;
}

/* The data directory: --data-dir, else under systemd's StateDirectory, else the user's state
   folder; NULL when the page keeps nothing. */
static char *data_directory(void) {
    if (web_options.ephemeral) return NULL;
    if (web_options.data_dir) return g_strdup(web_options.data_dir);
    const char *state = getenv("STATE_DIRECTORY");
    if (state && *state) {
        /* (A unit with several state directories gives them colon-separated: the first.) */
        char *first = g_strndup(state, strcspn(state, ":"));
        char *dir = g_strdup_printf("%s/web/%s", first, web_options.name);
        g_free(first);
        return dir;
    }
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/') return g_strdup_printf("%s/diptych/web/%s", xdg, web_options.name);
    if (home && *home == '/') return g_strdup_printf("%s/.local/state/diptych/web/%s", home, web_options.name);
    return NULL;
}

/* The page's web context: kept in its data directory (made, and held: a directory another
   client holds is refused), or ephemeral. */
WebKitWebContext *make_context(int role) {
    if (!web_options.name) web_options.name = role == DC_SECONDARY ? "web-secondary" : "web-primary";
    char *dir = data_directory();
    if (!dir) return webkit_web_context_new_ephemeral();
    char *lock = g_strdup_printf("%s/.diptych-web.lock", dir);
    int fd = make_directories(dir) == 0 ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd < 0) {
        say("cannot use the data directory %s (%s)", dir, strerror(errno));
        exit(1);
    }
    /* A client replacing another on the same directory (ctl set-app: the new one says hello,
       takes the pane, and the old one is stopped) waits for it to go, up to 5 s: break before
       make for the directory, the old frame shown meanwhile. */
    int tries = 0;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK || ++tries > 100) {
            say("the data directory %s is in use by another web client: give this one its own (--data-dir or --name)", dir);
            exit(1);
        }
        if (tries == 1 && web_debug) say("the data directory %s is held; waiting for its client to go", dir);
        g_usleep(50000);
    }
    /* (The lock is held as long as the client runs: the descriptor stays open.) */
    g_free(lock);
    char *cache = g_strdup_printf("%s/cache", dir), *cookies = g_strdup_printf("%s/cookies.sqlite", dir);
    WebKitWebsiteDataManager *manager = webkit_website_data_manager_new("base-data-directory", dir, "base-cache-directory", cache, NULL);
    WebKitWebContext *context = webkit_web_context_new_with_website_data_manager(manager);
    g_object_unref(manager);
    webkit_cookie_manager_set_persistent_storage(webkit_web_context_get_cookie_manager(context), cookies, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE);
    if (web_debug) say("data directory %s", dir);
    g_free(cache);
    g_free(cookies);
    g_free(dir);
    return context;
}

/* WebKit's own access to local files is off: a file: page is served by files.c, from its
   folders only. --allow-file-access turns it on for a plain file: page (its scripts may then read
   any file the kiosk user can: unsafe). Universal access is never on. */
void apply_file_access(WebKitSettings *settings, const char *uri) {
    int allow = web_options.file_access > 0 && g_str_has_prefix(uri, "file:");
    webkit_settings_set_allow_file_access_from_file_urls(settings, allow);
    webkit_settings_set_allow_universal_access_from_file_urls(settings, FALSE);
}

/* ---- the console ---- */

/* In the page's own world (it wraps the page's console): each call, error and unhandled
   rejection posted with its level, text and where it came from. */
const char *console_script =
    "(function(){var h=window.webkit&&window.webkit.messageHandlers&&window.webkit.messageHandlers.diptychConsole;if(!h)return;"
    "function text(a){try{return typeof a==='string'?a:a instanceof Error?String(a):JSON.stringify(a);}catch(e){return String(a);}}"
    "function where(){var s=(new Error().stack||'').split('\\n')[2]||'';var at=s.lastIndexOf('@');return at>=0?s.slice(at+1):s;}"
    "['log','info','warn','error','debug'].forEach(function(l){var o=console[l];console[l]=function(){"
    "try{h.postMessage({level:l,text:Array.prototype.map.call(arguments,text).join(' ').slice(0,4096),source:where()});}catch(e){}"
    "return o.apply(console,arguments);};});"
    "addEventListener('error',function(e){if(e.message)h.postMessage({level:'error',text:String(e.message).slice(0,4096),source:(e.filename||'')+':'+(e.lineno||0)});});"
    "addEventListener('unhandledrejection',function(e){h.postMessage({level:'error',text:('Unhandled rejection: '+text(e.reason)).slice(0,4096),source:''});});})();";

void on_console_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer console) {
    (void)manager;
    struct web_console *c = console;
    gint64 now = g_get_monotonic_time() / G_USEC_PER_SEC;
    if (now != c->second) {
        if (c->dropped) fprintf(stderr, "diptych-web[%s]: %d console lines left out (more than %d a second)\n", web_options.name, c->dropped, CONSOLE_PER_SECOND);
        c->second = now;
        c->lines = c->dropped = 0;
    }
    if (++c->lines > CONSOLE_PER_SECOND) { c->dropped++; return; }
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    if (!jsc_value_is_object(v)) return;
    JSCValue *level = jsc_value_object_get_property(v, "level"), *text = jsc_value_object_get_property(v, "text"),
             *source = jsc_value_object_get_property(v, "source");
    char *l = jsc_value_to_string(level), *t = jsc_value_to_string(text), *s = jsc_value_to_string(source);
    static const char *levels[] = {"log", "info", "warn", "error", "debug"};
    const char *lv = "log";
    for (size_t i = 0; l && i < G_N_ELEMENTS(levels); i++) if (!strcmp(l, levels[i])) lv = levels[i];
    char *line = g_strndup(t ? t : "", CONSOLE_LINE_BYTES);
    /* (One line each: a newline in the text would look like another.) */
    for (char *c = line; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
    /* The source as "url:line" (its column dropped; a served page's URL as its file: one). */
    char *shown = shown_uri(s ? s : "");
    char *src = g_strndup(shown, 512);
    g_free(shown);
    char *last = strrchr(src, ':');
    if (last && last > src && strchr(src, ':') != last) {
        char *end;
        strtol(last + 1, &end, 10);
        if (*end == 0) *last = 0;
    }
    fprintf(stderr, "diptych-web[%s]: console.%s: %s%s%s%s\n", web_options.name, lv, line, *src ? " (" : "", src, *src ? ")" : "");
    GString *g = log_start("console");
    g_string_append(g, ",\"level\":");
    json_string(g, lv);
    g_string_append(g, ",\"text\":");
    json_string(g, line);
    g_string_append(g, ",\"source\":");
    json_string(g, src);
    log_line(g);
    g_string_free(g, TRUE);
    g_free(line);
    g_free(src);
    g_free(l); g_free(t); g_free(s);
    g_object_unref(level); g_object_unref(text); g_object_unref(source);
}

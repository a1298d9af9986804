/* SPDX-License-Identifier: MIT */
/* A file: page served by diptych-web itself, confined to its folders. WebKit reads a file: page's
   files in its network process, which its sandbox does not confine, and with
   allow-file-access-from-file-urls a page's scripts may read any file the kiosk user can (the
   other web app's cookies among them). So a file: page is loaded through diptych-web's own
   scheme instead: file:///dir/page.html?x#y becomes diptych-file://app/dir/page.html?x#y (the
   same path, so that relative and absolute links resolve as they did), and each request is
   answered here only for a regular file whose path, symlinks resolved, is inside one of the
   folders served (--file-root, repeatable; by default the page's own folder), read with a bound
   and typed by its extension. Everything else is refused (404, 403). --no-file-access serves the
   page alone; --allow-file-access keeps plain file: and WebKit's file access (unsafe). */
#define _GNU_SOURCE
#include "diptych-web.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_SCHEME "diptych-file"
#define FILE_HOST "app"
#define FILE_ORIGIN FILE_SCHEME "://" FILE_HOST
/* The largest file served (a kiosk's video fits; /proc and devices are not regular files). */
#define FILE_LIMIT ((goffset)1 << 30)
/* Refusals said on stderr at most (a page may ask for many). */
#define REFUSALS_SAID 20

static struct {
    /* The folders served, resolved (NULL-terminated); or, with --no-file-access, the page alone. */
    GPtrArray *roots;
    char *only;
    int refusals;
} served;

/* ---- a stream of at most so many bytes of a file ---- */

/* A file read from `offset` for at most `left` bytes, however the file grows meanwhile (WebKit
   reads a scheme's stream to its end). Reads run on GIO's worker threads, never the loop. */
typedef struct { GInputStream parent; int fd; goffset offset, left; } BoundedStream;
typedef struct { GInputStreamClass parent_class; } BoundedStreamClass;
static GType bounded_stream_get_type(void);
G_DEFINE_TYPE(BoundedStream, bounded_stream, G_TYPE_INPUT_STREAM)

static gssize bounded_read(GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable, GError **error) {
    BoundedStream *s = (BoundedStream *)stream;
    if (g_cancellable_set_error_if_cancelled(cancellable, error)) return -1;
    if (s->left <= 0 || s->fd < 0) return 0;
    if ((goffset)count > s->left) count = (gsize)s->left;
    ssize_t n;
    do n = pread(s->fd, buffer, count, (off_t)s->offset); while (n < 0 && errno == EINTR);
    if (n < 0) {
        int e = errno;
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "%s", g_strerror(e));
        return -1;
    }
    s->offset += n;
    s->left -= n;
    return n;
}

static gboolean bounded_close(GInputStream *stream, GCancellable *cancellable, GError **error) {
    (void)cancellable; (void)error;
    BoundedStream *s = (BoundedStream *)stream;
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    return TRUE;
}

static void bounded_finalize(GObject *object) {
    BoundedStream *s = (BoundedStream *)object;
    if (s->fd >= 0) close(s->fd);
    G_OBJECT_CLASS(bounded_stream_parent_class)->finalize(object);
}

static void bounded_stream_class_init(BoundedStreamClass *klass) {
    G_INPUT_STREAM_CLASS(klass)->read_fn = bounded_read;
    G_INPUT_STREAM_CLASS(klass)->close_fn = bounded_close;
    G_OBJECT_CLASS(klass)->finalize = bounded_finalize;
}

static void bounded_stream_init(BoundedStream *s) { s->fd = -1; }

static GInputStream *bounded_stream_new(int fd, goffset offset, goffset length) {
    BoundedStream *s = g_object_new(bounded_stream_get_type(), NULL);
    s->fd = fd;
    s->offset = offset;
    s->left = length;
    return G_INPUT_STREAM(s);
}

/* ---- what is served ---- */

/* Whether a resolved path is inside a resolved folder (or is it). */
static int inside(const char *path, const char *folder) {
    size_t n = strlen(folder);
    if (n == 1 && folder[0] == '/') return path[0] == '/';
    return strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == 0);
}

static int allowed(const char *real) {
    if (served.only) return strcmp(real, served.only) == 0;
    for (guint i = 0; served.roots && i < served.roots->len; i++)
        if (inside(real, g_ptr_array_index(served.roots, i))) return 1;
    return 0;
}

static const char *mime_type(const char *path) {
    static const struct { const char *ext, *type; } types[] = {
        {"html", "text/html"}, {"htm", "text/html"}, {"xhtml", "application/xhtml+xml"}, {"js", "text/javascript"},
        {"mjs", "text/javascript"}, {"css", "text/css"}, {"json", "application/json"}, {"map", "application/json"},
        {"png", "image/png"}, {"jpg", "image/jpeg"}, {"jpeg", "image/jpeg"}, {"svg", "image/svg+xml"}, {"gif", "image/gif"},
        {"webp", "image/webp"}, {"ico", "image/x-icon"}, {"avif", "image/avif"}, {"woff", "font/woff"}, {"woff2", "font/woff2"},
        {"ttf", "font/ttf"}, {"otf", "font/otf"}, {"pdf", "application/pdf"}, {"wasm", "application/wasm"}, {"mp4", "video/mp4"},
        {"m4v", "video/mp4"}, {"webm", "video/webm"}, {"ogv", "video/ogg"}, {"ogg", "audio/ogg"}, {"oga", "audio/ogg"},
        {"mp3", "audio/mpeg"}, {"wav", "audio/wav"}, {"txt", "text/plain"}, {"properties", "text/plain"}, {"xml", "application/xml"},
        {"vtt", "text/vtt"},
    };
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
            if (g_ascii_strcasecmp(dot + 1, types[i].ext) == 0) return types[i].type;
    return "application/octet-stream";
}

/* A refusal said on stderr (at most REFUSALS_SAID of them). */
static void say_refused(const char *uri, int status, const char *why) {
    if (status != 403 || served.refusals >= REFUSALS_SAID) return;
    char *shown = shown_uri(uri);
    say("%s is refused: %s%s", shown, why, ++served.refusals == REFUSALS_SAID ? " (further refusals are not said)" : "");
    g_free(shown);
}

/* The error WebKit gets for a refused request: its load fails (fetch rejects, the page's own
   load shows the error page). */
static void refuse(WebKitURISchemeRequest *request, int status, const char *why) {
    say_refused(webkit_uri_scheme_request_get_uri(request), status, why);
    GError *error = g_error_new(g_quark_from_static_string("diptych-file-error"), status, "%s (%d)", why, status);
    webkit_uri_scheme_request_finish_error(request, error);
    g_error_free(error);
}

/* A Range header's one range "bytes=A-B", "bytes=A-" or "bytes=-N" within `size`: 1 and the
   first byte and length, 0 for none (or several: the whole file is sent). */
static int byte_range(const char *range, goffset size, goffset *first, goffset *length) {
    if (!range || strncmp(range, "bytes=", 6) != 0 || strchr(range, ',') || size == 0) return 0;
    char *end;
    const char *p = range + 6;
    if (*p == '-') {
        long long n = strtoll(p + 1, &end, 10);
        if (end == p + 1 || *end || n <= 0) return 0;
        *first = n >= size ? 0 : size - n;
        *length = size - *first;
        return 1;
    }
    long long a = strtoll(p, &end, 10), b = size - 1;
    if (end == p || *end != '-' || a < 0 || a >= size) return 0;
    if (end[1]) {
        char *end2;
        b = strtoll(end + 1, &end2, 10);
        if (*end2 || b < a) return 0;
        if (b >= size) b = size - 1;
    }
    *first = a;
    *length = b - a + 1;
    return 1;
}

/* The file at `path` (absolute, decoded) opened for reading when it may be served: a regular
   file of at most FILE_LIMIT bytes whose path, symlinks resolved, is inside a folder served.
   Its descriptor (blocking) and size; else -1, the status (404, 403) and why. */
static int open_served(const char *path, struct stat *st, int *status, const char **why) {
    *status = 404;
    *why = "no such file";
    if (!path || path[0] != '/') return -1;
    char *real = realpath(path, NULL);
    if (!real) {
        if (errno == EACCES) *status = 403, *why = "not readable";
        return -1;
    }
    if (!allowed(real)) {
        free(real);
        *status = 403, *why = "outside the folders served (--file-root)";
        return -1;
    }
    /* (Not following a symlink put there since, nor waiting on a FIFO.) */
    int fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    int e = errno;
    free(real);
    if (fd < 0) {
        if (e == EACCES || e == ELOOP) *status = 403, *why = "not readable";
        return -1;
    }
    *status = 403;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        *why = "not a regular file";
        return -1;
    }
    /* What was opened is still inside (a folder on its path swapped for a symlink meanwhile). */
    char link[64], opened[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, opened, PATH_MAX);
    if (n > 0) opened[n] = 0;
    if (n <= 0 || !allowed(opened)) {
        close(fd);
        *why = "outside the folders served (--file-root)";
        return -1;
    }
    if (st->st_size > FILE_LIMIT) {
        close(fd);
        *why = "larger than 1 GiB";
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The headers of a file's response: its type, its length, the range sent. */
static void file_headers(SoupMessageHeaders *headers, const char *name, int partial, goffset first, goffset length, goffset size) {
    soup_message_headers_replace(headers, "Content-Type", mime_type(name));
    soup_message_headers_replace(headers, "Accept-Ranges", "bytes");
    char *text = g_strdup_printf("%lld", (long long)length);
    soup_message_headers_replace(headers, "Content-Length", text);
    g_free(text);
    if (partial) {
        text = g_strdup_printf("bytes %lld-%lld/%lld", (long long)first, (long long)(first + length - 1), (long long)size);
        soup_message_headers_replace(headers, "Content-Range", text);
        g_free(text);
    }
}

static void on_file_request(WebKitURISchemeRequest *request, gpointer data) {
    (void)data;
    GUri *u = g_uri_parse(webkit_uri_scheme_request_get_uri(request), G_URI_FLAGS_ENCODED, NULL);
    const char *host = u ? g_uri_get_host(u) : NULL;
    char *path = u && host && strcmp(host, FILE_HOST) == 0 ? g_uri_unescape_string(g_uri_get_path(u), NULL) : NULL;
    if (u) g_uri_unref(u);
    struct stat st;
    int status;
    const char *why;
    int fd = open_served(path, &st, &status, &why);
    g_free(path);
    if (fd < 0) return refuse(request, status, why);
    SoupMessageHeaders *asked = webkit_uri_scheme_request_get_http_headers(request);
    goffset first = 0, length = st.st_size;
    int partial = byte_range(asked ? soup_message_headers_get_one(asked, "Range") : NULL, st.st_size, &first, &length);
    GInputStream *stream = bounded_stream_new(fd, first, length);
    WebKitURISchemeResponse *response = webkit_uri_scheme_response_new(stream, length);
    const char *name = webkit_uri_scheme_request_get_path(request);
    webkit_uri_scheme_response_set_content_type(response, mime_type(name));
    SoupMessageHeaders *headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE);
    file_headers(headers, name, partial, first, length, st.st_size);
    if (partial) webkit_uri_scheme_response_set_status(response, 206, "Partial Content");
    webkit_uri_scheme_response_set_http_headers(response, headers);
    webkit_uri_scheme_request_finish_with_response(request, response);
    g_object_unref(response);
    g_object_unref(stream);
}

/* ---- media ---- */

/* WPE 2.38 plays media only from http(s), blob: and file: URLs: GStreamer has no source for
   another scheme (and a blob: Ogg neither seeks nor ends). So a served page's <video> and
   <audio> files are served over HTTP on the loopback interface, on a port of the system's
   choosing, under a secret path (16 random bytes: no other process or page can name a file
   there), with the same confinement as the scheme's, and with ranges (seeking). In diptych-web's
   own world, a media element whose served file failed to load as unsupported is given that
   URL instead and plays on if it was to play; the page does not see that failure (it sees the
   loopback URL in src and currentSrc). Without the listener (no network namespace for it),
   the failure stays. */
static struct {
    SoupServer *server;
    char secret[33];
    int port;
} media;

static void on_media_request(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query, gpointer data) {
    (void)server; (void)query; (void)data;
    const char *method = soup_server_message_get_method(msg);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        soup_server_message_set_status(msg, 405, NULL);
        return;
    }
    /* "/SECRET/path" (compared in constant time). */
    unsigned diff = path && strlen(path) > 33 && path[33] == '/' ? 0 : 1;
    for (size_t i = 0; !diff && i < 32; i++) diff |= (unsigned)(path[1 + i] ^ media.secret[i]);
    if (diff) {
        soup_server_message_set_status(msg, 404, NULL);
        return;
    }
    char *file = g_uri_unescape_string(path + 33, NULL);
    struct stat st;
    int status;
    const char *why;
    int fd = open_served(file, &st, &status, &why);
    if (fd < 0) {
        char *uri = g_strconcat(FILE_ORIGIN, path + 33, NULL);
        say_refused(uri, status, why);
        g_free(uri);
        g_free(file);
        soup_server_message_set_status(msg, (guint)status, NULL);
        return;
    }
    goffset first = 0, length = st.st_size;
    int partial = byte_range(soup_message_headers_get_one(soup_server_message_get_request_headers(msg), "Range"), st.st_size, &first, &length);
    SoupMessageHeaders *headers = soup_server_message_get_response_headers(msg);
    file_headers(headers, file, partial, first, length, st.st_size);
    soup_message_headers_replace(headers, "Access-Control-Allow-Origin", FILE_ORIGIN);
    soup_message_headers_replace(headers, "Cache-Control", "no-store");
    /* The range mapped, not copied (the kernel reads it as it is sent). */
    GError *error = NULL;
    GMappedFile *map = st.st_size ? g_mapped_file_new_from_fd(fd, FALSE, &error) : NULL;
    close(fd);
    g_free(file);
    if (st.st_size && !map) {
        g_clear_error(&error);
        soup_server_message_set_status(msg, 500, NULL);
        return;
    }
    soup_server_message_set_status(msg, partial ? 206 : 200, NULL);
    SoupMessageBody *body = soup_server_message_get_response_body(msg);
    if (map) {
        GBytes *all = g_mapped_file_get_bytes(map), *part = g_bytes_new_from_bytes(all, (gsize)first, (gsize)length);
        soup_message_body_append_bytes(body, part);
        g_bytes_unref(part);
        g_bytes_unref(all);
        g_mapped_file_unref(map);
    }
    soup_message_body_complete(body);
}

static void media_listen(void) {
    GError *error = NULL;
    unsigned char bytes[16];
    if (getentropy(bytes, sizeof bytes) != 0) return;
    for (size_t i = 0; i < sizeof bytes; i++) snprintf(media.secret + 2 * i, 3, "%02x", bytes[i]);
    media.server = soup_server_new("server-header", "diptych-web", NULL);
    if (!soup_server_listen_local(media.server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error)) {
        say("a page's videos and sounds will not play: no loopback listener for them (%s)", error->message);
        g_clear_error(&error);
        g_clear_object(&media.server);
        return;
    }
    GSList *uris = soup_server_get_uris(media.server);
    media.port = uris ? g_uri_get_port(uris->data) : -1;
    g_slist_free_full(uris, (GDestroyNotify)g_uri_unref);
    soup_server_add_handler(media.server, NULL, on_media_request, NULL, NULL);
}

char *media_script(void) {
    if (!media.server) return NULL;
    return g_strdup_printf(
        "(function(){var tried=new WeakMap(),base='http://127.0.0.1:%d/%s';"
        "function served(u){return typeof u==='string'&&u.indexOf('" FILE_ORIGIN "/')===0}"
        /* The URL the element would play: its src, else the first <source> it can play. */
        "function wanted(m){if(m.hasAttribute('src'))return served(m.src)?m.src:null;var s=m.querySelectorAll('source');"
        "for(var i=0;i<s.length;i++){var t=s[i].getAttribute('type');if(served(s[i].src)&&(!t||m.canPlayType(t)))return s[i].src;}return null}"
        "addEventListener('error',function(e){var m=e.target;if(m instanceof HTMLSourceElement)m=m.parentElement;"
        "if(!(m instanceof HTMLMediaElement))return;var url=wanted(m);if(!url||tried.get(m)===url)return;"
        "if(e.target===m&&!(m.error&&m.error.code===4))return;e.stopImmediatePropagation();tried.set(m,url);"
        "var play=m.autoplay||!m.paused;m.src=base+url.slice(%d).replace(/[?#].*$/,'');if(play)m.play().catch(function(){})},true);"
        "})();",
        media.port, media.secret, (int)strlen(FILE_ORIGIN));
}

/* ---- the page's URL ---- */

/* `path` resolved, else NULL (said why when `what`). */
static char *resolved(const char *path, const char *what) {
    char *real = realpath(path, NULL);
    if (!real && what) fprintf(stderr, "diptych-web: %s %s: %s\n", what, path, strerror(errno));
    return real;
}

static void add_root(char *real) {
    for (guint i = 0; i < served.roots->len; i++)
        if (strcmp(g_ptr_array_index(served.roots, i), real) == 0) { free(real); return; }
    g_ptr_array_add(served.roots, real);
}

char *serve_file_page(const char *uri) {
    GUri *u = g_uri_parse(uri, G_URI_FLAGS_ENCODED, NULL);
    const char *host = u ? g_uri_get_host(u) : NULL;
    char *path = u && (!host || !*host || strcmp(host, "localhost") == 0) ? g_uri_unescape_string(g_uri_get_path(u), NULL) : NULL;
    if (!path || path[0] != '/') {
        fprintf(stderr, "diptych-web: %s: not a local file's URL\n", uri);
        exit(2);
    }
    served.roots = g_ptr_array_new();
    char *page = realpath(path, NULL);
    if (web_options.file_access < 0) {
        /* --no-file-access: the page alone (a page that is not there yet: its path as given). */
        served.only = page ? page : strdup(path);
    } else if (web_options.file_roots) {
        for (guint i = 0; i < web_options.file_roots->len; i++) {
            const char *dir = g_ptr_array_index(web_options.file_roots, i);
            char *real = resolved(dir, "--file-root");
            struct stat st;
            if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
                if (real) fprintf(stderr, "diptych-web: --file-root %s: not a folder\n", dir);
                exit(2);
            }
            add_root(real);
        }
        if (page && !allowed(page)) {
            fprintf(stderr, "diptych-web: the page %s is not inside a folder --file-root serves\n", path);
            exit(2);
        }
    } else {
        /* The page's own folder: as named, and where the page really is (a symlinked page). */
        char *folder = g_path_get_dirname(path);
        char *real = resolved(folder, NULL);
        if (real) add_root(real);
        else g_ptr_array_add(served.roots, strdup(folder));
        g_free(folder);
        if (page) {
            folder = g_path_get_dirname(page);
            add_root(strdup(folder));
            g_free(folder);
        }
    }
    if (page && page != served.only) free(page);
    if (app.debug)
        for (guint i = 0; i < served.roots->len; i++) say("serving %s", (const char *)g_ptr_array_index(served.roots, i));
    const char *query = g_uri_get_query(u), *fragment = g_uri_get_fragment(u);
    char *served_uri = g_strconcat(FILE_ORIGIN, g_uri_get_path(u), query ? "?" : "", query ? query : "", fragment ? "#" : "",
                                   fragment ? fragment : "", NULL);
    g_free(path);
    g_uri_unref(u);
    return served_uri;
}

int is_served_uri(const char *uri) { return uri && g_str_has_prefix(uri, FILE_SCHEME ":"); }

char *shown_uri(const char *uri) {
    if (uri && g_str_has_prefix(uri, FILE_ORIGIN "/")) return g_strconcat("file://", uri + strlen(FILE_ORIGIN), NULL);
    return g_strdup(uri ? uri : "");
}

void files_attach(WebKitWebContext *context) {
    webkit_web_context_register_uri_scheme(context, FILE_SCHEME, on_file_request, NULL, NULL);
    WebKitSecurityManager *security = webkit_web_context_get_security_manager(context);
    /* A secure context (as file: is), whose same-origin fetch, XHR, workers and module scripts
       load; other origins get its files only through CORS, which it never grants. Not local:
       a local scheme's pages may load file: URLs. */
    webkit_security_manager_register_uri_scheme_as_secure(security, FILE_SCHEME);
    webkit_security_manager_register_uri_scheme_as_cors_enabled(security, FILE_SCHEME);
    if (is_served_uri(app.uri)) media_listen();
}

/* SPDX-License-Identifier: MIT */
/* A file: page served by diptych-web itself, confined to its folders. WebKit reads a file: page's
   files in its network process, which its sandbox does not confine, and with
   allow-file-access-from-file-urls a page's scripts may read any file the kiosk user can (the
   other web app's cookies among them). So a file: page is loaded through diptych-web's own
   scheme instead: file:///dir/page.html?x#y becomes diptych-file://app/dir/page.html?x#y (the
   same path, so that relative and absolute links resolve as they did), and each request is
   answered here only for a regular file whose path, symlinks resolved, is inside one of the
   folders served (--file-root, repeatable; by default the page's own folder), read with a bound
   and typed by its extension. Everything else is refused (404, 403). A folder served is never
   the root, the home folder, or one holding (or inside) where web clients keep their cookies
   (the client refuses to start). --no-file-access serves the page alone; --allow-file-access
   keeps plain file: and WebKit's file access (unsafe). */
#define _GNU_SOURCE
#include "files.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
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
        {"mp3", "audio/mpeg"}, {"wav", "audio/wav"}, {"m4a", "audio/mp4"}, {"opus", "audio/ogg"}, {"flac", "audio/flac"}, {"txt", "text/plain"}, {"properties", "text/plain"}, {"xml", "application/xml"},
        {"vtt", "text/vtt"},
    };
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
            if (g_ascii_strcasecmp(dot + 1, types[i].ext) == 0) return types[i].type;
    return "application/octet-stream";
}

/* Whether a path names a video, a sound or captions (what the loopback listener serves). */
static int is_media(const char *path) {
    const char *type = mime_type(path);
    return g_str_has_prefix(type, "video/") || g_str_has_prefix(type, "audio/") || strcmp(type, "text/vtt") == 0;
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
   first byte and length; -1 when it cannot be satisfied (it starts at or past the end, or asks
   for the last 0 bytes); 0 for none, one not understood, or several (the whole file is sent). */
static int byte_range(const char *range, goffset size, goffset *first, goffset *length) {
    if (!range || strncmp(range, "bytes=", 6) != 0 || strchr(range, ',')) return 0;
    char *end;
    const char *p = range + 6;
    if (*p == '-') {
        if (!g_ascii_isdigit(p[1])) return 0;
        long long n = strtoll(p + 1, &end, 10);
        if (*end || n < 0) return 0;
        if (n == 0 || size == 0) return -1;
        *first = n >= size ? 0 : size - n;
        *length = size - *first;
        return 1;
    }
    if (!g_ascii_isdigit(*p)) return 0;
    long long a = strtoll(p, &end, 10), b = -1;
    if (*end != '-' || a < 0) return 0;
    if (end[1]) {
        char *end2;
        if (!g_ascii_isdigit(end[1])) return 0;
        b = strtoll(end + 1, &end2, 10);
        if (*end2 || b < a) return 0;
    }
    if (a >= size) return -1;
    if (b < 0 || b >= size) b = size - 1;
    *first = a;
    *length = b - a + 1;
    return 1;
}

/* The file at `path` (absolute, decoded) opened for reading when it may be served: a regular
   file of at most FILE_LIMIT bytes whose path, symlinks resolved, is inside a folder served
   (and, `media_only`, a video, sound or captions file). Its descriptor (blocking) and size;
   else -1, the status (404, 403) and why. Nothing but a regular file is ever opened for
   reading: the path is opened with O_PATH first (opening a device or a FIFO can act on it). */
static int open_served(const char *path, int media_only, struct stat *st, int *status, const char **why) {
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
    if (media_only && !is_media(real)) {
        free(real);
        *status = 403, *why = "not a video, sound or captions file (all the loopback listener serves)";
        return -1;
    }
    /* (Not following a symlink put there since.) */
    int at = open(real, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    free(real);
    if (at < 0) {
        if (e == EACCES) *status = 403, *why = "not readable";
        return -1;
    }
    *status = 403;
    char link[64], opened[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", at);
    if (fstat(at, st) != 0 || !S_ISREG(st->st_mode)) {
        close(at);
        *why = "not a regular file";
        return -1;
    }
    /* What was opened is still inside (a folder on its path swapped for a symlink meanwhile). */
    ssize_t n = readlink(link, opened, PATH_MAX);
    if (n > 0) opened[n] = 0;
    if (n <= 0 || !allowed(opened)) {
        close(at);
        *why = "outside the folders served (--file-root)";
        return -1;
    }
    if (st->st_size > FILE_LIMIT) {
        close(at);
        *why = "larger than 1 GiB";
        return -1;
    }
    /* The very file looked at, now opened for reading. */
    int fd = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    e = errno;
    close(at);
    struct stat again;
    if (fd < 0 || fstat(fd, &again) != 0 || again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
        if (fd >= 0) close(fd);
        *why = fd < 0 && e != EACCES ? "not opened" : "not readable";
        return -1;
    }
    *st = again;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The headers of a file's response: its type, its length (`with_length`: the listener's
   length is libsoup's to set, from the body it sends), the range sent. */
static void file_headers(SoupMessageHeaders *headers, const char *name, int with_length, int partial, goffset first, goffset length, goffset size) {
    soup_message_headers_replace(headers, "Content-Type", mime_type(name));
    soup_message_headers_replace(headers, "Accept-Ranges", "bytes");
    char *text;
    if (with_length) {
        text = g_strdup_printf("%lld", (long long)length);
        soup_message_headers_replace(headers, "Content-Length", text);
        g_free(text);
    }
    if (partial) {
        text = g_strdup_printf("bytes %lld-%lld/%lld", (long long)first, (long long)(first + length - 1), (long long)size);
        soup_message_headers_replace(headers, "Content-Range", text);
        g_free(text);
    }
}

/* A 416's Content-Range: the file's size. */
static void unsatisfiable(SoupMessageHeaders *headers, goffset size) {
    char *text = g_strdup_printf("bytes */%lld", (long long)size);
    soup_message_headers_replace(headers, "Content-Range", text);
    g_free(text);
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
    int fd = open_served(path, 0, &st, &status, &why);
    g_free(path);
    if (fd < 0) return refuse(request, status, why);
    SoupMessageHeaders *asked = webkit_uri_scheme_request_get_http_headers(request);
    goffset first = 0, length = st.st_size;
    int range = byte_range(asked ? soup_message_headers_get_one(asked, "Range") : NULL, st.st_size, &first, &length);
    if (range < 0) first = 0, length = 0;
    GInputStream *stream = bounded_stream_new(fd, first, length);
    WebKitURISchemeResponse *response = webkit_uri_scheme_response_new(stream, length);
    const char *name = webkit_uri_scheme_request_get_path(request);
    webkit_uri_scheme_response_set_content_type(response, mime_type(name));
    SoupMessageHeaders *headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE);
    file_headers(headers, name, 1, range > 0, first, length, st.st_size);
    if (range > 0) webkit_uri_scheme_response_set_status(response, 206, "Partial Content");
    if (range < 0) {
        unsatisfiable(headers, st.st_size);
        webkit_uri_scheme_response_set_status(response, 416, "Range Not Satisfiable");
    }
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
   own world, in the served page's frames only, a media element whose served file failed to
   load as unsupported is given that URL instead and plays on if it was to play; the page does
   not see that failure (it sees the loopback URL in src and currentSrc). Without the listener
   (no network namespace for it), the failure stays.

   Any local process (and any page, through WebKit) can connect to the listener, so what it
   takes is bounded before the secret is even looked at: a request is read no further than its
   headers unless it is a GET or HEAD without a body whose Host is exactly 127.0.0.1:PORT (a
   name rebound to 127.0.0.1 does not reach it); anything else has its connection closed
   unanswered. At most MEDIA_CLIENTS connections at once (one past that is closed at once), and
   a connection that has not sent a request's headers within MEDIA_HEADERS_MS of its opening
   or of its previous answer is closed. Only video, sound and captions files are served (by
   name and by their resolved path), each a range of the file mapped, never copied: libsoup
   never sees a Range header (it would copy the file to build a multipart answer). */
#define MEDIA_CLIENTS 16
#define MEDIA_HEADERS_MS 5000

/* A connection to the listener: its socket (not held: forgotten when it goes) and the timer
   that closes it if no request's headers come. */
typedef struct { GSocket *socket; guint deadline; } MediaClient;

static struct {
    SoupServer *server;
    char secret[33], host[32];
    int port;
    GHashTable *clients;  /* GSocket * -> MediaClient * */
    int turned_away;
} media;

static void media_client_free(gpointer data) {
    MediaClient *c = data;
    if (c->deadline) g_source_remove(c->deadline);
    g_free(c);
}

static void media_client_gone(gpointer data, GObject *socket) {
    (void)data;
    g_hash_table_remove(media.clients, socket);
}

/* No request's headers in time: the connection is ended (libsoup reads its end and lets it go). */
static gboolean media_client_too_slow(gpointer data) {
    MediaClient *c = data;
    c->deadline = 0;
    if (!g_socket_is_closed(c->socket)) g_socket_shutdown(c->socket, TRUE, TRUE, NULL);
    return G_SOURCE_REMOVE;
}

static void media_client_wait(MediaClient *c) {
    if (c->deadline) g_source_remove(c->deadline);
    c->deadline = g_timeout_add(MEDIA_HEADERS_MS, media_client_too_slow, c);
}

static MediaClient *media_client(SoupServerMessage *msg) {
    GSocket *socket = soup_server_message_get_socket(msg);
    return socket ? g_hash_table_lookup(media.clients, socket) : NULL;
}

/* Whether a request's headers are all the listener takes: GET or HEAD, no body, its Host. */
static int media_acceptable(SoupServerMessage *msg) {
    const char *method = soup_server_message_get_method(msg);
    if (!method || (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)) return 0;
    SoupMessageHeaders *asked = soup_server_message_get_request_headers(msg);
    const char *length = soup_message_headers_get_one(asked, "Content-Length");
    if (soup_message_headers_get_one(asked, "Transfer-Encoding") || (length && strcmp(length, "0") != 0)) return 0;
    /* (Several Host headers are joined by commas: never equal.) */
    const char *host = soup_message_headers_get_list(asked, "Host");
    return host && strcmp(host, media.host) == 0;
}

/* A request's headers are in (before libsoup reads any body): the connection is no longer
   waited on; one that asks for anything else is closed unanswered. */
static void on_media_headers(SoupServerMessage *msg, gpointer data) {
    (void)data;
    MediaClient *c = media_client(msg);
    if (c && c->deadline) {
        g_source_remove(c->deadline);
        c->deadline = 0;
    }
    if (media_acceptable(msg)) return;
    GIOStream *stream = soup_server_message_steal_connection(msg);
    if (stream) {
        g_io_stream_close(stream, NULL, NULL);
        g_object_unref(stream);
    }
}

/* A connection opens (or a kept-alive one starts its next request): counted, capped, and
   given MEDIA_HEADERS_MS for its headers. */
static void on_media_request_started(SoupServer *server, SoupServerMessage *msg, gpointer data) {
    (void)server; (void)data;
    g_signal_connect(msg, "got-headers", G_CALLBACK(on_media_headers), NULL);
    GSocket *socket = soup_server_message_get_socket(msg);
    if (!socket || g_hash_table_lookup(media.clients, socket)) return;
    guint open = 0;
    GHashTableIter iter;
    gpointer key;
    g_hash_table_iter_init(&iter, media.clients);
    while (g_hash_table_iter_next(&iter, &key, NULL))
        if (!g_socket_is_closed(key)) open++;
    if (open >= MEDIA_CLIENTS) {
        if (media.turned_away++ == 0)
            say("the loopback media listener has %d connections: further ones are closed at once", MEDIA_CLIENTS);
        g_socket_shutdown(socket, TRUE, TRUE, NULL);
        return;
    }
    MediaClient *c = g_new0(MediaClient, 1);
    c->socket = socket;
    g_hash_table_insert(media.clients, socket, c);
    g_object_weak_ref(G_OBJECT(socket), media_client_gone, NULL);
    media_client_wait(c);
}

/* An answer sent: a kept-alive connection has MEDIA_HEADERS_MS for its next request. */
static void on_media_request_done(SoupServer *server, SoupServerMessage *msg, gpointer data) {
    (void)server; (void)data;
    MediaClient *c = media_client(msg);
    if (c) media_client_wait(c);
}

static void on_media_request(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query, gpointer data) {
    (void)server; (void)query; (void)data;
    /* Ranges are answered here alone (libsoup's own handling copies the file for several). */
    SoupMessageHeaders *asked = soup_server_message_get_request_headers(msg);
    char *range = g_strdup(soup_message_headers_get_one(asked, "Range"));
    soup_message_headers_remove(asked, "Range");
    /* "/SECRET/path", the path decoded once (by libsoup); the secret compared in constant time. */
    unsigned diff = path && strlen(path) > 33 && path[33] == '/' ? 0 : 1;
    for (size_t i = 0; !diff && i < 32; i++) diff |= (unsigned)(path[1 + i] ^ media.secret[i]);
    if (diff) {
        g_free(range);
        soup_server_message_set_status(msg, 404, NULL);
        return;
    }
    const char *file = path + 33;
    struct stat st;
    int status = 403;
    const char *why = "not a video, sound or captions file (all the loopback listener serves)";
    int fd = is_media(file) ? open_served(file, 1, &st, &status, &why) : -1;
    if (fd < 0) {
        char *escaped = g_uri_escape_string(file, "/", FALSE), *uri = g_strconcat(FILE_ORIGIN, escaped, NULL);
        say_refused(uri, status, why);
        g_free(uri);
        g_free(escaped);
        g_free(range);
        soup_server_message_set_status(msg, (guint)status, NULL);
        return;
    }
    goffset first = 0, length = st.st_size;
    int ranged = byte_range(range, st.st_size, &first, &length);
    g_free(range);
    SoupMessageHeaders *headers = soup_server_message_get_response_headers(msg);
    soup_message_headers_replace(headers, "Access-Control-Allow-Origin", FILE_ORIGIN);
    soup_message_headers_replace(headers, "Cache-Control", "no-store");
    soup_message_headers_replace(headers, "X-Content-Type-Options", "nosniff");
    SoupMessageBody *body = soup_server_message_get_response_body(msg);
    if (ranged < 0) {
        close(fd);
        soup_message_headers_replace(headers, "Accept-Ranges", "bytes");
        unsatisfiable(headers, st.st_size);
        soup_server_message_set_status(msg, 416, NULL);
        soup_message_body_complete(body);
        return;
    }
    file_headers(headers, file, 0, ranged > 0, first, length, st.st_size);
    /* The range mapped, not copied (the kernel reads it as it is sent). */
    GError *error = NULL;
    GMappedFile *map = st.st_size ? g_mapped_file_new_from_fd(fd, FALSE, &error) : NULL;
    close(fd);
    if (st.st_size && !map) {
        g_clear_error(&error);
        soup_server_message_set_status(msg, 500, NULL);
        return;
    }
    soup_server_message_set_status(msg, ranged > 0 ? 206 : 200, NULL);
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
    snprintf(media.host, sizeof media.host, "127.0.0.1:%d", media.port);
    media.clients = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, media_client_free);
    /* (Every request's headers are looked at through request-started's got-headers, not an
       early handler: libsoup calls none for "OPTIONS *", or for a request it has already
       answered itself, and would read their bodies.) */
    g_signal_connect(media.server, "request-started", G_CALLBACK(on_media_request_started), NULL);
    g_signal_connect(media.server, "request-finished", G_CALLBACK(on_media_request_done), NULL);
    g_signal_connect(media.server, "request-aborted", G_CALLBACK(on_media_request_done), NULL);
    soup_server_add_handler(media.server, NULL, on_media_request, NULL, NULL);
}

/* The frames the media script is given: the served page's own (not another site's, framed by
   it or navigated to, which could otherwise read the secret from a swapped src). */
const char *const *media_script_frames(void) {
    static const char *const frames[] = {FILE_ORIGIN "/*", NULL};
    return frames;
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

/* `path` made absolute, its symlinks resolved as far as it exists (the rest as written). */
static char *resolved_loosely(const char *path) {
    char *canon = g_canonicalize_filename(path, "/");
    size_t n = strlen(canon);
    for (;;) {
        char *head = g_strndup(canon, n);
        char *real = realpath(n ? head : "/", NULL);
        g_free(head);
        if (real) {
            const char *rest = canon + n;
            char *whole = *rest ? g_strconcat(strcmp(real, "/") == 0 ? "" : real, rest, NULL) : g_strdup(real);
            free(real);
            g_free(canon);
            return whole;
        }
        do n--; while (n > 0 && canon[n] != '/');
    }
}

/* The user's home folder, resolved (NULL if none is known). */
static char *home_folder(void) {
    const char *home = getenv("HOME");
    if (!home || home[0] != '/') {
        struct passwd *pw = getpwuid(getuid());
        home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
    }
    return home ? resolved_loosely(home) : NULL;
}

/* Why a folder may not be served, or NULL: the root, the home folder, or one that holds (or
   is inside) where web clients keep their cookies and storage by default (state.c): a page
   there could read the other web app's cookie database. */
static char *unsafe_folder(const char *folder) {
    char *dir = resolved_loosely(folder), *home = home_folder(), *why = NULL;
    if (strcmp(dir, "/") == 0) why = g_strdup("it is the root folder");
    else if (home && strcmp(dir, home) == 0) why = g_strdup("it is the home folder");
    GPtrArray *state = g_ptr_array_new_with_free_func(g_free);
    const char *directories = getenv("STATE_DIRECTORY"), *xdg = getenv("XDG_STATE_HOME");
    if (directories && *directories) {
        char **each = g_strsplit(directories, ":", -1);
        for (char **d = each; *d; d++)
            if ((*d)[0] == '/') g_ptr_array_add(state, g_strconcat(*d, "/web", NULL));
        g_strfreev(each);
    }
    if (xdg && xdg[0] == '/') g_ptr_array_add(state, g_strconcat(xdg, "/diptych", NULL));
    if (home) g_ptr_array_add(state, g_strconcat(home, "/.local/state/diptych", NULL));
    for (guint i = 0; !why && i < state->len; i++) {
        char *kept = resolved_loosely(g_ptr_array_index(state, i));
        if (inside(kept, dir) || inside(dir, kept))
            why = g_strdup_printf("it %s %s, where web clients keep their cookies and storage", inside(kept, dir) ? "holds" : "is inside", kept);
        g_free(kept);
    }
    g_ptr_array_unref(state);
    g_free(dir);
    g_free(home);
    return why;
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
            char *why = unsafe_folder(real);
            if (why) {
                fprintf(stderr, "diptych-web: --file-root %s: will not serve %s: %s\n", dir, real, why);
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
        for (guint i = 0; i < served.roots->len; i++) {
            char *why = unsafe_folder(g_ptr_array_index(served.roots, i));
            if (why) {
                fprintf(stderr, "diptych-web: will not serve the page %s from its folder %s: %s (give the page a folder of its own, "
                        "or name the folders to serve with --file-root)\n", path, (const char *)g_ptr_array_index(served.roots, i), why);
                exit(2);
            }
        }
    }
    if (page && page != served.only) free(page);
    if (web_debug)
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

void files_attach(WebKitWebContext *context, const char *page_uri) {
    webkit_web_context_register_uri_scheme(context, FILE_SCHEME, on_file_request, NULL, NULL);
    WebKitSecurityManager *security = webkit_web_context_get_security_manager(context);
    /* A secure context (as file: is), whose same-origin fetch, XHR, workers and module scripts
       load; other origins get its files only through CORS, which it never grants. Not local:
       a local scheme's pages may load file: URLs. */
    webkit_security_manager_register_uri_scheme_as_secure(security, FILE_SCHEME);
    webkit_security_manager_register_uri_scheme_as_cors_enabled(security, FILE_SCHEME);
    if (is_served_uri(page_uri)) media_listen();
}

/* SPDX-License-Identifier: MIT */
/* The compositor's socket in GLib's main loop (connection.h). A request the socket does not take
   at once stays in the library's queue; it is written here, in the source's prepare, before
   every poll, so nothing queued waits for a timer. */
#include "connection.h"

#include <errno.h>
#include <stdio.h>

#define READABLE (G_IO_IN | G_IO_HUP | G_IO_ERR)

typedef struct {
    GSource source;
    dc_connection *dc;
    gpointer tag;
    GIOCondition watched;
    int broken_said;
} ConnectionSource;

static void watch(ConnectionSource *c, GIOCondition condition) {
    if (condition == c->watched) return;
    c->watched = condition;
    g_source_modify_unix_fd(&c->source, c->tag, condition);
}

/* What is queued, written as far as the socket takes it now. */
static void flush(ConnectionSource *c) {
    if (dc_flush(c->dc) == 0) {
        watch(c, READABLE);
        return;
    }
    if (errno == EAGAIN) {
        watch(c, READABLE | G_IO_OUT);
        return;
    }
    /* (Broken: the socket's hang-up ends the loop.) */
    watch(c, READABLE);
    if (!c->broken_said) fprintf(stderr, "diptych-web: %s\n", dc_error(c->dc));
    c->broken_said = 1;
}

static gboolean connection_prepare(GSource *source, gint *timeout) {
    *timeout = -1;
    flush((ConnectionSource *)source);
    return FALSE;
}

static gboolean connection_dispatch(GSource *source, GSourceFunc callback, gpointer data) {
    ConnectionSource *c = (ConnectionSource *)source;
    GIOCondition got = g_source_query_unix_fd(source, c->tag);
    if (got & G_IO_OUT) flush(c);
    if (!(got & READABLE)) return G_SOURCE_CONTINUE;
    return callback ? callback(data) : G_SOURCE_REMOVE;
}

static GSourceFuncs connection_funcs = { .prepare = connection_prepare, .dispatch = connection_dispatch };

GSource *web_connection_source_new(dc_connection *dc) {
    GSource *source = g_source_new(&connection_funcs, sizeof(ConnectionSource));
    ConnectionSource *c = (ConnectionSource *)source;
    c->dc = dc;
    c->watched = READABLE;
    c->tag = g_source_add_unix_fd(source, dc_fd(dc), READABLE);
    g_source_set_name(source, "diptych-web: the compositor's socket");
    return source;
}

/* SPDX-License-Identifier: MIT */
/* The compositor's socket in GLib's main loop (connection.c): its events read when it is
   readable, and the requests the library queued written before the loop sleeps; while the socket
   is full (dc_flush says EAGAIN) it is watched for G_IO_OUT too, and only then. Owns nothing of
   the app: the source holds the connection it was given. */
#ifndef DIPTYCH_WEB_CONNECTION_H
#define DIPTYCH_WEB_CONNECTION_H

#include "common.h"

/* A source for `dc` whose callback (a GSourceFunc: g_source_set_callback) is called when events
   may be read (the socket readable, hung up or in error). */
GSource *web_connection_source_new(dc_connection *dc);

#endif

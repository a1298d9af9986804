/* SPDX-License-Identifier: MIT */
/* What a page keeps and says (state.c): the command line's options (web_options: set in main
   before the app starts, read after), the page's web context kept in its data directory,
   WebKit's own file access, and the page's console on stderr and in the event log. Owns the
   console's rate limit (struct web_console, held by the view). */
#ifndef DIPTYCH_WEB_STATE_H
#define DIPTYCH_WEB_STATE_H

#include "common.h"

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

/* The page's web context, kept in its data directory (its default name from the pane's `role`),
   or ephemeral. */
WebKitWebContext *make_context(int role);
/* WebKit's file access for a page at `uri` (on only for a plain file: page, --allow-file-access). */
void apply_file_access(WebKitSettings *settings, const char *uri);

/* The page's console: the script (in the page's world) and its messages' handler. */
extern const char *console_script;
/* Console lines said in the current second, and left out (at most CONSOLE_PER_SECOND). */
struct web_console {
    gint64 second;
    int lines, dropped;
};
/* `console`: the struct web_console counting its lines. */
void on_console_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer console);

#endif

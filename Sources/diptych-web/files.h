/* SPDX-License-Identifier: MIT */
/* A file: page served by diptych-web itself through its own scheme, confined to its folders,
   and its media over a loopback listener (files.c). Owns the file server: the folders served
   and the listener, set up once from the command line (serve_file_page) and the view's web
   context (files_attach); one per process, kept in files.c. */
#ifndef DIPTYCH_WEB_FILES_H
#define DIPTYCH_WEB_FILES_H

#include "common.h"

/* The page's URI served by diptych-web (file:///dir/page.html -> diptych-file://app/dir/page.html),
   its folders checked and noted; exits (status 2) when they may not be served. */
char *serve_file_page(const char *uri);
/* The scheme registered on the page's web context (and the media listener started for a
   served page at `page_uri`). */
void files_attach(WebKitWebContext *context, const char *page_uri);
int is_served_uri(const char *uri);
/* A URI as the operator knows it: a served page's as file: (newly allocated). */
char *shown_uri(const char *uri);
/* The script that plays a served page's <video> and <audio> files over loopback HTTP (GStreamer
   plays no custom scheme); NULL without its listener. */
char *media_script(void);
/* The frames it is given (an allow-list of the served page's URLs). */
const char *const *media_script_frames(void);

#endif

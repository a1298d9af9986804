/* SPDX-License-Identifier: MIT */
/* diptych-web's event log (see event-log.c). */
#ifndef DIPTYCH_WEB_EVENT_LOG_H
#define DIPTYCH_WEB_EVENT_LOG_H

#include "diptych-client.h"
#include <glib.h>

/* Where the lines go (NULL: nowhere), the app's name in them, and whether frames are logged. */
extern struct event_log { const char *path; char label[1024]; int frames; } event_log;

/* A line begun with "app" and "event"; `log_line` ends it and appends it to the log. */
GString *log_start(const char *event);
void log_line(GString *line);
void json_string(GString *s, const char *v);
void json_field(GString *s, const char *key, double v);
/* "compact" or "regular". */
const char *class_name(int c);
/* The line of an event the compositor sent (sync is not logged). */
void log_event(const dc_event *e);
/* A frame WebKit made and the time its copy took (only with `event_log.frames`). */
void log_frame(int w, int h, double copy_ms);

#endif

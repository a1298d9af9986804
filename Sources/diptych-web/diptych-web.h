/* SPDX-License-Identifier: MIT */
/* diptych-web's app (diptych-web.c): the connection to the compositor, the main loop, and the
   parts it holds, each owning its own state (each part's header says what it owns):
     pane.h     the pane as the compositor configured it, and its activity
     view.h     the WebKit view and backend, the page's load, readiness, classes and faults
                (view.c, ready.c, video.c, icon.c, policy.c)
     frames.h   the live frame, the held frame, snapshots, the frame_complete owed
     sync.h     the compositor's round trip waiting for WebKit, stirs and settling
     field.h    text input: the focused field, the input that focused it, the keyboard
     dialogs.h  script dialogs, option menus, sign-ins
     band.h     the status bar's band and style
     input.h    touches, the pen, keys and the pointer (and touch.h, the page's touch script)
   Beside them, holding no state of the app: common.h (say, the script world, the parts' hook,
   one-shot timers), connection.h (the compositor's socket in the main loop), state.h (the command
   line's options, the data directory, the console), files.h (the file server of a file: page,
   one per process) and event-log.h.
   Includes go one way: diptych-web.c -> this header -> the parts' headers -> common.h -> the
   client library. No part includes this header: what needs several parts is done in
   diptych-web.c, which passes each part the others it reads. */
#ifndef DIPTYCH_WEB_H
#define DIPTYCH_WEB_H

#include "band.h"
#include "common.h"
#include "dialogs.h"
#include "field.h"
#include "frames.h"
#include "input.h"
#include "pane.h"
#include "sync.h"
#include "view.h"

struct web_app {
    dc_connection *dc;
    GMainLoop *loop;
    /* What sets the app's jobs going (diptych-web.c: update) when something is pending, and only
       then: `update` (an idle source, once) after anything happened that a job waits for; and a
       one-shot timer for each time a job waits for: the page settled by the grace (a snapshot's
       or a round trip's wait), the round trip's deadline, a blank frame's wait, the ready check. */
    struct {
        guint update;
        struct web_timer settle, deadline, blank, ready;
    } triggers;
    struct web_pane pane;
    struct web_view view;
    struct web_frames frames;
    struct web_sync sync;
    struct web_field field;
    struct web_dialogs dialogs;
    struct web_band band;
    struct web_input input;
};

#endif

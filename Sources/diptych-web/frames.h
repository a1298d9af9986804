/* SPDX-License-Identifier: MIT */
/* WebKit's frames as the compositor's buffers (frames.c): the live frame on screen, the frame
   held back (a blank page before the first paint), the snapshots asked for and the candidate
   frame of the one being taken, and the frame_complete owed to WebKit (a live frame waits for the
   compositor's frameDone before WebKit draws the next).
   Owns: those buffers and the snapshot list, when the last frame came, whether a frame of the
   live size went on screen since the size changed. */
#ifndef DIPTYCH_WEB_FRAMES_H
#define DIPTYCH_WEB_FRAMES_H

#include "band.h"
#include "common.h"
#include "pane.h"

#define MAX_SNAPSHOTS 8
/* After the load a frame of one colour is kept back for up to BLANK_MS (ms), in case the page's
   first paint is on its way. */
#define BLANK_MS 1000

struct web_snapshot { uint32_t serial; int css_w, css_h, px_w, px_h, hclass; };

struct web_frames {
    dc_connection *dc;  /* borrowed (frames are committed on it) */
    /* A frame committed and not yet shown holds WebKit's next (frame_complete owed). */
    int frame_complete_owed;
    /* Until the page has loaded and painted, frames are kept (the last one) rather than shown:
       the frames before the load, and often the first after it, are a blank page. */
    dc_buffer *held;
    gint64 last_frame_us;  /* monotonic time of the last frame exported */
    /* A frame of the live size went on screen since the size last changed. */
    int shown_live_size;
    /* The live frame committed last (its pixels stay readable while the compositor holds it). */
    const dc_buffer *live;
    /* Snapshots asked for, done one after another; the newest frame of the one being taken
       (sent once the page has settled at its size: the first frames of a new size can still show
       the old layout). */
    struct web_snapshot snapshots[MAX_SNAPSHOTS];
    int nsnapshots, snapshotting;
    dc_buffer *candidate;
};

/* Whether snapshots are being taken (the view is theirs). */
int web_frames_snapshotting(const struct web_frames *frames);
/* The snapshot being taken. */
struct web_snapshot *web_frames_snapshot(struct web_frames *frames);
/* A snapshot asked for (NULL: MAX_SNAPSHOTS are waiting already). */
struct web_snapshot *web_frames_add_snapshot(struct web_frames *frames, const dc_event *e);
/* The candidate sent as the snapshot being taken; the next one's turn. */
void web_frames_snapshot_taken(struct web_frames *frames);
/* The snapshots asked for are no longer wanted (a configure: the drag that asked is over). */
void web_frames_drop_snapshots(struct web_frames *frames);

/* Shows the buffer as the live frame. */
void web_frames_commit_live(struct web_frames *frames, dc_buffer *b);
/* The held frame, if it is of the pane's size. */
dc_buffer *web_frames_held_fitting(const struct web_frames *frames, const struct web_pane *pane);
/* The pane's size changed: nothing of the new size is on screen yet. */
void web_frames_resized(struct web_frames *frames);
/* A dialog shows before the page drew anything: a white pane under it (unless `resizing`). */
void web_frames_blank_under_dialog(struct web_frames *frames, const struct web_pane *pane, int resizing);
/* WebKit may draw its next frame, if it was waiting for this one to be shown. */
void web_frames_pay_owed(struct web_frames *frames, struct wpe_view_backend_exportable_fdo *exportable);

/* Whether a frame is all one colour below the band's `band_rows` (the blank page WebKit shows
   before the first paint). */
int web_frames_one_colour(const dc_buffer *b, int band_rows);
/* WebKit's frame of the view into a buffer of the pane, below the band. */
void web_frames_copy(const struct web_band *band, const struct web_pane *pane, struct wl_shm_buffer *shm, dc_buffer *b);

#endif

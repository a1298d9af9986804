/* SPDX-License-Identifier: MIT */
/* WebKit's frames as the compositor's buffers (frames.h). */
#include "frames.h"

int web_frames_snapshotting(const struct web_frames *frames) { return frames->snapshotting < frames->nsnapshots; }

struct web_snapshot *web_frames_snapshot(struct web_frames *frames) { return &frames->snapshots[frames->snapshotting]; }

struct web_snapshot *web_frames_add_snapshot(struct web_frames *frames, const dc_event *e) {
    if (frames->nsnapshots == MAX_SNAPSHOTS) return NULL;
    struct web_snapshot *s = &frames->snapshots[frames->nsnapshots++];
    s->serial = e->snapshot_request.serial;
    s->css_w = e->snapshot_request.frame.width;
    s->css_h = e->snapshot_request.frame.height;
    s->px_w = e->snapshot_request.pixel_width;
    s->px_h = e->snapshot_request.pixel_height;
    s->hclass = e->snapshot_request.horizontal_size_class;
    return s;
}

void web_frames_snapshot_taken(struct web_frames *frames) {
    dc_snapshot(frames->dc, frames->candidate, frames->snapshots[frames->snapshotting].serial);
    frames->candidate = NULL;
    frames->snapshotting++;
}

void web_frames_drop_snapshots(struct web_frames *frames) {
    frames->nsnapshots = frames->snapshotting = 0;
    frames->candidate = NULL;
}

void web_frames_commit_live(struct web_frames *frames, dc_buffer *b) {
    frames->held = NULL;
    frames->live = b;
    dc_commit(frames->dc, b, NULL, 0);
    frames->shown_live_size = 1;
}

dc_buffer *web_frames_held_fitting(const struct web_frames *frames, const struct web_pane *pane) {
    dc_buffer *held = frames->held;
    return held && held->width == pane->px_w && held->height == pane->px_h ? held : NULL;
}

void web_frames_resized(struct web_frames *frames) {
    frames->shown_live_size = 0;
    frames->live = NULL;
}

/* (An HTTP sign-in before any page: the app is on screen to answer it.) */
void web_frames_blank_under_dialog(struct web_frames *frames, const struct web_pane *pane, int resizing) {
    if (!pane->configured || frames->shown_live_size || resizing) return;
    dc_buffer *held = web_frames_held_fitting(frames, pane);
    dc_buffer *b = held ? held : dc_buffer_get(frames->dc, pane->px_w, pane->px_h);
    if (!b) return;
    if (!held)
        for (int y = 0; y < b->height; y++)
            for (int x = 0; x < b->width; x++) b->pixels[(size_t)y * (size_t)b->stride / 4 + (size_t)x] = 0xFFFFFFFF;
    web_frames_commit_live(frames, b);
}

void web_frames_pay_owed(struct web_frames *frames, struct wpe_view_backend_exportable_fdo *exportable) {
    if (!frames->frame_complete_owed) return;
    frames->frame_complete_owed = 0;
    wpe_view_backend_exportable_fdo_dispatch_frame_complete(exportable);
}

int web_frames_one_colour(const dc_buffer *b, int band_rows) {
    int band = band_rows < b->height ? band_rows : b->height - 1;
    uint32_t first = ((const uint32_t *)((const uint8_t *)b->pixels + (size_t)band * (size_t)b->stride))[0];
    for (int y = band; y < b->height; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        for (int x = 0; x < b->width; x++) if (row[x] != first) return 0;
    }
    return 1;
}

void web_frames_copy(const struct web_band *band, const struct web_pane *pane, struct wl_shm_buffer *shm, dc_buffer *b) {
    gint64 t0 = g_get_monotonic_time();
    int w = wl_shm_buffer_get_width(shm), h = wl_shm_buffer_get_height(shm), stride = wl_shm_buffer_get_stride(shm);
    wl_shm_buffer_begin_access(shm);
    web_band_place(band, pane, b, wl_shm_buffer_get_data(shm), (size_t)stride, w, h);
    wl_shm_buffer_end_access(shm);
    log_frame(w, h, (double)(g_get_monotonic_time() - t0) / 1000.0);
}

/* SPDX-License-Identifier: MIT */
/* diptych-web's event log: one JSON object per line for every event the compositor sends, as
   the other apps log theirs, plus `pageTitle` lines (the page's own state) and, for the tests and
   the benchmark, `webFrame` lines. */
#include "event-log.h"

#include <math.h>
#include <stdio.h>

struct event_log event_log;


void json_string(GString *s, const char *v) {
    g_string_append_c(s, '"');
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') g_string_append_printf(s, "\\%c", *p);
        else if (*p < 0x20) g_string_append_printf(s, "\\u%04x", *p);
        else g_string_append_c(s, (char)*p);
    }
    g_string_append_c(s, '"');
}

static void json_number(GString *s, double v) {
    if (v == floor(v) && fabs(v) < 1e15) g_string_append_printf(s, "%.0f", v);
    else g_string_append_printf(s, "%.17g", v);
}

/* `,"key":number` */
void json_field(GString *s, const char *key, double v) {
    g_string_append_printf(s, ",\"%s\":", key);
    json_number(s, v);
}

void log_line(GString *line) {
    if (!event_log.path) return;
    g_string_append(line, "}\n");
    FILE *f = fopen(event_log.path, "a");
    if (f) {
        fwrite(line->str, 1, line->len, f);
        fclose(f);
    }
}

GString *log_start(const char *event) {
    GString *s = g_string_new("{\"app\":");
    json_string(s, event_log.label);
    g_string_append(s, ",\"event\":");
    json_string(s, event);
    return s;
}

const char *class_name(int c) { return dc_size_class_name(c) ? dc_size_class_name(c) : "compact"; }

/* A value's name from the generated tables (diptych-protocol.h); the decoder range-checked it. */
static const char *named(const char *name) { return name ? name : "?"; }

void log_event(const dc_event *e) {
    /* Event and value names come from the tables generated from the protocol's description;
       an error is logged as protocolError and a lifecycle event by its own name. */
    GString *s;
    switch (e->type) {
    case DC_CONFIGURE:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"serial\":%u,\"role\":\"%s\",\"frame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d}",
            e->configure.serial, named(dc_role_name(e->configure.role)), e->configure.frame.x,
            e->configure.frame.y, e->configure.frame.width, e->configure.frame.height);
        g_string_append_printf(s, ",\"pixelWidth\":%d,\"pixelHeight\":%d,\"horizontalSizeClass\":\"%s\",\"verticalSizeClass\":\"%s\"",
            e->configure.pixel_width, e->configure.pixel_height, class_name(e->configure.horizontal_size_class),
            class_name(e->configure.vertical_size_class));
        g_string_append_printf(s, ",\"orientation\":\"%s\",\"arrangement\":\"%s\"",
            named(dc_orientation_name(e->configure.orientation)), named(dc_arrangement_name(e->configure.arrangement)));
        json_field(s, "scale", e->configure.scale);
        g_string_append(s, ",\"safeAreaInsets\":{\"top\":");
        json_number(s, e->configure.safe_top);
        json_field(s, "left", e->configure.safe_left);
        json_field(s, "bottom", e->configure.safe_bottom);
        json_field(s, "right", e->configure.safe_right);
        g_string_append(s, "}");
        break;
    case DC_SIZE_CLASS_CHANGED:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"horizontalSizeClass\":\"%s\",\"verticalSizeClass\":\"%s\",\"previousHorizontal\":\"%s\",\"previousVertical\":\"%s\"",
            class_name(e->size_class_changed.horizontal), class_name(e->size_class_changed.vertical),
            class_name(e->size_class_changed.previous_horizontal), class_name(e->size_class_changed.previous_vertical));
        break;
    case DC_LIFECYCLE:
        s = log_start(named(dc_lifecycle_name(e->lifecycle)));
        break;
    case DC_SNAPSHOT_REQUEST:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"serial\":%u,\"frame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d},\"pixelWidth\":%d,\"pixelHeight\":%d,\"horizontalSizeClass\":\"%s\"",
            e->snapshot_request.serial, e->snapshot_request.frame.x, e->snapshot_request.frame.y, e->snapshot_request.frame.width,
            e->snapshot_request.frame.height, e->snapshot_request.pixel_width, e->snapshot_request.pixel_height,
            class_name(e->snapshot_request.horizontal_size_class));
        break;
    case DC_TOUCH:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"id\":%d,\"phase\":\"%s\"", e->touch.id, named(dc_touch_phase_name(e->touch.phase)));
        json_field(s, "x", e->touch.x);
        json_field(s, "y", e->touch.y);
        json_field(s, "time", e->touch.time);
        g_string_append_printf(s, ",\"serial\":%u", e->touch.serial);
        break;
    case DC_PEN:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"phase\":\"%s\"", named(dc_pen_phase_name(e->pen.phase)));
        json_field(s, "x", e->pen.x);
        json_field(s, "y", e->pen.y);
        json_field(s, "pressure", e->pen.pressure);
        json_field(s, "tiltX", e->pen.tilt_x);
        json_field(s, "tiltY", e->pen.tilt_y);
        json_field(s, "time", e->pen.time);
        g_string_append_printf(s, ",\"tool\":\"%s\",\"buttons\":%u", named(dc_pen_tool_name(e->pen.tool)), e->pen.buttons);
        g_string_append_printf(s, ",\"serial\":%u", e->pen.serial);
        break;
    case DC_FRAME_DONE:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"time\":%llu", (unsigned long long)e->frame_done.time);
        json_field(s, "refresh", e->frame_done.refresh);
        g_string_append_printf(s, ",\"seq\":%llu", (unsigned long long)e->frame_done.seq);
        break;
    case DC_ERROR:
        s = log_start("protocolError");
        g_string_append_printf(s, ",\"code\":\"%s\",\"message\":", named(dc_error_code_name(e->error.code)));
        json_string(s, e->error.message);
        break;
    case DC_RELEASE:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"buffer\":%u", e->release.buffer);
        break;
    case DC_SCREEN_CONNECTED:
    case DC_SCREEN_DISCONNECTED:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"screen\":%u,\"pixelWidth\":%d,\"pixelHeight\":%d", e->screen.screen, e->screen.pixel_width,
            e->screen.pixel_height);
        break;
    case DC_REFUSED:
        s = log_start(dc_event_name(e->type));
        g_string_append(s, ",\"request\":");
        json_string(s, e->refused.request);
        g_string_append(s, ",\"reason\":");
        json_string(s, e->refused.reason);
        g_string_append(s, ",\"message\":");
        json_string(s, e->refused.message);
        break;
    case DC_KEYBOARD_FOCUS:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"focused\":%s", e->keyboard_focus.focused ? "true" : "false");
        break;
    case DC_KEY: {
        static const char *modifier[] = { "shift", "capsLock", "control", "alt", "logo", "numLock", "altGr" };
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"keycode\":%u,\"keysym\":%u,\"text\":", e->key.keycode, e->key.keysym);
        json_string(s, e->key.text);
        g_string_append_printf(s, ",\"state\":\"%s\",\"modifiers\":[", named(dc_key_state_name(e->key.state)));
        int first = 1;
        for (int i = 0; i < 7; i++) {
            if (!(e->key.modifiers & (1u << i))) continue;
            g_string_append_printf(s, "%s\"%s\"", first ? "" : ",", modifier[i]);
            first = 0;
        }
        g_string_append(s, "]");
        json_field(s, "time", e->key.time);
        g_string_append_printf(s, ",\"serial\":%u", e->key.serial);
        break;
    }
    case DC_POINTER: {
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"phase\":\"%s\"", named(dc_pointer_phase_name(e->pointer.phase)));
        json_field(s, "x", e->pointer.x);
        json_field(s, "y", e->pointer.y);
        if (e->pointer.phase == DC_POINTER_BUTTON)
            g_string_append_printf(s, ",\"button\":%u,\"pressed\":%s", e->pointer.button, e->pointer.pressed ? "true" : "false");
        if (e->pointer.phase == DC_POINTER_SCROLL) {
            json_field(s, "dx", e->pointer.dx);
            json_field(s, "dy", e->pointer.dy);
            g_string_append_printf(s, ",\"source\":\"%s\"", named(dc_scroll_source_name(e->pointer.source)));
        }
        json_field(s, "time", e->pointer.time);
        g_string_append_printf(s, ",\"serial\":%u", e->pointer.serial);
        break;
    }
    case DC_PIP_ACTION:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"action\":\"%s\"", named(dc_pip_action_name(e->pip_action.action)));
        break;
    case DC_TEXT_COMMIT:
        s = log_start(dc_event_name(e->type));
        g_string_append(s, ",\"text\":");
        json_string(s, e->text_commit.text);
        break;
    case DC_TEXT_DELETE:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"before\":%u,\"after\":%u", e->text_delete.before, e->text_delete.after);
        break;
    case DC_KEYBOARD_FRAME: {
        const dc_rect *f = &e->keyboard_frame.frame, *g = &e->keyboard_frame.screen_frame;
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"frame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d}", f->x, f->y, f->width, f->height);
        g_string_append_printf(s, ",\"screenFrame\":{\"x\":%d,\"y\":%d,\"width\":%d,\"height\":%d}", g->x, g->y, g->width, g->height);
        g_string_append_printf(s, ",\"duration\":%u,\"local\":%s", e->keyboard_frame.duration, e->keyboard_frame.local ? "true" : "false");
        break;
    }
    case DC_MENU_CHOSEN:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"id\":%u,\"index\":%u", e->menu_chosen.id, e->menu_chosen.index);
        break;
    case DC_ALERT_ANSWERED:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"id\":%u,\"button\":%u,\"text\":", e->alert_answered.id, e->alert_answered.button);
        json_string(s, e->alert_answered.text);
        break;
    case DC_DISMISSED:
        s = log_start(dc_event_name(e->type));
        g_string_append_printf(s, ",\"id\":%u", e->dismissed.id);
        break;
    case DC_TEXT_INPUT_DISMISSED:  /* no fields */
        s = log_start(dc_event_name(e->type));
        break;
    default:
        return;  /* sync is not logged */
    }
    log_line(s);
    g_string_free(s, TRUE);
}

/* DIPTYCH_WEB_LOG_FRAMES=1: a webFrame line for each frame WebKit made, with the time the copy
   into the compositor's buffer took (for the tests and the benchmark). */
void log_frame(int w, int h, double copy_ms) {
    if (!event_log.frames) return;
    GString *line = log_start("webFrame");
    g_string_append_printf(line, ",\"pixelWidth\":%d,\"pixelHeight\":%d,\"copyMs\":%.3f,\"at\":%.3f", w, h, copy_ms,
        (double)g_get_monotonic_time() / 1000.0);
    log_line(line);
    g_string_free(line, TRUE);
}


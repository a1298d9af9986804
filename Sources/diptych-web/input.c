/* SPDX-License-Identifier: MIT */
/* diptych-web's input: the compositor's touches, pen, keys and pointer as WPE's events, in the
   device pixels WebKit takes (it divides by the scale factor), in the view's coordinates: the
   pane's less the status bar's band above it. A contact in the band is the band's (a tap
   scrolls the page to its top). (input.h) */
#include "input.h"

#include "sync.h"

#include <math.h>

/* A time in ms as WPE's 32-bit milliseconds, wrapping as Wayland's do (and 0 for a time that
   is not a number: a double out of uint32_t's range must not be converted directly). */
static uint32_t wpe_time(double ms) {
    if (!(ms >= 0 && ms < 1e18)) return 0;
    return (uint32_t)(uint64_t)ms;
}

/* A pane y (points) as the view's device pixels. */
static int32_t view_y(const struct web_pane *pane, const struct web_band *band, double y) {
    return (int32_t)lround((y - web_band_top(band, pane)) * pane->scale);
}

/* A contact the band took: a tap in it scrolls the page to its top (the page stirred once
   WebKit has scrolled), else nothing happens. */
static int band_took(struct web_view *view, int contact) {
    if (contact != WEB_BAND_TAP || !view->webkit) return -1;
    webkit_web_view_run_javascript_in_world(view->webkit, "window.scrollTo(window.scrollX,0)", SCRIPT_WORLD, NULL, NULL, NULL);
    return TAP_MS;
}

static int touch(struct web_input *input, struct web_view *view, const struct web_pane *pane, struct web_band *band, int32_t id, int phase,
                 double x, double y, double time) {
    int band_phase = phase == DC_TOUCH_DOWN ? 0 : phase == DC_TOUCH_MOTION ? 1 : phase == DC_TOUCH_UP ? 2 : 3;
    int contact = web_band_contact(band, pane, id, band_phase, y);
    if (contact) return band_took(view, contact);
    /* (WPE has no cancel: the touch ends, and the page is told it was cancelled first.) */
    if (phase == DC_TOUCH_CANCEL) web_touch_cancelled(view->webkit, id);
    enum wpe_input_touch_event_type type = phase == DC_TOUCH_DOWN ? wpe_input_touch_event_type_down
        : phase == DC_TOUCH_MOTION ? wpe_input_touch_event_type_motion : wpe_input_touch_event_type_up;
    int at = -1;
    for (int i = 0; i < input->ntouches; i++) if (input->touches[i].id == id) at = i;
    if (at < 0) {
        if (phase != DC_TOUCH_DOWN || input->ntouches == MAX_TOUCHES) return -1;
        at = input->ntouches++;
    }
    /* WebKit takes input in device pixels (it divides by the scale factor). */
    input->touches[at] = (struct wpe_input_touch_event_raw){ type, wpe_time(time), id, (int32_t)lround(x * pane->scale), view_y(pane, band, y) };
    struct wpe_input_touch_event event = { input->touches, (uint64_t)input->ntouches, type, id, wpe_time(time), 0 };
    wpe_view_backend_dispatch_touch_event(view->backend, &event);
    if (type == wpe_input_touch_event_type_up) {
        input->touches[at] = input->touches[--input->ntouches];
    } else {
        input->touches[at].type = wpe_input_touch_event_type_motion;
    }
    return type == wpe_input_touch_event_type_up ? TAP_MS : 0;
}

static int pen(struct web_input *input, struct web_view *view, const struct web_pane *pane, struct web_band *band, int phase, double x,
               double y, double pressure, double tilt_x, double tilt_y, double time) {
    int band_phase = phase == DC_PEN_DOWN ? 0 : phase == DC_PEN_UP ? 2 : 1;
    int contact = web_band_contact(band, pane, -2, band_phase, y);
    if (contact) return band_took(view, contact);
    web_touch_pen(&input->pen_told, view->webkit, phase == DC_PEN_DOWN || (phase == DC_PEN_MOTION && input->pen_down), pressure, tilt_x, tilt_y);
    struct wpe_input_pointer_event e = {
        wpe_input_pointer_event_type_motion, wpe_time(time), (int)lround(x * pane->scale), view_y(pane, band, y), 0, 0, 0,
    };
    if (phase == DC_PEN_DOWN || phase == DC_PEN_UP) {
        e.type = wpe_input_pointer_event_type_button;
        e.button = 1;
        e.state = phase == DC_PEN_DOWN;
        input->pen_down = phase == DC_PEN_DOWN;
        e.modifiers = input->pen_down ? wpe_input_pointer_modifier_button1 : 0;
        /* The position first, then the button there. */
        struct wpe_input_pointer_event move = e;
        move.type = wpe_input_pointer_event_type_motion;
        move.button = move.state = 0;
        move.modifiers = phase == DC_PEN_UP ? wpe_input_pointer_modifier_button1 : 0;
        wpe_view_backend_dispatch_pointer_event(view->backend, &move);
    } else {
        e.modifiers = input->pen_down ? wpe_input_pointer_modifier_button1 : 0;
    }
    wpe_view_backend_dispatch_pointer_event(view->backend, &e);
    return phase == DC_PEN_UP ? TAP_MS : 0;
}

/* Keys as WebKit takes them: the keysym as the key code, the xkb keycode (evdev + 8) as the
   hardware code, the modifiers in WPE's bits. */
static uint32_t wpe_modifiers(uint32_t m) {
    return (m & DC_MOD_CONTROL ? wpe_input_keyboard_modifier_control : 0) | (m & DC_MOD_SHIFT ? wpe_input_keyboard_modifier_shift : 0)
        | (m & DC_MOD_ALT ? wpe_input_keyboard_modifier_alt : 0) | (m & DC_MOD_LOGO ? wpe_input_keyboard_modifier_meta : 0);
}

/* (ISO_Left_Tab, the keyboard's ‹, is Shift+Tab whatever the modifiers say.) */
static int key(struct web_view *view, const dc_event *e) {
    uint32_t modifiers = wpe_modifiers(e->key.modifiers);
    if (e->key.keysym == 0xfe20 /* ISO_Left_Tab */) modifiers |= wpe_input_keyboard_modifier_shift;
    struct wpe_input_keyboard_event k = {
        wpe_time(e->key.time), e->key.keysym, e->key.keycode + 8, e->key.state != DC_KEY_RELEASED, modifiers,
    };
    wpe_view_backend_dispatch_keyboard_event(view->backend, &k);
    return 0;
}

/* The pointer as a mouse: WPE's buttons 1 left, 2 right, 3 middle (Linux's code - BTN_MOUSE + 1,
   as WebKit's libwpe event factory reads them: 2 is its RightButton, modifier button2 the DOM's
   secondary button), with the held buttons in the modifiers; a scroll, whatever its source, as
   a smooth 2D axis event in device pixels (WebKit divides by the scale, and scrolls the page
   down for a negative y; its discrete 2D kind would give each axis a 40 px tick, even a 0 one). */
static int pointer(struct web_input *input, struct web_view *view, const struct web_pane *pane, struct web_band *band, const dc_event *e) {
    if (e->pointer.phase == DC_POINTER_BUTTON && e->pointer.button == DC_BUTTON_LEFT) {
        int contact = web_band_contact(band, pane, -3, e->pointer.pressed ? 0 : 2, e->pointer.y);
        if (contact) return band_took(view, contact);
    }
    int x = (int)lround(e->pointer.x * pane->scale), y = view_y(pane, band, e->pointer.y);
    uint32_t time = wpe_time(e->pointer.time);
    switch (e->pointer.phase) {
    case DC_POINTER_ENTER:
    case DC_POINTER_MOTION: {
        struct wpe_input_pointer_event m = { wpe_input_pointer_event_type_motion, time, x, y, 0, 0, input->pointer_buttons };
        wpe_view_backend_dispatch_pointer_event(view->backend, &m);
        break;
    }
    case DC_POINTER_BUTTON: {
        uint32_t button = e->pointer.button == DC_BUTTON_LEFT ? 1 : e->pointer.button == DC_BUTTON_RIGHT ? 2 : e->pointer.button == DC_BUTTON_MIDDLE ? 3 : 0;
        if (!button) return -1;
        uint32_t bit = button == 1 ? wpe_input_pointer_modifier_button1 : button == 2 ? wpe_input_pointer_modifier_button2 : wpe_input_pointer_modifier_button3;
        if (e->pointer.pressed) input->pointer_buttons |= bit; else input->pointer_buttons &= ~bit;
        struct wpe_input_pointer_event b = { wpe_input_pointer_event_type_button, time, x, y, button, (uint32_t)e->pointer.pressed, input->pointer_buttons };
        wpe_view_backend_dispatch_pointer_event(view->backend, &b);
        break;
    }
    case DC_POINTER_SCROLL: {
        if (!isfinite(e->pointer.dx) || !isfinite(e->pointer.dy)) break;
        struct wpe_input_axis_2d_event a = {
            { (enum wpe_input_axis_event_type)(wpe_input_axis_event_type_motion_smooth | wpe_input_axis_event_type_mask_2d), time, x, y, 0, 0, 0 },
            -e->pointer.dx * pane->scale, -e->pointer.dy * pane->scale,
        };
        wpe_view_backend_dispatch_axis_event(view->backend, &a.base);
        break;
    }
    case DC_POINTER_LEAVE:
    default:
        break;
    }
    return 0;
}

int web_input_event(struct web_input *input, struct web_view *view, const struct web_pane *pane, struct web_band *band, const dc_event *e,
                    int *ended) {
    *ended = WEB_INPUT_NONE;
    if (!view->webkit) return -1;
    int later = -1;
    switch (e->type) {
    case DC_TOUCH: {
        /* (A contact the band took never reaches the page: its end is no tap of the page's.) */
        int in_band = band->tap.down && band->tap.id == e->touch.id;
        later = touch(input, view, pane, band, e->touch.id, e->touch.phase, e->touch.x, e->touch.y, e->touch.time);
        if (later >= 0 && e->touch.phase == DC_TOUCH_UP && !in_band) *ended = WEB_INPUT_TAP;
        break;
    }
    case DC_PEN: {
        if (e->pen.phase == DC_PEN_PROXIMITY_OUT) break;
        int in_band = band->tap.down && band->tap.id == -2;
        later = pen(input, view, pane, band, e->pen.phase, e->pen.x, e->pen.y, e->pen.pressure, e->pen.tilt_x, e->pen.tilt_y, e->pen.time);
        if (later >= 0 && e->pen.phase == DC_PEN_UP && !in_band) *ended = WEB_INPUT_TAP;
        break;
    }
    case DC_KEY:
        later = key(view, e);
        if (e->key.state == DC_KEY_PRESSED) *ended = WEB_INPUT_KEY;
        break;
    case DC_POINTER: {
        int in_band = band->tap.down && band->tap.id == -3;
        later = pointer(input, view, pane, band, e);
        if (later >= 0 && e->pointer.phase == DC_POINTER_BUTTON && e->pointer.button == DC_BUTTON_LEFT && !e->pointer.pressed && !in_band)
            *ended = WEB_INPUT_TAP;
        break;
    }
    default:
        break;
    }
    return later;
}

/* SPDX-License-Identifier: MIT */
/* The compositor's input to WebKit (input.c, touch.c): touches, the pen, keys and the pointer
   as WPE's events, in the view's device pixels (below the band); a contact in the band is the
   band's. And touch as a page expects it on an iPad (touch.h).
   Owns: the touch points down, whether the pen is down and what the page was told of it, the
   pointer's buttons held. */
#ifndef DIPTYCH_WEB_INPUT_H
#define DIPTYCH_WEB_INPUT_H

#include "band.h"
#include "common.h"
#include "pane.h"
#include "touch.h"
#include "view.h"

#define MAX_TOUCHES 10

struct web_input {
    /* Touch points down, in device pixels. */
    struct wpe_input_touch_event_raw touches[MAX_TOUCHES];
    int ntouches;
    int pen_down;
    /* The pointer's buttons held, as WPE's modifier bits. */
    uint32_t pointer_buttons;
    struct web_pen_told pen_told;
};

#define WEB_INPUT_INIT { .pen_told = WEB_PEN_TOLD_INIT }

/* Gives WebKit (the `view`'s) the compositor's touch, pen, key or pointer event and says when the
   page is to be stirred: -1 not (the event went nowhere), else after that many ms (0 now; TAP_MS
   after a lifted touch or a tap in the band). `*ended`: 1 when the page was sent an input that
   may focus a field: WEB_INPUT_TAP (a touch or the pen lifted, the left button released) or
   WEB_INPUT_KEY (a key pressed), else WEB_INPUT_NONE. */
enum { WEB_INPUT_NONE, WEB_INPUT_KEY, WEB_INPUT_TAP };
int web_input_event(struct web_input *input, struct web_view *view, const struct web_pane *pane, struct web_band *band, const dc_event *e,
                    int *ended);

#endif

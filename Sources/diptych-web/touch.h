/* SPDX-License-Identifier: MIT */
/* Touch as a page expects it on an iPad (touch.c): a script in diptych-web's own world that
   dispatches pointer events for touch and the pen, hides touch scrolling's wheel events and a
   cancelled touch's click; and what the script is told before WebKit gets an event. Part of the
   input (input.h), which holds what the page was told of the pen. */
#ifndef DIPTYCH_WEB_TOUCH_H
#define DIPTYCH_WEB_TOUCH_H

#include "common.h"

extern const char *touch_script;

/* The pen as the page was last told it (`down` -1: never). */
struct web_pen_told { int down; double pressure, tilt_x, tilt_y; };

#define WEB_PEN_TOLD_INIT { .down = -1, .pressure = -1 }

/* Touch `id` was cancelled: its end is the page's `touchcancel`, and makes no click. */
void web_touch_cancelled(WebKitWebView *webkit, int32_t id);
/* The pen's state: the page sees pointerType "pen" with this pressure and tilt. */
void web_touch_pen(struct web_pen_told *told, WebKitWebView *webkit, int down, double pressure, double tilt_x, double tilt_y);

#endif

/* SPDX-License-Identifier: MIT */
/* The pane as the compositor configured it (its role, size in points and pixels, size classes,
   scale and safe area) and whether it shows and has the focus. Plain data: written by the app
   alone, from configure and lifecycle events; every part that needs it is given it, read-only. */
#ifndef DIPTYCH_WEB_PANE_H
#define DIPTYCH_WEB_PANE_H

struct web_pane {
    /* A configure came (the view is made with the first). */
    int configured;
    int role, css_w, css_h, px_w, px_h, hclass, vclass;
    double scale, safe[4];
    /* Activity: shown (not in the background), and active (not resigned). */
    int visible, focused;
};

#define WEB_PANE_INIT { .visible = 1, .focused = 1 }

#endif

/* SPDX-License-Identifier: MIT */
/* The status bar over the page (band.c): the band above the web view, as Safari keeps it (the
   safe area's top, unless the page's viewport says viewport-fit=cover), filled with the page's
   theme-color, else its background; a tap in it scrolls the page to its top. And the status
   bar's style the page asks for (its apple-mobile-web-app-status-bar-style, else a dark
   theme-color), sent while the app is primary.
   Owns: cover, the band's colour, the page's background (below a view shorter than the pane:
   the keyboard covers it), a tap going on in the band, the style wanted and sent. */
#ifndef DIPTYCH_WEB_BAND_H
#define DIPTYCH_WEB_BAND_H

#include "common.h"
#include "pane.h"

struct web_band {
    dc_connection *dc;  /* borrowed (the style is sent on it) */
    /* The page's viewport says viewport-fit=cover (its view takes the whole pane, under the
       status bar); else the band above it shows this colour (0xRRGGBB). */
    int cover;
    uint32_t colour;
    /* The page's background (0xRRGGBB): the pane below the view, under the keyboard. */
    uint32_t background;
    /* The touch (or the pen, or the pointer's button: id -1) that went down in the band. */
    struct { int down, id; double y0; } tap;
    /* Status bar style the page asks for (-1: none), and the one sent as primary (-1: none). */
    int wanted_style, sent_style;
};

#define WEB_BAND_INIT { .colour = 0xFFFFFF, .background = 0xFFFFFF, .wanted_style = -1, .sent_style = -1 }

/* The band's height in the pane's points (0 under cover), and in its pixels. */
double web_band_top(const struct web_band *band, const struct web_pane *pane);
int web_band_rows(const struct web_band *band, const struct web_pane *pane);

/* Places a frame of the view (w x h pixels, `stride` bytes a row) in a buffer of the pane, below
   the band (the rows below a shorter frame: the page's background). */
void web_band_place(const struct web_band *band, const struct web_pane *pane, dc_buffer *b, const uint8_t *src, size_t stride, int w,
                    int h);

/* A contact at pane y (points) going `phase` (0 down, 1 motion, 2 up, 3 cancel): not the band's
   (WEB_BAND_NONE), the band's (nothing of it reaches the page), or the band's tap ending (the
   page is to be scrolled to its top). */
enum { WEB_BAND_NONE, WEB_BAND_CONTACT, WEB_BAND_TAP };
int web_band_contact(struct web_band *band, const struct web_pane *pane, int id, int phase, double y);

/* Whether the page covers the status bar, the band's colour and the page's background: posted from diptych-web's own
   world. The message's news: WEB_BAND_RELAYOUT (cover changed: the view takes the pane's new
   height), WEB_BAND_RECOLOURED (the colour changed), else 0. */
extern const char *band_script;
enum { WEB_BAND_RELAYOUT = 1, WEB_BAND_RECOLOURED = 2 };
int web_band_message(struct web_band *band, WebKitJavascriptResult *result);

/* The script that reads the style the page asks for, and its answer read (1: a style is
   wanted now). */
extern const char *style_probe;
int web_band_style_read(struct web_band *band, WebKitWebView *view, GAsyncResult *result);
/* Sends the style wanted, if the app is primary and it was not sent already. */
void web_band_send_style(struct web_band *band, const struct web_pane *pane);

#endif

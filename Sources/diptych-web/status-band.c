/* SPDX-License-Identifier: MIT */
/* The status bar's band, as Safari keeps it: the web view starts the safe area's top below the
   pane's top (the page's own `viewport-fit=cover` puts it under the bar instead), the band
   shows the page's theme-color, else its background, and a tap in it scrolls the page to its
   top. The view is the pane less the band: frames are placed below it, and input, the caret
   and the pan are offset by it. */
#include "diptych-web.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A touch in the band that moves more than this (CSS px) is no tap. */
#define BAND_TAP_SLOP 10

static struct {
    /* The touch (or the pen, or the pointer's button: id -1) that went down in the band. */
    int down, id;
    double y0;
} tap = { 0, 0, 0 };

double band_top(void) { return app.cover ? 0 : app.safe[0] > 0 ? app.safe[0] : 0; }

int band_rows(void) { return (int)lround(band_top() * app.scale); }

/* The page's viewport asks for cover, its theme-color, else its background (computed colours),
   posted from diptych-web's own world when its content is loaded and when it has loaded. */
const char *band_script =
    "(function(){function say(){var v=document.querySelector('meta[name=\"viewport\"]'),"
    "cover=!!(v&&/viewport-fit\\s*=\\s*cover/i.test(v.content||'')),c='',t=document.querySelector('meta[name=\"theme-color\"]');"
    "if(t&&t.content){var d=document.createElement('div');d.style.color=t.content;(document.body||document.documentElement).appendChild(d);"
    "c=getComputedStyle(d).color;d.remove();}"
    "function bg(e){var s=e&&getComputedStyle(e).backgroundColor;return s&&s!=='transparent'&&!/rgba\\(.*,\\s*0\\)$/.test(s)?s:'';}"
    "if(!c)c=bg(document.body)||bg(document.documentElement)||'rgb(255, 255, 255)';"
    "window.webkit.messageHandlers.diptychBand.postMessage({cover:cover?1:0,color:c});}"
    "document.addEventListener('DOMContentLoaded',say);window.addEventListener('load',say);})();";

/* "rgb(r, g, b)" or "rgba(r, g, b, a)" as 0xRRGGBB (white for anything else). */
static uint32_t parse_colour(const char *s) {
    unsigned r, g, b;
    if (s && (sscanf(s, "rgb(%u, %u, %u", &r, &g, &b) == 3 || sscanf(s, "rgba(%u, %u, %u", &r, &g, &b) == 3) && r < 256 && g < 256 && b < 256)
        return r << 16 | g << 8 | b;
    return 0xFFFFFF;
}

void on_band_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager; (void)data;
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    if (!jsc_value_is_object(v)) return;
    JSCValue *cover = jsc_value_object_get_property(v, "cover"), *colour = jsc_value_object_get_property(v, "color");
    char *c = jsc_value_to_string(colour);
    int wants_cover = jsc_value_to_int32(cover) == 1;
    uint32_t rgb = parse_colour(c);
    g_free(c);
    g_object_unref(cover);
    g_object_unref(colour);
    int redraw = rgb != app.band_colour;
    app.band_colour = rgb;
    if (wants_cover != app.cover) {
        app.cover = wants_cover;
        if (app.debug) say("viewport-fit=cover %s", wants_cover ? "on" : "off");
        /* The view takes the pane's new height (a frame of it follows). */
        relayout_view();
    } else if (redraw && app.live && band_rows() > 0) {
        stir();
    }
}

/* Places a frame of the view (w x h pixels, `stride` bytes a row, its row `from` first: the pan)
   in a buffer of the pane: the band filled with its colour, the view's rows below it (rows past
   the frame's end repeat its last row: they lie under the keyboard). */
void place_frame(dc_buffer *b, const uint8_t *src, size_t stride, int w, int h, int from) {
    int band = band_rows(), width = w < b->width ? w : b->width;
    if (band > b->height) band = b->height;
    uint32_t fill = 0xFF000000u | app.band_colour;
    for (int y = 0; y < band; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        for (int x = 0; x < b->width; x++) row[x] = fill;
    }
    for (int y = band; y < b->height; y++) {
        int sy = y - band + from < h ? y - band + from : h - 1;
        if (sy < 0) break;
        memcpy((uint8_t *)b->pixels + (size_t)y * (size_t)b->stride, src + (size_t)sy * stride, (size_t)width * 4);
    }
}

/* A contact at pane y (points) going `phase` (0 down, 1 motion, 2 up, 3 cancel): whether it is
   the band's (nothing of it reaches the page; a tap scrolls the page to its top). */
int band_contact(int id, int phase, double y) {
    if (phase == 0) {
        if (band_top() <= 0 || y >= band_top()) return 0;
        tap.down = 1;
        tap.id = id;
        tap.y0 = y;
        return 1;
    }
    if (!tap.down || tap.id != id) return 0;
    if (phase == 1) {
        if (fabs(y - tap.y0) > BAND_TAP_SLOP) tap.y0 = -1e9;
        return 1;
    }
    tap.down = 0;
    if (phase == 2 && tap.y0 > -1e9 && app.view) {
        webkit_web_view_run_javascript_in_world(app.view, "window.scrollTo(window.scrollX,0)", SCRIPT_WORLD, NULL, NULL, NULL);
        stir_after(TAP_MS);
    }
    return 1;
}

/* SPDX-License-Identifier: MIT */
/* The status bar's band, as Safari keeps it: the web view starts the safe area's top below the
   pane's top (the page's own `viewport-fit=cover` puts it under the bar instead), the band
   shows the page's theme-color, else its background, and a tap in it scrolls the page to its
   top. The view is the pane less the band (and less the keyboard this app raised): frames are
   placed below it, and input and the caret are offset by it. The status bar's style follows the page's meta tag, else its
   theme-color. */
#include "band.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A touch in the band that moves more than this (CSS px) is no tap. */
#define BAND_TAP_SLOP 10

double web_band_top(const struct web_band *band, const struct web_pane *pane) {
    return band->cover ? 0 : pane->safe[0] > 0 ? pane->safe[0] : 0;
}

int web_band_rows(const struct web_band *band, const struct web_pane *pane) { return (int)lround(web_band_top(band, pane) * pane->scale); }

/* The page's viewport asks for cover, its theme-color, else its background, and its background
   (computed colours), posted from diptych-web's own world when its content is loaded and when it has loaded. */
const char *band_script =
    "(function(){function say(){var v=document.querySelector('meta[name=\"viewport\"]'),"
    "cover=!!(v&&/viewport-fit\\s*=\\s*cover/i.test(v.content||'')),c='',t=document.querySelector('meta[name=\"theme-color\"]');"
    "if(t&&t.content){var d=document.createElement('div');d.style.color=t.content;(document.body||document.documentElement).appendChild(d);"
    "c=getComputedStyle(d).color;d.remove();}"
    "function bg(e){var s=e&&getComputedStyle(e).backgroundColor;return s&&s!=='transparent'&&!/rgba\\(.*,\\s*0\\)$/.test(s)?s:'';}"
    "var b=bg(document.body)||bg(document.documentElement)||'rgb(255, 255, 255)';if(!c)c=b;"
    "window.webkit.messageHandlers.diptychBand.postMessage({cover:cover?1:0,color:c,background:b});}"
    "document.addEventListener('DOMContentLoaded',say);window.addEventListener('load',say);})();";

/* "rgb(r, g, b)" or "rgba(r, g, b, a)" as 0xRRGGBB (white for anything else). */
static uint32_t parse_colour(const char *s) {
    unsigned r, g, b;
    if (s && (sscanf(s, "rgb(%u, %u, %u", &r, &g, &b) == 3 || sscanf(s, "rgba(%u, %u, %u", &r, &g, &b) == 3) && r < 256 && g < 256 && b < 256)
        return r << 16 | g << 8 | b;
    return 0xFFFFFF;
}

int web_band_message(struct web_band *band, WebKitJavascriptResult *result) {
    JSCValue *v = webkit_javascript_result_get_js_value(result);
    if (!jsc_value_is_object(v)) return 0;
    JSCValue *cover = jsc_value_object_get_property(v, "cover"), *colour = jsc_value_object_get_property(v, "color"),
             *background = jsc_value_object_get_property(v, "background");
    char *c = jsc_value_to_string(colour), *b = jsc_value_to_string(background);
    int wants_cover = jsc_value_to_int32(cover) == 1;
    uint32_t rgb = parse_colour(c);
    band->background = parse_colour(b);
    g_free(c);
    g_free(b);
    g_object_unref(cover);
    g_object_unref(colour);
    g_object_unref(background);
    int news = rgb != band->colour ? WEB_BAND_RECOLOURED : 0;
    band->colour = rgb;
    if (wants_cover != band->cover) {
        band->cover = wants_cover;
        if (web_debug) say("viewport-fit=cover %s", wants_cover ? "on" : "off");
        news |= WEB_BAND_RELAYOUT;
    }
    return news;
}

/* Places a frame of the view (w x h pixels, `stride` bytes a row) in a buffer of the pane: the band
   filled with its colour, the view's rows below it, and below a frame shorter than the pane's
   rest (the keyboard covers it) the page's background. */
void web_band_place(const struct web_band *band, const struct web_pane *pane, dc_buffer *b, const uint8_t *src, size_t stride, int w,
                    int h) {
    int rows = web_band_rows(band, pane), width = w < b->width ? w : b->width;
    if (rows > b->height) rows = b->height;
    uint32_t fill = 0xFF000000u | band->colour, below = 0xFF000000u | band->background;
    for (int y = 0; y < rows; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        for (int x = 0; x < b->width; x++) row[x] = fill;
    }
    for (int y = rows; y < b->height; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)b->pixels + (size_t)y * (size_t)b->stride);
        if (y - rows < h) {
            memcpy(row, src + (size_t)(y - rows) * stride, (size_t)width * 4);
            for (int x = width; x < b->width; x++) row[x] = below;
        } else {
            for (int x = 0; x < b->width; x++) row[x] = below;
        }
    }
}

/* A contact at pane y (points) going `phase` (0 down, 1 motion, 2 up, 3 cancel): whether it is
   the band's (nothing of it reaches the page; a tap scrolls the page to its top). */
int web_band_contact(struct web_band *band, const struct web_pane *pane, int id, int phase, double y) {
    if (phase == 0) {
        if (web_band_top(band, pane) <= 0 || y >= web_band_top(band, pane)) return WEB_BAND_NONE;
        band->tap.down = 1;
        band->tap.id = id;
        band->tap.y0 = y;
        return WEB_BAND_CONTACT;
    }
    if (!band->tap.down || band->tap.id != id) return WEB_BAND_NONE;
    if (phase == 1) {
        if (fabs(y - band->tap.y0) > BAND_TAP_SLOP) band->tap.y0 = -1e9;
        return WEB_BAND_CONTACT;
    }
    band->tap.down = 0;
    return phase == 2 && band->tap.y0 > -1e9 ? WEB_BAND_TAP : WEB_BAND_CONTACT;
}

/* ---- the status bar's style ---- */

/* iOS's meta tag (black and black-translucent want light text), else a dark theme-color. */
const char *style_probe =
    "(function(){var m=document.querySelector('meta[name=\"apple-mobile-web-app-status-bar-style\"]');"
    "if(m){var c=(m.content||'').trim();return c==='black'||c==='black-translucent'?'light':'dark';}"
    "var t=document.querySelector('meta[name=\"theme-color\"]');if(!t)return 'none';"
    "var d=document.createElement('div');d.style.color=t.content;document.documentElement.appendChild(d);"
    "var m2=getComputedStyle(d).color.match(/\\d+(\\.\\d+)?/g);d.remove();if(!m2)return 'none';"
    "var l=0.2126*m2[0]+0.7152*m2[1]+0.0722*m2[2];return l<128?'light':'dark';})()";

int web_band_style_read(struct web_band *band, WebKitWebView *view, GAsyncResult *result) {
    WebKitJavascriptResult *r = webkit_web_view_run_javascript_in_world_finish(view, result, NULL);
    if (!r) return 0;
    char *style = jsc_value_to_string(webkit_javascript_result_get_js_value(r));
    int wanted = -1;
    if (style && strcmp(style, "light") == 0) wanted = DC_STATUS_BAR_LIGHT;
    else if (style && strcmp(style, "dark") == 0) wanted = DC_STATUS_BAR_DARK;
    g_free(style);
    webkit_javascript_result_unref(r);
    if (wanted < 0) return 0;
    band->wanted_style = wanted;
    return 1;
}

void web_band_send_style(struct web_band *band, const struct web_pane *pane) {
    if (band->wanted_style < 0 || pane->role != DC_PRIMARY || !pane->configured || band->sent_style == band->wanted_style) return;
    dc_status_bar_style(band->dc, band->wanted_style);
    band->sent_style = band->wanted_style;
}

/* SPDX-License-Identifier: MIT */
/* diptych-web's icon for the page: its apple-touch-icon (else its icon link), read by a probe in
   diptych-web's own script world and given to the compositor; a local icon only from the page's
   folder, opened without blocking. */
#define _GNU_SOURCE
#include <png.h>
#include "view.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest icon file read (a 4096x4096 PNG is far smaller than this in practice). */
#define ICON_FILE_LIMIT (8u << 20)

#define ICON_SIDE 180

/* The page's apple-touch-icon (else its icon link), drawn into a canvas of ICON_SIDE pixels
   and posted back as base64 RGBA; or, for a local icon, its file URL (read here, as a PNG, only
   from the page's folder: a file: page may read other files, but its icon is its own); or
   "error: why". */
static const char *icon_probe =
    "(function(){var l=document.querySelector('link[rel~=\"apple-touch-icon\"]')||document.querySelector('link[rel~=\"icon\"]');"
    "if(!l)return;var h=window.webkit.messageHandlers.diptychIcon,i=new Image();if(l.href.indexOf('file:')===0){h.postMessage('file:'+l.href);return;}"
    "i.onload=function(){try{var s=" G_STRINGIFY(ICON_SIDE) ",c=document.createElement('canvas');c.width=s;c.height=s;"
    "var g=c.getContext('2d');g.drawImage(i,0,0,s,s);var d=g.getImageData(0,0,s,s).data,b='';"
    "for(var k=0;k<d.length;k+=8192)b+=String.fromCharCode.apply(null,d.subarray(k,k+8192));h.postMessage(btoa(b));}"
    "catch(e){h.postMessage(location.protocol==='file:'&&i.src.indexOf('file:')===0?'file:'+i.src:'error: '+e);}};"
    "i.onerror=function(){h.postMessage('error: cannot load '+l.href);};i.src=l.href;})()";

/* The path of a file: URL when it names a file in the folder of the page (a file: page) or
   below it, symlinks resolved; else NULL, said why. A page may point its icon link anywhere:
   only its own folder is read for it. */
static char *icon_path_in_page_folder(const char *page_uri, const char *uri) {
    char *page = g_str_has_prefix(page_uri, "file:") ? g_filename_from_uri(page_uri, NULL, NULL) : NULL;
    char *wanted = g_filename_from_uri(uri, NULL, NULL);
    char *folder = page ? g_path_get_dirname(page) : NULL;
    char *real_folder = folder ? realpath(folder, NULL) : NULL, *real = wanted ? realpath(wanted, NULL) : NULL;
    char *ok = NULL;
    size_t n = real_folder ? strlen(real_folder) : 0;
    if (real && real_folder && strncmp(real, real_folder, n) == 0 && (real[n] == '/' || (n == 1 && real[0] == '/'))) ok = g_strdup(real);
    else if (web_debug) say("no icon from the page (%s is not in the page's folder)", uri);
    free(real); free(real_folder);
    g_free(folder); g_free(wanted); g_free(page);
    return ok;
}

/* The bytes of a regular file of at most `limit` bytes, opened without blocking (a FIFO or a
   device a page names is refused, never waited on); NULL otherwise. */
static guchar *read_regular_file(const char *path, size_t limit, size_t *size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return NULL;
    struct stat st;
    guchar *bytes = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= limit) {
        bytes = g_malloc((gsize)st.st_size);
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, bytes + got, (size_t)st.st_size - got);
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) { g_free(bytes); bytes = NULL; }
        else *size = got;
    }
    close(fd);
    return bytes;
}

/* A local PNG icon in the page's folder, averaged down to ICON_SIDE pixels as premultiplied
   ARGB (NULL: not one). */
static uint32_t *read_icon_file(const char *page_uri, const char *uri) {
    char *path = icon_path_in_page_folder(page_uri, uri);
    if (!path) return NULL;
    size_t size = 0;
    guchar *file = read_regular_file(path, ICON_FILE_LIMIT, &size);
    g_free(path);
    if (!file) return NULL;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    uint32_t *out = NULL;
    if (png_image_begin_read_from_memory(&image, file, size) && image.width > 0 && image.height > 0 && image.width <= 4096 && image.height <= 4096) {
        image.format = PNG_FORMAT_BGRA;
        guchar *px = g_malloc((gsize)PNG_IMAGE_SIZE(image));
        if (png_image_finish_read(&image, NULL, px, 0, NULL)) {
            out = g_new(uint32_t, ICON_SIDE * ICON_SIDE);
            int w = (int)image.width, h = (int)image.height;
            for (int oy = 0; oy < ICON_SIDE; oy++) {
                int y0 = oy * h / ICON_SIDE, y1 = (oy + 1) * h / ICON_SIDE > y0 ? (oy + 1) * h / ICON_SIDE : y0 + 1;
                for (int ox = 0; ox < ICON_SIDE; ox++) {
                    int x0 = ox * w / ICON_SIDE, x1 = (ox + 1) * w / ICON_SIDE > x0 ? (ox + 1) * w / ICON_SIDE : x0 + 1;
                    uint64_t a = 0, r = 0, g = 0, b = 0, n = 0;
                    for (int y = y0; y < y1; y++) for (int x = x0; x < x1; x++) {
                        const guchar *p = px + ((size_t)y * (size_t)w + (size_t)x) * 4;
                        b += (uint64_t)p[0] * p[3]; g += (uint64_t)p[1] * p[3]; r += (uint64_t)p[2] * p[3]; a += p[3]; n++;
                    }
                    out[oy * ICON_SIDE + ox] = (uint32_t)(a / n) << 24 | (uint32_t)(r / n / 255) << 16 | (uint32_t)(g / n / 255) << 8 | (uint32_t)(b / n / 255);
                }
            }
        }
        g_free(px);
    }
    png_image_free(&image);
    g_free(file);
    return out;
}

/* Gives the compositor the page's icon; logged as iconSent (with where it came from). */
static void send_icon(dc_connection *dc, const uint32_t *argb, const char *source) {
    if (dc_set_icon(dc, ICON_SIDE, argb, ICON_SIDE * 4) != 0) {
        say("setIcon: %s", dc_error(dc));
        return;
    }
    GString *s = log_start("iconSent");
    g_string_append(s, ",\"source\":");
    json_string(s, source);
    log_line(s);
    g_string_free(s, TRUE);
}

/* The icon came: premultiplied and given to the compositor. */
void on_icon_message(WebKitUserContentManager *manager, WebKitJavascriptResult *result, gpointer data) {
    (void)manager;
    const struct web_view *view = data;
    char *text = jsc_value_to_string(webkit_javascript_result_get_js_value(result));
    if (!text) return;
    if (strncmp(text, "file:", 5) == 0) {
        uint32_t *argb = read_icon_file(view->uri, text + 5);
        if (!argb) {
            if (web_debug) say("no icon from the page (%s is not a PNG in its folder that can be read)", text + 5);
        } else {
            send_icon(view->dc, argb, "file");
        }
        g_free(argb);
        g_free(text);
        return;
    }
    if (strncmp(text, "error:", 6) == 0) {
        if (web_debug) say("no icon from the page (%s)", text + 7);
        g_free(text);
        return;
    }
    gsize n = 0;
    guchar *rgba = g_base64_decode(text, &n);
    g_free(text);
    if (n == (gsize)ICON_SIDE * ICON_SIDE * 4) {
        uint32_t *argb = g_new(uint32_t, ICON_SIDE * ICON_SIDE);
        for (gsize i = 0; i < (gsize)ICON_SIDE * ICON_SIDE; i++) {
            uint32_t r = rgba[4 * i], g = rgba[4 * i + 1], b = rgba[4 * i + 2], a = rgba[4 * i + 3];
            argb[i] = a << 24 | (r * a + 127) / 255 << 16 | (g * a + 127) / 255 << 8 | (b * a + 127) / 255;
        }
        send_icon(view->dc, argb, "canvas");
        g_free(argb);
    }
    g_free(rgba);
}

void probe_icon(WebKitWebView *webkit) { webkit_web_view_run_javascript_in_world(webkit, icon_probe, SCRIPT_WORLD, NULL, NULL, NULL); }

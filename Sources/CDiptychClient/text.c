/* SPDX-License-Identifier: MIT */
/* Text in the library's small bitmap font (Assets/font/diptych-5x7.txt): each character of
   printable ASCII a 5 x 7 glyph on a 6-pixel advance, every font pixel `scale` x `scale` buffer
   pixels; any other character a '?'. The Swift and Python libraries draw the same pixels from
   the same generated table. */
#include "diptych-client.h"
#include "font-table.h"

/* The next character of UTF-8 text as its glyph's index (a '?' for anything but printable
   ASCII, a malformed byte included), moving *s past it. */
static int next_glyph(const unsigned char **s) {
    unsigned char c = *(*s)++;
    if (c >= 0x20 && c <= 0x7E) return c - 0x20;
    /* A multi-byte character is one '?': its continuation bytes are skipped. */
    if (c >= 0xC0) while ((**s & 0xC0) == 0x80) (*s)++;
    return '?' - 0x20;
}

int dc_text_width(const char *text, int scale) {
    if (!text || scale < 1) return 0;
    int n = 0;
    for (const unsigned char *s = (const unsigned char *)text; *s;) { next_glyph(&s); n++; }
    return n * 6 * scale;
}

int dc_draw_text(dc_buffer *b, int x, int y, int scale, const char *text, uint32_t color) {
    if (!b || !text || scale < 1) return 0;
    int pen = x;
    for (const unsigned char *s = (const unsigned char *)text; *s; pen += 6 * scale) {
        const unsigned char *rows = dc_font_rows[next_glyph(&s)];
        for (int r = 0; r < 7; r++)
            for (int col = 0; col < 5; col++) {
                if (!(rows[r] & (0x10 >> col))) continue;
                int x0 = pen + col * scale, y0 = y + r * scale, x1 = x0 + scale, y1 = y0 + scale;
                if (x0 < 0) x0 = 0;
                if (y0 < 0) y0 = 0;
                if (x1 > b->width) x1 = b->width;
                if (y1 > b->height) y1 = b->height;
                for (int j = y0; j < y1; j++)
                    for (int i = x0; i < x1; i++) b->pixels[(size_t)j * (size_t)(b->stride / 4) + (size_t)i] = 0xFF000000u | color;
            }
    }
    return pen - x;
}

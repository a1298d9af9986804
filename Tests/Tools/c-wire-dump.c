/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* Makes libdiptych-client send every request it has over a socket pair (after a configure and a
   sync from the other end, hand-framed), then writes the bytes it sent to stdout, for
   ProtocolConformanceTests to read against Assets/protocol/diptych-protocol.json. */
#include "diptych-client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t put(uint8_t *b, size_t at, uint64_t v, int n) { for (int i = 0; i < n; i++) b[at + i] = (uint8_t)(v >> (8 * i)); return at + (size_t)n; }

/* A frame: header, then the body. */
static void frame(int fd, uint16_t opcode, const uint8_t *body, size_t n) {
    uint8_t f[256];
    size_t at = put(f, 0, 8 + n, 4);
    at = put(f, at, DC_PROTOCOL_VERSION, 2);
    at = put(f, at, opcode, 2);
    memcpy(f + at, body, n);
    if (write(fd, f, at + n) < 0) exit(2);
}

int main(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 2;
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[0]);
    setenv("DIPTYCH_SOCKET_FD", fd, 1);
    char err[256];
    dc_connection *c = dc_connect("dump", 0, err, sizeof err);  /* hello */
    if (!c) { fprintf(stderr, "%s\n", err); return 2; }
    /* A configure (serial 7, 64 x 32 px) and a sync (serial 9). */
    uint8_t body[128];
    size_t at = put(body, 0, 7, 4);
    at = put(body, at, 0, 1);
    for (int i = 0; i < 4; i++) at = put(body, at, i < 2 ? 0 : 32, 4);
    at = put(body, at, 64, 4); at = put(body, at, 32, 4);
    for (int i = 0; i < 4; i++) at = put(body, at, 0, 1);
    double one = 2, zero = 0;
    uint64_t bits;
    memcpy(&bits, &one, 8); at = put(body, at, bits, 8);
    memcpy(&bits, &zero, 8);
    for (int i = 0; i < 4; i++) at = put(body, at, bits, 8);
    frame(sv[1], 100, body, at);
    size_t s = put(body, 0, 9, 4);
    s = put(body, s, 1000, 8);
    frame(sv[1], 108, body, s);
    dc_event e;
    if (dc_next_event(c, &e, 1) != 1 || e.type != DC_CONFIGURE) return 3;
    if (dc_ack(c, e.configure.serial) != 0) return 3;
    if (dc_next_event(c, &e, 1) != 1 || e.type != DC_SYNC) return 3;
    dc_next_event(c, &e, 0);                                      /* answers the sync: syncDone */
    dc_buffer *b = dc_buffer_get(c, 64, 32);                      /* createBuffer */
    dc_rect d = { 1, 2, 3, 4 }, src = { 5, 6, 70, 40 };
    if (!b || dc_commit(c, b, &d, 1) != 0) return 4;              /* commit */
    dc_buffer *b2 = dc_buffer_get(c, 64, 32);
    if (!b2 || dc_snapshot(c, b2, 11) != 0) return 4;             /* snapshot */
    dc_buffer *b3 = dc_buffer_get(c, 64, 32);
    if (!b3 || dc_pip_commit(c, b3, 1, &src, NULL, 0) != 0) return 4;  /* pipCommit */
    if (dc_pip_close(c) != 0) return 4;                           /* pipClose */
    if (dc_status_bar_style(c, DC_STATUS_BAR_LIGHT) != 0) return 4;   /* statusBarStyle */
    dc_buffer *b4 = dc_buffer_get(c, 32, 32);
    if (!b4 || dc_screen_commit(c, 2, b4, NULL, 0) != 0) return 4;    /* screenCommit */
    if (dc_screen_release(c, 2) != 0) return 4;                   /* screenRelease */
    static uint32_t icon[120 * 120];
    if (dc_set_icon(c, 120, icon, 120 * 4) != 0) return 4;        /* createBuffer, setIcon, destroyBuffer */
    dc_text_state text = { 1, DC_PURPOSE_EMAIL, DC_HINT_NO_AUTOCORRECT, DC_RETURN_GO, 10, 20, 2, 18, "Hi. " };
    if (dc_text_input(c, &text) != 0) return 4;                    /* textInput (serial 0: no tap yet) */
    text.hints = DC_HINT_HAS_PREVIOUS | DC_HINT_HAS_NEXT;
    if (dc_text_input_serial(c, &text, 77) != 0) return 4;         /* textInput, serial 77 */
    dc_menu_item items[3] = { { "Fruit", DC_MENU_HEADER }, { "Äpfel", DC_MENU_SELECTED | DC_MENU_INDENTED }, { "None", DC_MENU_DISABLED } };
    dc_rect anchor = { 40, 120, 200, 30 };
    if (dc_present_menu(c, 5, anchor, "Größe", items, 3) != 0) return 4;        /* presentMenu */
    dc_alert_button buttons[2] = { { "Cancel", DC_BUTTON_STYLE_CANCEL }, { "OK", DC_BUTTON_STYLE_DEFAULT } };
    if (dc_present_alert(c, 6, "Sign in", "Grüße", DC_ALERT_FIELD_SECURE, "Password", "", buttons, 2) != 0) return 4;  /* presentAlert */
    if (dc_dismiss_presented(c, 6) != 0) return 4;                /* dismissPresented */
    if (dc_idle_inhibit(c, 1) != 0) return 4;                     /* idleInhibit */
    /* What it sent, as it sent it. */
    shutdown(sv[0], SHUT_WR);
    uint8_t buf[65536];
    ssize_t n;
    while ((n = read(sv[1], buf, sizeof buf)) > 0) fwrite(buf, 1, (size_t)n, stdout);
    dc_disconnect(c);
    return 0;
}

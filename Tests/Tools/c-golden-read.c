/* SPDX-License-Identifier: MIT */
/* The C library as a decoder of the golden events (Assets/protocol/golden/NAME.bin): each file
   named is written into a socket pair the library reads as its connection (DIPTYCH_SOCKET_FD),
   and the dc_event it makes of it is printed as one JSON line with the wire's field names (and
   "_name", the event's), for
   GoldenMessageTests to compare with the description's example. */
#define _GNU_SOURCE
#include "c-pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void rect(const char *name, dc_rect r) { printf(",\"%s\":[%d,%d,%d,%d]", name, r.x, r.y, r.width, r.height); }
static void num(const char *name, double v) { printf(",\"%s\":%.17g", name, v); }
static void str(const char *name, const char *v) {
    printf(",\"%s\":\"", name);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static int one(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return perror(path), 1;
    unsigned char bytes[65536];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    int sv[2];
    dc_connection *c = connect_over_pair("golden", &sv[1]);
    if (!c) return 1;
    dc_answer_sync(c, 0);
    if (write(sv[1], bytes, n) != (ssize_t)n) return 1;
    dc_event e;
    if (dc_next_event(c, &e, 1) != 1) return fprintf(stderr, "%s: %s\n", path, dc_error(c)), 1;
    printf("{\"_name\":\"%s\"", dc_event_name((int)e.type) ? dc_event_name((int)e.type) : "?");
    switch (e.type) {
    case DC_CONFIGURE:
        num("serial", e.configure.serial); num("role", e.configure.role); rect("frame", e.configure.frame);
        num("pixelWidth", e.configure.pixel_width); num("pixelHeight", e.configure.pixel_height);
        num("horizontalSizeClass", e.configure.horizontal_size_class); num("verticalSizeClass", e.configure.vertical_size_class);
        num("orientation", e.configure.orientation); num("arrangement", e.configure.arrangement); num("scale", e.configure.scale);
        num("safeTop", e.configure.safe_top); num("safeLeft", e.configure.safe_left);
        num("safeBottom", e.configure.safe_bottom); num("safeRight", e.configure.safe_right);
        break;
    case DC_SIZE_CLASS_CHANGED:
        num("horizontal", e.size_class_changed.horizontal); num("vertical", e.size_class_changed.vertical);
        num("previousHorizontal", e.size_class_changed.previous_horizontal); num("previousVertical", e.size_class_changed.previous_vertical);
        break;
    case DC_LIFECYCLE: num("event", e.lifecycle); break;
    case DC_SNAPSHOT_REQUEST:
        num("serial", e.snapshot_request.serial); rect("frame", e.snapshot_request.frame); num("pixelWidth", e.snapshot_request.pixel_width);
        num("pixelHeight", e.snapshot_request.pixel_height); num("horizontalSizeClass", e.snapshot_request.horizontal_size_class);
        break;
    case DC_TOUCH:
        num("id", e.touch.id); num("phase", e.touch.phase); num("x", e.touch.x); num("y", e.touch.y); num("time", e.touch.time);
        num("serial", e.touch.serial);
        break;
    case DC_PEN:
        num("phase", e.pen.phase); num("x", e.pen.x); num("y", e.pen.y); num("pressure", e.pen.pressure); num("tiltX", e.pen.tilt_x);
        num("tiltY", e.pen.tilt_y); num("time", e.pen.time); num("tool", e.pen.tool); num("buttons", e.pen.buttons);
        num("serial", e.pen.serial);
        break;
    case DC_FRAME_DONE: num("time", (double)e.frame_done.time); num("refresh", e.frame_done.refresh); num("seq", (double)e.frame_done.seq); break;
    case DC_ERROR: num("code", e.error.code); str("message", e.error.message); break;
    case DC_SYNC: num("serial", e.sync.serial); num("time", (double)e.sync.time); break;
    case DC_RELEASE: num("buffer", e.release.buffer); break;
    case DC_SCREEN_CONNECTED: case DC_SCREEN_DISCONNECTED:
        num("screen", e.screen.screen); num("pixelWidth", e.screen.pixel_width); num("pixelHeight", e.screen.pixel_height);
        break;
    case DC_KEYBOARD_FOCUS: num("focused", e.keyboard_focus.focused); break;
    case DC_KEY:
        num("keycode", e.key.keycode); num("keysym", e.key.keysym); str("text", e.key.text); num("state", e.key.state);
        num("modifiers", e.key.modifiers); num("time", e.key.time); num("serial", e.key.serial);
        break;
    case DC_POINTER:
        num("phase", e.pointer.phase); num("x", e.pointer.x); num("y", e.pointer.y); num("button", e.pointer.button);
        num("pressed", e.pointer.pressed); num("dx", e.pointer.dx); num("dy", e.pointer.dy); num("source", e.pointer.source);
        num("time", e.pointer.time); num("serial", e.pointer.serial);
        break;
    case DC_REFUSED: str("request", e.refused.request); str("reason", e.refused.reason); str("message", e.refused.message); break;
    case DC_PIP_ACTION: num("action", e.pip_action.action); break;
    case DC_TEXT_COMMIT: str("text", e.text_commit.text); break;
    case DC_TEXT_DELETE: num("before", e.text_delete.before); num("after", e.text_delete.after); break;
    case DC_KEYBOARD_FRAME:
        rect("frame", e.keyboard_frame.frame); rect("screenFrame", e.keyboard_frame.screen_frame);
        num("duration", e.keyboard_frame.duration); num("local", e.keyboard_frame.local);
        break;
    case DC_MENU_CHOSEN: num("id", e.menu_chosen.id); num("index", e.menu_chosen.index); break;
    case DC_ALERT_ANSWERED: num("id", e.alert_answered.id); num("button", e.alert_answered.button); str("text", e.alert_answered.text); break;
    case DC_DISMISSED: num("id", e.dismissed.id); break;
    case DC_TEXT_INPUT_DISMISSED: break;  /* no fields */
    }
    printf("}\n");
    dc_disconnect(c);
    close(sv[1]);
    return 0;
}

int main(int argc, char **argv) {
    /* dc_event is ABI (soname 1): new events must fit the union as it is. */
    if (argc == 2 && strcmp(argv[1], "--size") == 0) return printf("%zu\n", sizeof(dc_event)), 0;
    for (int i = 1; i < argc; i++)
        if (one(argv[i]) != 0) return 1;
    return 0;
}

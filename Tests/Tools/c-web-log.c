/* SPDX-License-Identifier: MIT */
/* diptych-web's event log of the golden events (Assets/protocol/golden/NAME.bin): each file
   named is read by the C library over a socket pair, and the event is logged by the web
   client's own encoder (Sources/diptych-web/event-log.c) into the log named first, as the app
   "golden". GoldenMessageTests compares the lines with the Swift encoder's. */
#define _GNU_SOURCE
#include "c-pair.h"
#include "../../Sources/diptych-web/event-log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    event_log.path = argv[1];
    snprintf(event_log.label, sizeof event_log.label, "golden");
    for (int i = 2; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) return perror(argv[i]), 1;
        unsigned char bytes[65536];
        size_t n = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        int other;
        dc_connection *c = connect_over_pair("golden", &other);
        if (!c) return 1;
        dc_answer_sync(c, 0);
        if (write(other, bytes, n) != (ssize_t)n) return 1;
        dc_event e;
        if (dc_next_event(c, &e, 1) != 1) return fprintf(stderr, "%s: %s\n", argv[i], dc_error(c)), 1;
        log_event(&e);
        dc_disconnect(c);
        close(other);
    }
    return 0;
}

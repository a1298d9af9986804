/* SPDX-License-Identifier: MIT */
/* The C library as a minimal app for ConformanceTests: connected through DIPTYCH_SOCKET_FD, it
   says hello, acks every configure it is handed, lets the library answer syncs, and prints one
   line an event it is handed (an error: its code's name) and, at the end, "end". */
#define _GNU_SOURCE
#include "diptych-client.h"

#include <stdio.h>

int main(void) {
    char err[256];
    dc_connection *c = dc_connect("conformance", 0, err, sizeof err);
    if (!c) return fprintf(stderr, "%s\n", err), 1;
    dc_event e;
    int r;
    while ((r = dc_next_event(c, &e, 1)) == 1) {
        if (e.type == DC_ERROR) printf("error %s\n", dc_error_code_name(e.error.code));
        else printf("%s\n", dc_event_name((int)e.type));
        if (e.type == DC_CONFIGURE && dc_ack(c, e.configure.serial) != 0) printf("ack failed\n");
        if (e.type == DC_REFUSED) printf("refused %s %s\n", e.refused.request, e.refused.reason);
    }
    printf("end\n");
    dc_disconnect(c);
    return 0;
}

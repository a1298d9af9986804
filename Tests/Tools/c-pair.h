/* SPDX-License-Identifier: MIT */
/* For the C test programs: a connection of the library over one end of a socket pair, as a
   launched app gets it (DIPTYCH_SOCKET_FD); the other end, the fake compositor's, in *other. */
#ifndef C_PAIR_H
#define C_PAIR_H

#include "diptych-client.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

static dc_connection *connect_over_pair(const char *name, int *other) {
    int sv[2];
    char number[16], err[256];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return NULL;
    snprintf(number, sizeof number, "%d", sv[0]);
    setenv("DIPTYCH_SOCKET_FD", number, 1);
    dc_connection *c = dc_connect(name, 0, err, sizeof err);
    if (!c) fprintf(stderr, "%s\n", err);
    *other = sv[1];
    return c;
}

#endif

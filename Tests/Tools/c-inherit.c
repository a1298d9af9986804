/* SPDX-License-Identifier: MIT */
/* What a C app's children inherit of its connection: connects through DIPTYCH_SOCKET_FD (one
   end of a socket pair), then prints whether the variable is still set and whether the
   descriptor is close-on-exec ("unset cloexec" is right); with a descriptor that is no socket,
   prints the library's refusal. Used by InheritedSocketTests. */
#define _GNU_SOURCE
#include "diptych-client.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int sv[2];
    char number[16], err[256] = "";
    if (argc > 1 && strcmp(argv[1], "not-a-socket") == 0) {
        snprintf(number, sizeof number, "%d", open("/dev/null", O_RDONLY));
    } else {
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 2;
        snprintf(number, sizeof number, "%d", sv[0]);
    }
    setenv("DIPTYCH_SOCKET_FD", number, 1);
    dc_connection *c = dc_connect("inherit", 0, err, sizeof err);
    if (!c) {
        printf("refused: %s\n", err);
        return 0;
    }
    int flags = fcntl(dc_fd(c), F_GETFD);
    printf("%s %s\n", getenv("DIPTYCH_SOCKET_FD") ? "set" : "unset", flags >= 0 && (flags & FD_CLOEXEC) ? "cloexec" : "inherited");
    return 0;
}

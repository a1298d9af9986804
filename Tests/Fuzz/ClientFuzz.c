/* SPDX-License-Identifier: MIT */
/* libFuzzer target: libdiptych-client reading from a hostile compositor. The input is what the
   compositor sends (cut in two writes); the library must return events or -1 with an error,
   never crash, read out of bounds or hang. Built by Tests/Fuzz/run.sh with
   clang -fsanitize=fuzzer,address together with the library. */
#include "diptych-client.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 0;
    int big = 1 << 20;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[0]);
    setenv("DIPTYCH_SOCKET_FD", fd, 1);
    char err[256];
    dc_connection *c = dc_connect("fuzz", 0, err, sizeof err);
    if (!c) { close(sv[0]); close(sv[1]); return 0; }
    size_t cut = size ? data[0] % (size + 1) : 0;
    if (write(sv[1], data, cut) < 0) {}
    dc_event e;
    int n = 0;
    while (dc_next_event(c, &e, 0) > 0 && n++ < 10000) {
        /* What an app does with what it was told. */
        if (e.type == DC_CONFIGURE) dc_ack(c, e.configure.serial);
    }
    if (size > cut && write(sv[1], data + cut, size - cut) < 0) {}
    shutdown(sv[1], SHUT_WR);
    while (dc_next_event(c, &e, 0) > 0 && n++ < 20000) {
        if (e.type == DC_CONFIGURE) dc_ack(c, e.configure.serial);
    }
    dc_disconnect(c);
    close(sv[1]);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* A dc_buffer* the library let go is never handed out again as another buffer soon: buffers of
   seven sizes (six are kept), the first let go stays busy with no pixels and cannot be committed;
   then forty buffers of new sizes, none at the first one's address. Prints "ok" or what went
   wrong. Used by GoldenMessageTests. */
#define _GNU_SOURCE
#include "c-pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

int main(void) {
    int other;
    dc_connection *c = connect_over_pair("lifetime", &other);
    if (!c) return 2;
    dc_buffer *first = dc_buffer_get(c, 16, 16);
    for (int i = 1; i < 7; i++) dc_buffer_get(c, 16 + i, 16);
    if (!first->busy || first->pixels) return printf("the first buffer, let go, is not busy without pixels\n"), 1;
    if (dc_commit(c, first, NULL, 0) == 0) return printf("a buffer let go was committed\n"), 1;
    for (int i = 0; i < 40; i++) {
        dc_buffer *b = dc_buffer_get(c, 100 + i, 16);
        if (b == first) return printf("the first buffer's place came back after %d buffers\n", i), 1;
    }
    printf("ok\n");
    return 0;
}

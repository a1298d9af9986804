/* SPDX-License-Identifier: MIT */
/* Saying things on stderr (common.h). */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>

int web_debug;

void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diptych-web: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

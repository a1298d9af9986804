/* SPDX-License-Identifier: MIT */
/* malloc-count.c: counts a process's heap allocations, for `diptych profile --workload client
   --allocation-counter FILE`. Preloaded into the app (LD_PRELOAD=malloc-count.so
   MALLOC_COUNT_FILE=FILE), it adds one to the 64-bit count in FILE's first 8 bytes (a shared
   mapping, so another process reads it as it changes) for every malloc, calloc, realloc,
   reallocarray, memalign, posix_memalign, aligned_alloc, valloc and pvalloc, and passes each to
   glibc's own.
     cc -shared -fPIC -O2 -o malloc-count.so malloc-count.c                                    */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static uint64_t *counter;

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (ftruncate(fd, 8) == 0) {
        void *p = mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) counter = p;
    }
    close(fd);
}

static void counted(void) {
    if (counter) __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n) { counted(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { counted(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { counted(); return __libc_realloc(p, n); }
void *memalign(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }
void *aligned_alloc(size_t align, size_t n) { counted(); return __libc_memalign(align, n); }
void *reallocarray(void *p, size_t n, size_t size) {
    if (size && n > (size_t)-1 / size) { errno = ENOMEM; return NULL; }
    counted();
    return __libc_realloc(p, n * size);
}
void *valloc(size_t n) { counted(); return __libc_valloc(n); }
void *pvalloc(size_t n) { counted(); return __libc_pvalloc(n); }
int posix_memalign(void **out, size_t align, size_t n) {
    if (align == 0 || align % sizeof(void *) != 0 || (align & (align - 1)) != 0) return EINVAL;
    counted();
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

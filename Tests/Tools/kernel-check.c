/* SPDX-License-Identifier: MIT */
/* kernel-check: the area-average downscale (Sources/CRenderKernels) checked against itself and
   against its definition.
     cc -std=gnu11 -O2 -ISources/CRenderKernels/include -ISources/CRenderKernels
        Tests/Tools/kernel-check.c (every .c file of Sources/CRenderKernels) -lm -o kernel-check
   Modes:
     kernel-check [--seed N] [--cases N] [--case I] [--digests]
       A few fixed cases, then random ones (source sizes from 1x1 to ~700x700, scales in (1, 2]
       including exactly 2 and just above 1, phases that put the boxes partly or wholly outside
       the image, destination rectangles at offsets, strides with slack, pointers at odd byte
       offsets, random pixels).
       Every path dp_box_isa_available reports is compared bit for bit with the scalar path; no
       path may write outside the rectangle (a canary around it) nor read outside the source (it
       ends, or starts, at an inaccessible page); the scalar output is within +-2 of the exact
       area average computed here from the header's definition. Bad parameters must give -1 and
       a path this build or CPU does not run -2. --case I runs only case I of that seed (what a
       failure names). One line a path; exit status 1 on any failure. The digest of the scalar
       outputs printed is the same on every architecture for the same seed and number of cases
       (--digests prints each case's, to find the first that differs).
     kernel-check --count ISA W H
       One downscale on path ISA (a name: scalar, sse2, ..., neon; or auto) of a random
       ceil(W*r) x ceil(H*r) image to W x H (r = 2732/2048, ax = ay = r), and nothing else heavy,
       for counting instructions; ISA `none` does everything but the downscale, so that the
       setup's count can be subtracted.
     kernel-check --list
       The paths this build and CPU run, one name a line. */
#define _GNU_SOURCE
#include "box_scale.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* PRNG: splitmix64 to seed each case, xorshift64* within it                  */
/* ------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

typedef struct { uint64_t s; } rng_t;

static uint64_t rnext(rng_t *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int rint_in(rng_t *r, int lo, int hi) /* uniform in [lo, hi] */
{
    return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1));
}

static double runit(rng_t *r) /* [0, 1) */
{
    return (double)(rnext(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int chance(rng_t *r, int percent) { return rint_in(r, 0, 99) < percent; }

/* ------------------------------------------------------------------------- */
/* The diagnostics a crash prints                                            */
/* ------------------------------------------------------------------------- */

static char crash_case[512];
static const char *crash_path = "setup";

static void on_fault(int sig)
{
    char msg[800];
    int n = snprintf(msg, sizeof msg, "kernel-check: FAIL: signal %d (%s) on path %s in %s\n", sig,
                     sig == SIGSEGV ? "SIGSEGV: an access outside the buffers?" : "fault", crash_path,
                     crash_case[0] ? crash_case : "(no case)");
    fflush(stdout); /* (not async-signal-safe, but we are ending anyway: keeps the lines before) */
    if (n > 0)
        (void)!write(2, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
    _exit(1);
}

/* ------------------------------------------------------------------------- */
/* Buffers                                                                   */
/* ------------------------------------------------------------------------- */

static size_t page_size;

/* A source image of `bytes` bytes between two inaccessible pages: flush against the one after
   it (at_end) or `offset` bytes after the one before it. */
typedef struct {
    unsigned char *map;
    size_t map_len;
    unsigned char *p;
} guarded_t;

static int guarded_alloc(guarded_t *g, size_t bytes, int at_end, size_t offset)
{
    size_t data = (bytes + offset + page_size - 1) / page_size * page_size;
    g->map_len = data + 2 * page_size;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED)
        return -1;
    if (mprotect(g->map, page_size, PROT_NONE) != 0 ||
        mprotect(g->map + page_size + data, page_size, PROT_NONE) != 0)
        return -1;
    g->p = at_end ? g->map + page_size + data - bytes : g->map + page_size + offset;
    return 0;
}

static void guarded_free(guarded_t *g) { munmap(g->map, g->map_len); }

static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static unsigned char canary_byte(size_t i) { return (unsigned char)(0xA5u ^ (i * 37u) ^ (i >> 8)); }

/* A destination: `pre` canary bytes, the image (rows x stride), `post` canary bytes; the image
   starts `align` bytes past a 64-byte boundary. */
#define DST_PRE 64
#define DST_POST 64
typedef struct {
    unsigned char *block;
    size_t len;           /* pre + image + post */
    unsigned char *start; /* the first canary byte */
    unsigned char *img;   /* pixel (0, 0) */
} dstbuf_t;

static int dst_alloc(dstbuf_t *d, size_t image_bytes, int align)
{
    d->len = DST_PRE + image_bytes + DST_POST;
    d->block = malloc(d->len + 128);
    if (!d->block)
        return -1;
    unsigned char *a = (unsigned char *)(((uintptr_t)d->block + DST_PRE + 63) & ~(uintptr_t)63);
    d->img = a + align;
    d->start = d->img - DST_PRE;
    for (size_t i = 0; i < d->len; i++)
        d->start[i] = canary_byte(i);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* A case                                                                    */
/* ------------------------------------------------------------------------- */

typedef struct {
    int sw, sh, sstride, src_at_end, src_offset, pixels;
    int dw_img, dh_img, dstride, dalign; /* the destination image around the rectangle */
    int dx, dy, w, h;
    double ax, bx, ay, by;
    uint32_t flat; /* pixels == 3 (flat): the colour */
} case_t;

static const char *pixel_kinds[] = {"random", "extremes", "gradient", "flat"};

static void describe(const case_t *c, int index, uint64_t seed, char *out, size_t n)
{
    snprintf(out, n,
             "case %d of seed %" PRIu64 " (kernel-check --seed %" PRIu64 " --case %d): source %dx%d stride %d "
             "(%s, %s pixels), destination rectangle %dx%d at (%d,%d) in a %dx%d image of stride %d at "
             "64-byte offset %d, ax %.17g bx %.17g ay %.17g by %.17g",
             index, seed, seed, index, c->sw, c->sh, c->sstride,
             c->src_at_end ? "ending at a guard page" : "starting after a guard page",
             pixel_kinds[c->pixels], c->w, c->h, c->dx, c->dy, c->dw_img, c->dh_img, c->dstride,
             c->dalign, c->ax, c->bx, c->ay, c->by);
}

/* A product rounded on its own: the case parameters and the reference must come out the same on
   every architecture, and a compiler may otherwise fuse a product with a sum (AArch64 does). So
   is each random draw its own statement: the order of calls within an expression is unspecified. */
static double mul(double a, double b)
{
    volatile double p = a * b;
    return p;
}

static double pick_scale(rng_t *r)
{
    int k = rint_in(r, 0, 99);
    if (k < 15)
        return 2.0;
    if (k < 20)
        return nextafter(1.0, 2.0);
    if (k < 30) {
        int e = rint_in(r, 3, 12);
        double u = runit(r);
        return 1.0 + mul(pow(10.0, -(double)e), 1.0 + u);
    }
    if (k < 36)
        return 1.333984375; /* 2732 -> 2048 */
    if (k < 42)
        return 1.2; /* not a binary fraction: with a centred phase, ties that rounding decides */
    if (k < 50) {
        /* ratios whose boxes often sit symmetrically on pixels (ties in the weights' rounding) */
        static const double common[] = {1.5,       1.25, 1.75, 4.0 / 3.0, 5.0 / 3.0, 1.6, 1.125, 1.2,
                                        1.1,       1.4,  1.8,  1.9,       1.0 / 0.7, 1.0 / 0.9};
        return common[rint_in(r, 0, (int)(sizeof common / sizeof common[0]) - 1)];
    }
    if (k < 53)
        return nextafter(2.0, 1.0);
    double a = 1.0 + runit(r);
    return a > 1.0 ? a : 2.0;
}

/* Where the boxes of `count` destination pixels from `d0` start: the phase b such that pixel d0
   starts at a source position chosen to exercise the edges. */
static double pick_phase(rng_t *r, double a, int d0, int count, int size)
{
    double s0, u;
    int k = rint_in(r, 0, 99), n;
    if (k < 8)
        return 0.0; /* aligned grid */
    if (k < 18) {
        n = rint_in(r, 1, 2000);
        u = runit(r);
        s0 = -(double)n - u; /* left of / above the image */
    } else if (k < 28) {
        n = rint_in(r, 0, 2000);
        u = runit(r);
        s0 = (double)size + n + u; /* right of / below it */
    } else if (k < 40) {
        u = runit(r);
        s0 = (double)size - mul(a, count) + mul(u, 4.0) - 2.0; /* ends near the far edge */
    } else if (k < 48) {
        s0 = -mul(runit(r), 3.0); /* starts a little before the image */
    } else if (k < 60) {
        /* pixel d0's box centred on a pixel (b = 1/2 - a/2 + whole pixels): with a ratio such as
           1.2 every few boxes are, and their outer weights tie */
        u = runit(r);
        double c = 0.5 - mul(a, 0.5);
        return c + floor(mul(u, size + 2) - 1.0 - mul(a, d0) - c);
    } else {
        s0 = mul(runit(r), size + 2) - 1.0;
    }
    if (chance(r, 15))
        s0 = floor(s0); /* whole-pixel phase */
    else if (chance(r, 10))
        s0 = floor(s0) + 0.5;
    return s0 - mul(a, d0);
}

static void make_case(case_t *c, rng_t *r)
{
    c->sw = chance(r, 15) ? rint_in(r, 1, 4) : rint_in(r, 1, 700);
    c->sh = chance(r, 15) ? rint_in(r, 1, 4) : rint_in(r, 1, 700);
    c->sstride = 4 * c->sw + (chance(r, 50) ? 0 : (chance(r, 70) ? 4 * rint_in(r, 1, 16) : rint_in(r, 1, 67)));
    c->src_at_end = chance(r, 50);
    c->src_offset = c->src_at_end ? 0 : (chance(r, 30) ? 0 : rint_in(r, 1, 63));
    int k = rint_in(r, 0, 99);
    c->pixels = k < 60 ? 0 : (k < 80 ? 1 : (k < 90 ? 2 : 3));
    c->flat = (uint32_t)rnext(r);
    c->w = chance(r, 25) ? rint_in(r, 1, 8) : rint_in(r, 1, 400);
    c->h = chance(r, 25) ? rint_in(r, 1, 3) : rint_in(r, 1, 50);
    c->dx = chance(r, 30) ? 0 : rint_in(r, 1, 50);
    c->dy = chance(r, 30) ? 0 : rint_in(r, 1, 10);
    c->dw_img = c->dx + c->w + rint_in(r, 0, 3);
    c->dh_img = c->dy + c->h + rint_in(r, 0, 2);
    c->dstride = 4 * c->dw_img + (chance(r, 40) ? 0 : (chance(r, 70) ? 4 * rint_in(r, 1, 16) : rint_in(r, 1, 67)));
    c->dalign = chance(r, 25) ? 0 : rint_in(r, 1, 63);
    c->ax = pick_scale(r);
    c->ay = chance(r, 30) ? c->ax : pick_scale(r);
    c->bx = pick_phase(r, c->ax, c->dx, c->w, c->sw);
    c->by = pick_phase(r, c->ay, c->dy, c->h, c->sh);
}

/* The first cases are fixed: whole frames at the emulation's ratio, and the ratio 1.2 with boxes
   centred on pixels every fifth column, whose weights tie before rounding (a fused multiply-add
   in the weights' arithmetic decides those ties differently from a separate multiply and add). */
#define FIXED_CASES 4
static void fixed_case(case_t *c, int index)
{
    static const struct {
        int sw, sh, sstride, dx, dy, w, h, dw_img, dh_img, dstride, dalign;
        double ax, bx, ay, by;
    } f[FIXED_CASES] = {
        {683, 512, 4 * 683, 0, 0, 512, 384, 512, 384, 4 * 512, 0, 1.333984375, 0, 1.333984375, 0},
        {480, 360, 4 * 480 + 64, 0, 0, 400, 50, 400, 50, 4 * 400, 0, 1.2, 0.1, 1.2, 0.1},
        {500, 64, 4 * 500 + 7, 3, 2, 397, 40, 401, 43, 4 * 401 + 12, 5, 1.2, -0.1, 1.2, 0.9},
        {300, 40, 4 * 300, 1, 1, 150, 30, 152, 32, 4 * 152, 16, 2.0, -0.5, 0x1.0000000000001p+0, -0.25},
    };
    c->sw = f[index].sw;
    c->sh = f[index].sh;
    c->sstride = f[index].sstride;
    c->dx = f[index].dx;
    c->dy = f[index].dy;
    c->w = f[index].w;
    c->h = f[index].h;
    c->dw_img = f[index].dw_img;
    c->dh_img = f[index].dh_img;
    c->dstride = f[index].dstride;
    c->dalign = f[index].dalign;
    c->ax = f[index].ax;
    c->bx = f[index].bx;
    c->ay = f[index].ay;
    c->by = f[index].by;
    c->pixels = 0;
}

static void fill_source(const case_t *c, unsigned char *src, rng_t *r)
{
    for (int y = 0; y < c->sh; y++) {
        unsigned char *row = src + (size_t)y * c->sstride;
        switch (c->pixels) {
        case 0: /* random bytes */
            for (int i = 0; i < 4 * c->sw; i += 8) {
                uint64_t v = rnext(r);
                int n = 4 * c->sw - i < 8 ? 4 * c->sw - i : 8;
                memcpy(row + i, &v, (size_t)n);
            }
            break;
        case 1: /* only 0x00 and 0xFF bytes */
            for (int i = 0; i < 4 * c->sw; i += 64) {
                uint64_t v = rnext(r);
                for (int j = 0; j < 64 && i + j < 4 * c->sw; j++)
                    row[i + j] = (v >> j) & 1 ? 0xFF : 0x00;
            }
            break;
        case 2: /* smooth */
            for (int x = 0; x < c->sw; x++) {
                unsigned char px[4] = {(unsigned char)(x * 3 + y), (unsigned char)(x + y * 2),
                                       (unsigned char)(255 - x), (unsigned char)(y * 5)};
                memcpy(row + 4 * x, px, 4);
            }
            break;
        default:
            for (int x = 0; x < c->sw; x++)
                memcpy(row + 4 * x, &c->flat, 4);
            break;
        }
        /* the slack after a row: junk, which must not matter */
        for (int i = 4 * c->sw; i < c->sstride && y + 1 < c->sh; i++)
            row[i] = (unsigned char)rnext(r);
    }
}

/* The weights of the source pixels (clamped indices) that destination index X covers along one
   axis, straight from the definition: box [a*X + b, a*(X+1) + b), pixel k covers [k, k+1),
   weight overlap / a, pixels outside clamped to the edge. At most 4 terms. */
static int exact_axis(double a, double b, long X, int size, int *idx, double *wt)
{
    double x0 = mul(a, (double)X) + b, x1 = mul(a, (double)(X + 1)) + b;
    int n = 0;
    for (double k = floor(x0); k < x1 && n < 4; k += 1.0) {
        double lo = x0 > k ? x0 : k, hi = x1 < k + 1.0 ? x1 : k + 1.0;
        if (!(hi > lo))
            continue;
        idx[n] = k < 0.0 ? 0 : (k > size - 1 ? size - 1 : (int)k);
        wt[n] = (hi - lo) / a;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* The random cases                                                          */
/* ------------------------------------------------------------------------- */

typedef struct {
    int isa;
    const char *name;
    int failed;
    long pixels;
} path_t;

static int failures;
static uint64_t digest = 0xCBF29CE484222325ull; /* FNV-1a of every scalar rectangle, in order */
static int print_digests;                         /* --digests: each case's too */

static uint64_t digest_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("kernel-check: FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    failures++;
}

/* Bytes outside the rectangle must still be the canary; returns the first changed offset from
   pixel (0, 0), or PTRDIFF_MIN if none. */
static ptrdiff_t canary_changed(const dstbuf_t *d, const case_t *c)
{
    for (size_t i = 0; i < d->len; i++) {
        ptrdiff_t off = (ptrdiff_t)i - DST_PRE;
        if (off >= 0) {
            ptrdiff_t row = off / c->dstride, col = off % c->dstride;
            if (row >= c->dy && row < c->dy + c->h && col >= 4 * (ptrdiff_t)c->dx &&
                col < 4 * (ptrdiff_t)(c->dx + c->w))
                continue;
        }
        if (d->start[i] != canary_byte(i))
            return off;
    }
    return PTRDIFF_MIN;
}

static int run_case(int index, uint64_t seed, path_t *paths, int npaths, long *exact_pixels,
                    long err_hist[3], int *worst_err)
{
    rng_t r = {splitmix64(seed ^ splitmix64((uint64_t)index + 1)) | 1};
    case_t c;
    make_case(&c, &r);
    if (index < FIXED_CASES)
        fixed_case(&c, index);
    describe(&c, index, seed, crash_case, sizeof crash_case);
    crash_path = "setup";

    size_t src_bytes = (size_t)(c.sh - 1) * c.sstride + 4 * (size_t)c.sw;
    guarded_t g;
    if (guarded_alloc(&g, src_bytes, c.src_at_end, (size_t)c.src_offset) != 0) {
        failf("mmap failed (%s)", crash_case);
        return -1;
    }
    fill_source(&c, g.p, &r);
    const uint32_t *src = (const uint32_t *)(void *)g.p;

    size_t img_bytes = (size_t)c.dh_img * c.dstride;
    dstbuf_t ref, out;
    if (dst_alloc(&ref, img_bytes, c.dalign) != 0 || dst_alloc(&out, img_bytes, c.dalign) != 0) {
        failf("out of memory (%s)", crash_case);
        return -1;
    }

    int rc_fail = 0;
    crash_path = "scalar";
    int rc = dp_box_downscale_isa(DP_BOX_ISA_SCALAR, src, c.sw, c.sh, c.sstride, (uint32_t *)(void *)ref.img,
                                  c.dstride, c.dx, c.dy, c.w, c.h, c.ax, c.bx, c.ay, c.by);
    if (rc != 0) {
        if (!paths[0].failed)
            failf("scalar returned %d on %s", rc, crash_case);
        paths[0].failed = rc_fail = 1;
    }
    ptrdiff_t bad = canary_changed(&ref, &c);
    if (!rc_fail && bad != PTRDIFF_MIN) {
        if (!paths[0].failed)
            failf("scalar wrote outside the rectangle at byte offset %td from pixel (0,0) (row %td, byte %td of it) on %s",
                  bad, bad >= 0 ? bad / c.dstride : -1, bad >= 0 ? bad % c.dstride : bad, crash_case);
        paths[0].failed = rc_fail = 1;
    }

    /* the scalar output against the definition */
    if (!rc_fail) {
        uint64_t h = 0xCBF29CE484222325ull;
        for (int Y = c.dy; Y < c.dy + c.h; Y++) {
            const unsigned char *row = ref.img + (size_t)Y * c.dstride + 4 * (size_t)c.dx;
            digest = digest_bytes(digest, row, 4 * (size_t)c.w);
            h = digest_bytes(h, row, 4 * (size_t)c.w);
        }
        if (print_digests)
            printf("kernel-check: case %d scalar digest %016" PRIx64 " (%s)\n", index, h, crash_case);
        paths[0].pixels += (long)c.w * c.h;
        for (int Y = c.dy; Y < c.dy + c.h; Y++) {
            int yi[4], xi[4];
            double yw[4], xw[4];
            int ny = exact_axis(c.ay, c.by, Y, c.sh, yi, yw);
            for (int X = c.dx; X < c.dx + c.w; X++) {
                int nx = exact_axis(c.ax, c.bx, X, c.sw, xi, xw);
                double acc[4] = {0, 0, 0, 0};
                for (int j = 0; j < ny; j++)
                    for (int i = 0; i < nx; i++) {
                        const unsigned char *p = g.p + (size_t)yi[j] * c.sstride + 4 * (size_t)xi[i];
                        for (int ch = 0; ch < 4; ch++)
                            acc[ch] += mul(mul(yw[j], xw[i]), p[ch]);
                    }
                const unsigned char *got = ref.img + (size_t)Y * c.dstride + 4 * (size_t)X;
                for (int ch = 0; ch < 4; ch++) {
                    int want = (int)floor(acc[ch] + 0.5);
                    int e = abs((int)got[ch] - want);
                    if (e > *worst_err)
                        *worst_err = e;
                    if (e <= 2)
                        err_hist[e]++;
                    if (e > 2 && !rc_fail) {
                        failf("scalar is %d off the exact area average at destination pixel (%d,%d) channel %d: "
                              "got %d, exact %.4f on %s",
                              e, X, Y, ch, got[ch], acc[ch], crash_case);
                        paths[0].failed = rc_fail = 1;
                    }
                }
                if (c.pixels == 3 && get32(got) != c.flat && !rc_fail) {
                    failf("scalar turned the flat colour %08x into %08x at destination pixel (%d,%d) on %s",
                          c.flat, get32(got), X, Y, crash_case);
                    paths[0].failed = rc_fail = 1;
                }
            }
        }
        *exact_pixels += (long)c.w * c.h;
    }

    /* every other path (and AUTO, as paths[npaths]) against the scalar output */
    for (int p = 1; p <= npaths && !rc_fail; p++) {
        path_t *pt = &paths[p];
        for (size_t i = 0; i < out.len; i++)
            out.start[i] = canary_byte(i);
        crash_path = pt->name;
        rc = pt->isa == DP_BOX_ISA_AUTO
                 ? dp_box_downscale(src, c.sw, c.sh, c.sstride, (uint32_t *)(void *)out.img, c.dstride, c.dx,
                                    c.dy, c.w, c.h, c.ax, c.bx, c.ay, c.by)
                 : dp_box_downscale_isa(pt->isa, src, c.sw, c.sh, c.sstride, (uint32_t *)(void *)out.img,
                                        c.dstride, c.dx, c.dy, c.w, c.h, c.ax, c.bx, c.ay, c.by);
        crash_path = "check";
        if (rc != 0) {
            if (!pt->failed)
                failf("%s returned %d on %s", pt->name, rc, crash_case);
            pt->failed = 1;
            continue;
        }
        bad = canary_changed(&out, &c);
        if (bad != PTRDIFF_MIN) {
            if (!pt->failed)
                failf("%s wrote outside the rectangle at byte offset %td from pixel (0,0) (row %td, byte %td of it) on %s",
                      pt->name, bad, bad >= 0 ? bad / c.dstride : -1, bad >= 0 ? bad % c.dstride : bad, crash_case);
            pt->failed = 1;
            continue;
        }
        for (int Y = c.dy; Y < c.dy + c.h; Y++) {
            const unsigned char *a = ref.img + (size_t)Y * c.dstride + 4 * (size_t)c.dx;
            const unsigned char *b = out.img + (size_t)Y * c.dstride + 4 * (size_t)c.dx;
            if (memcmp(a, b, 4 * (size_t)c.w) == 0)
                continue;
            int x = 0;
            while (get32(a + 4 * x) == get32(b + 4 * x))
                x++;
            int nbad = 0;
            for (int i = 0; i < c.w; i++)
                nbad += get32(a + 4 * i) != get32(b + 4 * i);
            if (!pt->failed)
                failf("%s differs from scalar at destination pixel (%d,%d) (column %d, row %d of the rectangle; "
                      "%d pixels of that row differ): %s %08x, scalar %08x (bytes in memory order %02x %02x %02x %02x "
                      "vs %02x %02x %02x %02x) on %s",
                      pt->name, c.dx + x, Y, x, Y - c.dy, nbad, pt->name, get32(b + 4 * x), get32(a + 4 * x),
                      b[4 * x], b[4 * x + 1], b[4 * x + 2], b[4 * x + 3], a[4 * x], a[4 * x + 1], a[4 * x + 2],
                      a[4 * x + 3], crash_case);
            pt->failed = 1;
            break;
        }
        pt->pixels += (long)c.w * c.h;
    }
    free(ref.block);
    free(out.block);
    guarded_free(&g);
    crash_case[0] = 0;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Bad parameters, unavailable paths, names                                   */
/* ------------------------------------------------------------------------- */

static int check_api(const path_t *paths, int npaths)
{
    int before = failures;
    static const char *want[DP_BOX_ISA_COUNT] = {NULL, "scalar", "sse2", "ssse3", "avx2", "avx512", "neon"};
    for (int i = 1; i < DP_BOX_ISA_COUNT; i++) {
        const char *n = dp_box_isa_name(i);
        if (!n || strcmp(n, want[i]) != 0)
            failf("dp_box_isa_name(%d) is %s%s%s, not \"%s\"", i, n ? "\"" : "", n ? n : "NULL", n ? "\"" : "", want[i]);
    }
    if (dp_box_isa_name(DP_BOX_ISA_COUNT) != NULL || dp_box_isa_name(-1) != NULL || dp_box_isa_name(99) != NULL)
        failf("dp_box_isa_name names a value that is no path (%d, -1 or 99)", DP_BOX_ISA_COUNT);
    if (!dp_box_isa_available(DP_BOX_ISA_SCALAR))
        failf("the scalar path is not available");
    if (dp_box_isa_available(DP_BOX_ISA_COUNT) || dp_box_isa_available(-1) || dp_box_isa_available(99))
        failf("dp_box_isa_available accepts a value that is no path");
    int best = dp_box_downscale_best_isa();
    if (best < DP_BOX_ISA_SCALAR || best >= DP_BOX_ISA_COUNT || !dp_box_isa_available(best))
        failf("dp_box_downscale_best_isa() is %d, which is not an available path", best);

    enum { SW = 40, SH = 30, DW = 24, DH = 20 };
    static uint32_t src[SW * SH], dst[DW * DH], orig[DW * DH];
    for (int i = 0; i < SW * SH; i++)
        src[i] = (uint32_t)splitmix64((uint64_t)i);
    for (int i = 0; i < DW * DH; i++)
        orig[i] = 0xDEADBEEFu ^ (uint32_t)i;
    struct bad {
        const char *what;
        const uint32_t *s;
        int sw, sh, ss;
        uint32_t *d;
        int dx, dy, w, h;
        double ax, bx, ay, by;
        int want;
    } cases[] = {
        {"ax = 1", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.0, 0, 1.5, 0, -1},
        {"ax just above 2", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, nextafter(2.0, 3.0), 0, 1.5, 0, -1},
        {"ay = 0.5", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 0.5, 0, -1},
        {"ay = 3", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 3.0, 0, -1},
        {"ax NaN", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, NAN, 0, 1.5, 0, -1},
        {"bx NaN", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, NAN, 1.5, 0, -1},
        {"by infinite", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 1.5, INFINITY, -1},
        {"bx = 2^31", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 2147483648.0, 1.5, 0, -1},
        {"by = -2^31", src, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 1.5, -2147483648.0, -1},
        {"source NULL", NULL, SW, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 1.5, 0, -1},
        {"destination NULL", src, SW, SH, 4 * SW, NULL, 0, 0, DW, DH, 1.5, 0, 1.5, 0, -1},
        {"source width 0", src, 0, SH, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 1.5, 0, -1},
        {"source height -1", src, SW, -1, 4 * SW, dst, 0, 0, DW, DH, 1.5, 0, 1.5, 0, -1},
        {"source stride < 4 * width", src, SW, SH, 4 * SW - 1, dst, 0, 0, DW, DH, 1.5, 0, 1.5, 0, -1},
        {"dst_x = -1", src, SW, SH, 4 * SW, dst + 1, -1, 0, 8, 8, 1.5, 0, 1.5, 0, -1},
        {"dst_y = -1", src, SW, SH, 4 * SW, dst + DW, 0, -1, 8, 8, 1.5, 0, 1.5, 0, -1},
        {"width 0 (no-op)", src, SW, SH, 4 * SW, dst, 0, 0, 0, DH, 1.5, 0, 1.5, 0, 0},
        {"height -3 (no-op)", src, SW, SH, 4 * SW, dst, 0, 0, DW, -3, 1.5, 0, 1.5, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct bad *b = &cases[k];
        for (int p = 0; p <= npaths; p++) {
            memcpy(dst, orig, sizeof dst);
            crash_path = paths[p].name;
            snprintf(crash_case, sizeof crash_case, "the bad-parameter call \"%s\"", b->what);
            int rc = dp_box_downscale_isa(paths[p].isa, b->s, b->sw, b->sh, b->ss, b->d, 4 * DW, b->dx, b->dy,
                                          b->w, b->h, b->ax, b->bx, b->ay, b->by);
            if (rc != b->want)
                failf("%s: %s returned %d, not %d", b->what, paths[p].name, rc, b->want);
            if (memcmp(dst, orig, sizeof dst) != 0)
                failf("%s: %s wrote to the destination", b->what, paths[p].name);
        }
    }
    /* a path this build or CPU does not run: -2, nothing written */
    int unavailable = 0;
    for (int i = DP_BOX_ISA_SCALAR; i < DP_BOX_ISA_COUNT; i++) {
        if (dp_box_isa_available(i))
            continue;
        unavailable++;
        memcpy(dst, orig, sizeof dst);
        crash_path = dp_box_isa_name(i);
        snprintf(crash_case, sizeof crash_case, "a call on an unavailable path");
        int rc = dp_box_downscale_isa(i, src, SW, SH, 4 * SW, dst, 4 * DW, 0, 0, DW, DH, 1.5, 0, 1.5, 0);
        if (rc != -2)
            failf("the unavailable path %s returned %d, not -2", dp_box_isa_name(i), rc);
        if (memcmp(dst, orig, sizeof dst) != 0)
            failf("the unavailable path %s wrote to the destination", dp_box_isa_name(i));
    }
    crash_case[0] = 0;
    crash_path = "check";
    if (failures == before)
        printf("kernel-check: bad parameters give -1 and write nothing on every path; %d unavailable path%s give%s -2\n",
               unavailable, unavailable == 1 ? "" : "s", unavailable == 1 ? "s" : "");
    return failures == before ? 0 : -1;
}

/* ------------------------------------------------------------------------- */
/* --count                                                                   */
/* ------------------------------------------------------------------------- */

static int isa_by_name(const char *s)
{
    if (strcmp(s, "auto") == 0)
        return DP_BOX_ISA_AUTO;
    for (int i = DP_BOX_ISA_SCALAR; i < DP_BOX_ISA_COUNT; i++) {
        const char *n = dp_box_isa_name(i);
        if (n && strcmp(n, s) == 0)
            return i;
    }
    char *end;
    long v = strtol(s, &end, 10);
    if (*s && !*end && v >= 0 && v < DP_BOX_ISA_COUNT)
        return (int)v;
    return -1;
}

static int count_mode(const char *isa_s, int W, int H)
{
    const double ratio = 2732.0 / 2048.0; /* 1.333984375 */
    int none = strcmp(isa_s, "none") == 0;
    int isa = none ? -1 : isa_by_name(isa_s);
    if (!none && (isa < 0 || (isa != DP_BOX_ISA_AUTO && !dp_box_isa_available(isa)))) {
        fprintf(stderr, "kernel-check: --count: path %s is not available in this build/CPU\n", isa_s);
        return 2;
    }
    if (W < 1 || H < 1 || W > 16384 || H > 16384) {
        fprintf(stderr, "kernel-check: --count: bad size %dx%d\n", W, H);
        return 2;
    }
    int sw = (int)ceil(W * ratio), sh = (int)ceil(H * ratio);
    uint32_t *src = malloc((size_t)sw * sh * 4), *dst = malloc((size_t)W * H * 4);
    if (!src || !dst)
        return 2;
    rng_t r = {0x123456789ABCDEFull};
    for (size_t i = 0; i < (size_t)sw * sh; i += 2) {
        uint64_t v = rnext(&r);
        memcpy(src + i, &v, i + 1 < (size_t)sw * sh ? 8 : 4);
    }
    memset(dst, 0, (size_t)W * H * 4);
    int rc = 0;
    if (!none)
        rc = dp_box_downscale_isa(isa, src, sw, sh, 4 * sw, dst, 4 * W, 0, 0, W, H, ratio, 0.0, ratio, 0.0);
    printf("kernel-check: --count %s: %dx%d -> %dx%d, result %d\n", isa_s, sw, sh, W, H, rc);
    free(src);
    free(dst);
    return rc == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: kernel-check [--seed N] [--cases N] [--case I] [--digests] | --count ISA|none W H | --list\n");
}

int main(int argc, char **argv)
{
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t seed = 0;
    int have_seed = 0, ncases = 400, only = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0 && i + 3 < argc) {
            return count_mode(argv[i + 1], atoi(argv[i + 2]), atoi(argv[i + 3]));
        } else if (strcmp(argv[i], "--list") == 0) {
            for (int k = DP_BOX_ISA_SCALAR; k < DP_BOX_ISA_COUNT; k++)
                if (dp_box_isa_available(k))
                    printf("%s\n", dp_box_isa_name(k));
            return 0;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
            have_seed = 1;
        } else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
            ncases = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--digests") == 0) {
            print_digests = 1;
        } else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
            only = atoi(argv[++i]);
        } else {
            usage();
            return 2;
        }
    }
    if (!have_seed) {
        uint64_t t = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        seed = splitmix64(t) % 1000000;
    }
    if (ncases < 1) {
        usage();
        return 2;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fault;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);

    /* paths[0] is scalar, then every other available path, then AUTO */
    path_t paths[DP_BOX_ISA_COUNT + 1];
    int npaths = 0;
    paths[0] = (path_t){DP_BOX_ISA_SCALAR, "scalar", 0, 0};
    char names[128] = "";
    strcat(names, "scalar");
    for (int i = DP_BOX_ISA_SCALAR + 1; i < DP_BOX_ISA_COUNT; i++) {
        if (!dp_box_isa_available(i))
            continue;
        const char *n = dp_box_isa_name(i);
        paths[++npaths] = (path_t){i, n ? n : "?", 0, 0};
        strcat(names, " ");
        strcat(names, n ? n : "?");
    }
    paths[npaths + 1] = (path_t){DP_BOX_ISA_AUTO, "auto", 0, 0};
    const char *best = dp_box_isa_name(dp_box_downscale_best_isa());
    printf("kernel-check: seed %" PRIu64 ", paths available: %s (auto: %s)\n", seed, names, best ? best : "?");
    fflush(stdout);

    check_api(paths, npaths + 1);

    long exact_pixels = 0, err_hist[3] = {0, 0, 0};
    int worst = 0, ran = 0;
    for (int k = only >= 0 ? only : 0; k < (only >= 0 ? only + 1 : ncases); k++) {
        if (run_case(k, seed, paths, npaths + 1, &exact_pixels, err_hist, &worst) != 0)
            break;
        ran++;
    }
    char scope[64]; /* "400 cases" or "case 17" */
    if (only >= 0)
        snprintf(scope, sizeof scope, "case %d", only);
    else
        snprintf(scope, sizeof scope, "%d cases", ran);
    if (!paths[0].failed) {
        long ch = 4 * exact_pixels;
        printf("kernel-check: scalar is within +-2 of the exact area average on %s (%ld pixels; channels: %.3f%% "
               "exact, %.3f%% off by 1, %.4f%% off by 2) (seed %" PRIu64 ")\n",
               scope, exact_pixels, ch ? 100.0 * err_hist[0] / ch : 0.0, ch ? 100.0 * err_hist[1] / ch : 0.0,
               ch ? 100.0 * err_hist[2] / ch : 0.0, seed);
        /* the same on every architecture for the same seed and case count */
        printf("kernel-check: scalar output digest %016" PRIx64 " (seed %" PRIu64 ", %s)\n", digest, seed, scope);
    }
    for (int p = 1; p <= npaths + 1; p++)
        if (!paths[p].failed)
            printf("kernel-check: %s matches scalar on %s (%ld pixels) (seed %" PRIu64 ")\n", paths[p].name, scope,
                   paths[p].pixels, seed);
    if (npaths == 0)
        printf("kernel-check: scalar is the only path in this build (seed %" PRIu64 ")\n", seed);
    if (failures) {
        printf("kernel-check: %d failure%s (seed %" PRIu64 ")\n", failures, failures == 1 ? "" : "s", seed);
        return 1;
    }
    return 0;
}

// SPDX-License-Identifier: MIT
/*
 * box_scale.h - area-average ("box filter") downscale of 32-bit pixels for
 * scale factors between 1/2 and 1 (1 < source pixels per destination pixel <= 2).
 *
 * Pixels are 32-bit words (XRGB8888 / ARGB8888, any byte order really: all four
 * bytes are averaged independently). No dependencies besides libc.
 */
#ifndef DP_BOX_SCALE_H
#define DP_BOX_SCALE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Area-average downscale into the rectangle (dst_x, dst_y, width, height) of dst.
   dst points at destination pixel (0, 0); the rectangle is given in absolute
   destination coordinates and must lie inside the caller's image.
   The destination pixel (X, Y) (absolute dest coordinates) covers the source box
   [ax*X + bx, ax*(X+1) + bx) x [ay*Y + by, ay*(Y+1) + by) in continuous source
   coordinates (source pixel k covers [k, k+1)). Each destination channel = sum over
   source pixels of (overlap area / (ax*ay)) * value, rounded. Source pixels outside
   the image are clamped to the nearest edge pixel (like PIXMAN_REPEAT_PAD), so the
   weights always sum to 1.
   Requires 1 < ax <= 2 and 1 < ay <= 2 (so at most 3 taps per axis); returns -1
   without writing anything if the parameters are outside that (or otherwise
   unusable: null pointers, src_stride < 4*src_width, negative dst_x/dst_y,
   |bx|,|by| > 2^30, allocation failure), 0 on success (width or height <= 0 is a
   no-op success). Strides in bytes; no alignment is required of any pointer or
   stride. Never reads outside the source image nor writes outside the rectangle.
   Thread-safe; the only global state is a one-time CPU feature check.
   Results are bit-identical across the code paths (AVX-512, AVX2, SSSE3, SSE2, NEON, scalar)
   and within +-2 (almost always +-1) of the exactly rounded area average.
   Mapping from a pixman transform [ax 0 tx; 0 ay ty] (dest -> source): bx = tx,
   by = ty (pixman samples at the box centre a*(X+0.5)+t).
   Rectangles of >= 4 MiB are written with non-temporal stores on the AVX2 /
   AVX-512 paths (compile with -DDP_BOX_STREAM_MIN_BYTES=<bytes> to change that),
   so the output is not left in the CPU caches.
   Build box_scale.c with optimisation (-O2): at -O0 it is 10-40x slower. */
int dp_box_downscale(const uint32_t *src, int src_width, int src_height, int src_stride,
                     uint32_t *dst, int dst_stride, int dst_x, int dst_y, int width, int height,
                     double ax, double bx, double ay, double by);

/* The code paths.  Every path computes the same integer formula, so their outputs are
   bit-identical; they differ only in speed. */
enum {
    DP_BOX_ISA_AUTO = 0,   /* the best path this CPU runs */
    DP_BOX_ISA_SCALAR = 1, /* portable C, every CPU */
    DP_BOX_ISA_SSE2 = 2,   /* every x86-64 */
    DP_BOX_ISA_SSSE3 = 3,  /* pshufb / pmaddubsw: Atom, Core 2 and later */
    DP_BOX_ISA_AVX2 = 4,   /* Haswell / Zen and later */
    DP_BOX_ISA_AVX512 = 5, /* AVX512F+BW+VBMI: Ice Lake / Zen 4 and later */
    DP_BOX_ISA_NEON = 6,   /* AArch64 (Advanced SIMD is part of every ARMv8-A core) */
    DP_BOX_ISA_COUNT = 7
};

/* Same as dp_box_downscale but on the given path.  Returns -2 (writing nothing) if the
   path was not compiled in or this CPU cannot run it (dp_box_isa_available). */
int dp_box_downscale_isa(int isa,
                         const uint32_t *src, int src_width, int src_height, int src_stride,
                         uint32_t *dst, int dst_stride, int dst_x, int dst_y, int width, int height,
                         double ax, double bx, double ay, double by);

/* The path DP_BOX_ISA_AUTO takes: the best one this CPU runs (in a build of box_scale.c
   without optimisation, at most SSE2, which suffers least from -O0). */
int dp_box_downscale_best_isa(void);

/* 1 if `isa` (one of the values above, not AUTO) is compiled in and this CPU runs it. */
int dp_box_isa_available(int isa);

/* The path's name as DIPTYCH_KERNEL spells it ("scalar", "sse2", "ssse3", "avx2", "avx512",
   "neon"); NULL for a value that names no path. */
const char *dp_box_isa_name(int isa);

#ifdef __cplusplus
}
#endif

#endif /* DP_BOX_SCALE_H */

/* SPDX-License-Identifier: MIT */
/* What the downscale's files share: box_scale.c (the method, the scalar path, the driver),
   box_taps.c (the weights), box_x86.c (the SSE2, SSSE3 and AVX2 kernels, CPU detection),
   box_avx512.c and box_neon.c (AArch64). The build checks, the tap table entry, the prefetch cursor, and the functions
   each calls of another (hidden: not part of the library). */
#ifndef DP_BOX_INTERNAL_H
#define DP_BOX_INTERNAL_H

#include "box_scale.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__OPTIMIZE__) && !defined(DP_BOX_ALLOW_O0)
/* At -O0 (e.g. SwiftPM debug builds) every intrinsic goes through the stack and
   the downscale runs 15-40x slower (50+ ms for a 2048x1536 frame).  Build these files
   with -O2 (SwiftPM: cSettings: [.unsafeFlags(["-O2"])] on this target, which is
   placed after SwiftPM's own -O0) or define DP_BOX_ALLOW_O0 to silence this. */
#warning "CRenderKernels compiled without optimisation: expect the downscale to be 15-40x slower; build its files with -O2"
#endif

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define DP_X86 1
#include <cpuid.h>
#include <immintrin.h>
#define DP_SSSE3_FN __attribute__((target("ssse3")))
#define DP_AVX2_FN __attribute__((target("avx2")))
#define DP_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#else
#define DP_X86 0
#endif

#if defined(__aarch64__) && defined(__ARM_NEON)
#define DP_NEON 1
#include <arm_neon.h>
#else
#define DP_NEON 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DP_INLINE static inline __attribute__((always_inline))
/* into L2, not L1: the rows two destination rows ahead (over 20 KB at 2732 pixels) would
   evict the rows and tables in use from a 32 KB L1 (measured: 15-20 % slower on Zen 4) */
#define DP_PREFETCH(p) __builtin_prefetch((p), 0, 2)
#else
#define DP_INLINE static inline
#define DP_PREFETCH(p) ((void)(p))
#endif

/* ------------------------------------------------------------------------- */
/* Tap computation (shared by all paths)                                     */
/* ------------------------------------------------------------------------- */

typedef struct {
    int32_t idx;  /* first (clamped) source index */
    int32_t n;    /* number of taps, 1..3; taps are idx, idx+1, idx+2 */
    int32_t w[3]; /* weights in 1/256, sum 256; only w[0] can be 256; unused = 0 */
} dp_taps;

#if defined(__GNUC__) || defined(__clang__)
#define DP_HIDDEN __attribute__((visibility("hidden")))
#else
#define DP_HIDDEN
#endif

/* ------------------------------------------------------------------------- */
/* Software prefetch cursor                                                  */
/* ------------------------------------------------------------------------- */

/* The inner loops of both passes issue one prefetch per iteration for the source
   rows that the next destination rows will need, walking the rows (row, limit]
   of the column range in order.  Keeping DRAM requests in flight all the time
   matters more here than the arithmetic.  Each function copies the cursor into
   locals (so it lives in registers) and writes it back at the end. */
typedef struct {
    const char *p, *end; /* next line to prefetch, end of the current row segment */
    const char *base;    /* row 0 of the column range */
    ptrdiff_t stride;
    int row, limit, seg; /* current row, last row to prefetch, bytes per row segment */
} dp_pf;

DP_INLINE void dp_pf_step(dp_pf *s)
{
    if (s->p < s->end) {
        DP_PREFETCH(s->p);
        s->p += 64;
    } else if (s->row < s->limit) {
        s->row++;
        s->end = s->base + (ptrdiff_t)s->row * s->stride;
        s->p = (const char *)((uintptr_t)s->end & ~(uintptr_t)63);
        s->end += s->seg;
    }
}

/* The loop of the AVX2, SSSE3 and NEON vertical passes: `block(kind, r0 + i, r1 + i, r2 + i,
   t + i, weights...)` does B bytes at i; two blocks and one prefetch an iteration, single
   blocks after, and a last block overlapping the one before (needs nbytes >= B).  Expects r0,
   r1, r2, t, nbytes and pfp in scope.  (The loop counter must stay a plain induction
   variable: a data-dependent clamp inside the loop serialises the iterations.) */
#define DP_VERT_LOOP(B, block, kind, ...)                                                    \
    do {                                                                                     \
        dp_pf pf_ = *pfp;                                                                    \
        int i_ = 0;                                                                          \
        for (; i_ + 2 * (B) <= nbytes; i_ += 2 * (B)) {                                      \
            dp_pf_step(&pf_);                                                                \
            block(kind, r0 + i_, r1 + i_, r2 + i_, t + i_, __VA_ARGS__);                     \
            block(kind, r0 + i_ + (B), r1 + i_ + (B), r2 + i_ + (B), t + i_ + (B), __VA_ARGS__); \
        }                                                                                    \
        for (; i_ + (B) <= nbytes; i_ += (B))                                                \
            block(kind, r0 + i_, r1 + i_, r2 + i_, t + i_, __VA_ARGS__);                     \
        if (i_ < nbytes) {                                                                   \
            i_ = nbytes - (B);                                                               \
            block(kind, r0 + i_, r1 + i_, r2 + i_, t + i_, __VA_ARGS__);                     \
        }                                                                                    \
        *pfp = pf_;                                                                          \
    } while (0)

/* box_taps.c */
DP_HIDDEN void dp_axis_taps(double a, double b, int64_t X, int size, dp_taps *t);
DP_HIDDEN int dp_same_taps(const dp_taps *a, const dp_taps *b);

/* box_scale.c */
DP_HIDDEN void dp_vert_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                           const dp_taps *vt, uint8_t *t, int nbytes);

/* box_x86.c and box_avx512.c */
DP_HIDDEN int dp_detect_isa(void);
#if DP_X86
DP_HIDDEN void dp_vert2_sse2(const uint8_t *src0, ptrdiff_t stride, const dp_taps *va,
                             const dp_taps *vb, uint8_t *t, int nbytes, dp_pf *pfp);
DP_HIDDEN void dp_horiz_sse2(const uint8_t *t, const int32_t *off, const uint8_t *wt,
                             uint8_t *out0, uint8_t *out1, int width, dp_pf *pfp);
DP_HIDDEN DP_SSSE3_FN void dp_vert_ssse3(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                         const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp);
DP_HIDDEN DP_SSSE3_FN void dp_horiz_ssse3_1(const uint8_t *t0, const int32_t *off,
                                            const uint8_t *wt, uint8_t *out0, int width,
                                            dp_pf *pf);
DP_HIDDEN DP_SSSE3_FN void dp_horiz_ssse3_2(const uint8_t *t0, const uint8_t *t1,
                                            const int32_t *off, const uint8_t *wt,
                                            uint8_t *out0, uint8_t *out1, int width, dp_pf *pf);
DP_HIDDEN void dp_vert_avx2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                         const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp);
DP_HIDDEN void dp_vert_avx512(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                           const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp);
DP_HIDDEN DP_AVX2_FN void dp_horiz_avx2_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt,
                                       uint8_t *base0, int lead, int ncols, dp_pf *pf,
                                       int stream);
DP_HIDDEN DP_AVX2_FN void dp_horiz_avx2_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                                       const uint8_t *wt, uint8_t *base0, uint8_t *base1,
                                       int lead, int ncols, dp_pf *pf, int stream);
DP_HIDDEN DP_AVX512_FN void dp_horiz_avx512_1(const uint8_t *t0, const int32_t *off4,
                                           const uint8_t *wt, uint8_t *base0, int lead,
                                           int ncols, dp_pf *pf, int stream);
DP_HIDDEN DP_AVX512_FN void dp_horiz_avx512_2(const uint8_t *t0, const uint8_t *t1,
                                           const int32_t *off4, const uint8_t *wt,
                                           uint8_t *base0, uint8_t *base1, int lead, int ncols,
                                           dp_pf *pf, int stream);
#endif

/* box_neon.c: unbiased intermediate (as the scalar path's); wt 16 bytes per column:
   [w0' x4, w1 x4, w2 x4, w3 x4] with w0' = min(w0, 255), w3 = w0 - w0'. */
#if DP_NEON
DP_HIDDEN void dp_vert_neon(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                            const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp);
DP_HIDDEN void dp_horiz_neon_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt,
                               uint8_t *out0, int width, dp_pf *pf);
DP_HIDDEN void dp_horiz_neon_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                               const uint8_t *wt, uint8_t *out0, uint8_t *out1, int width,
                               dp_pf *pf);
#endif

#endif

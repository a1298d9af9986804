// SPDX-License-Identifier: MIT
/*
 * box_scale.c - area-average downscale for 1 < scale <= 2 (source px per dest px).
 *
 * Method
 * ------
 * The box filter is separable: the weight of source pixel (i, j) for destination
 * pixel (X, Y) is (overlap of column i with the X box / ax) * (overlap of row j with
 * the Y box / ay).  Because ax, ay <= 2, a box of that length touches at most
 * three source columns (rows), so every destination pixel is a 3x3 (or smaller)
 * weighted sum.  After clamping tap indices to the image (edge replication, the
 * PIXMAN_REPEAT_PAD behaviour) and merging taps that land on the same pixel, the
 * taps of one output are always a run of 1..3 consecutive source pixels.
 *
 * Per destination row Y we
 *   1. vertical pass: combine the (up to) three source rows of Y with their
 *      weights into a one-row intermediate that spans only the source columns the
 *      rectangle needs (about 2.7k pixels = 11 KB for the 2732 -> 2048 case, so it
 *      stays in L1);
 *   2. horizontal pass: each output pixel reads the (up to) three consecutive
 *      intermediate pixels starting at its precomputed offset.
 * Vertical first is cheaper than horizontal first because the horizontal pass
 * (the one that needs gathers/shuffles) then runs only once per destination row.
 * The SIMD paths do two destination rows per horizontal pass so that every column
 * table entry they load serves two outputs.
 *
 * Weights are fixed point with 8 fractional bits: each axis' taps are quantised to
 * integers summing to exactly 256 (largest-remainder rounding, so each weight is
 * within 1/256 of its exact value and the sum is exact: flat areas stay exactly
 * flat).  Each pass rounds to nearest: v = (sum(w*p) + 128) >> 8, so the
 * intermediate is 8 bits per channel.  The result is within +-2 (almost always
 * +-1) of the exactly rounded area average.  All code paths compute exactly this
 * integer formula, so they are bit-identical.
 *
 * SIMD:
 *   AVX2  pmaddubsw multiplies unsigned bytes by signed bytes.  We put the weights
 *         (0..255) on the unsigned side and the pixels on the signed side after
 *         subtracting 128 (xor 0x80): sum(w*(p-128)) = sum(w*p) - 128*256 fits a
 *         signed 16-bit lane.  pmulhrsw by 128 is (x + 128) >> 8, i.e. the
 *         rounding shift in one instruction, and leaves the result minus 128,
 *         which packsswb stores as a signed byte.  The intermediate row is kept in
 *         this "biased" form; the final output is un-biased with one xor.
 *         Vertical: interleave bytes of rows 0/1 (and row 2 with zero),
 *         pmaddubsw, add, pmulhrsw, pack.
 *         Horizontal: load the 16 bytes (4 pixels) starting at the output's first
 *         tap, pshufb them into [c0 c1 c2 c0] groups per channel, pmaddubsw with
 *         the column's weights [w0 w1 w2 w3] (w3 carries the 256th unit when a
 *         single tap has all the weight, which does not fit in a byte), pmaddwd
 *         with ones to finish the per-channel sums, then pack 8 outputs at once.
 *   AVX-512 (F+BW+VBMI)  same arithmetic, 64 bytes at a time; the horizontal pass
 *         gathers four outputs' windows from one 64-byte load with vpermb.
 *   SSE2  the same integer formula in 16-bit lanes with pmullw (products <= 65280).
 *   scalar  plain C, used on non-x86 targets.
 *
 * Speed notes (measured on Zen 5, see RESULTS.md): the work is bound by load
 * throughput and by keeping DRAM busy, not by arithmetic.  Hence: compact column
 * tables that stay in L1, software prefetch of the source rows the next
 * destination rows need (issued from inside both passes' loops), plain induction
 * variables in the inner loops, and non-temporal stores for big outputs.
 *
 * Per call we build a table with one entry per destination column and the
 * intermediate rows, in a single malloc that is freed before returning.  Vertical
 * taps are computed per row.
 */

#include "box_scale.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__OPTIMIZE__) && !defined(DP_BOX_ALLOW_O0)
/* At -O0 (e.g. SwiftPM debug builds) every intrinsic goes through the stack and
   this file runs 15-40x slower (50+ ms for a 2048x1536 frame).  Build it with
   -O2 (SwiftPM: cSettings: [.unsafeFlags(["-O2"])] on this target, which is
   placed after SwiftPM's own -O0) or define DP_BOX_ALLOW_O0 to silence this. */
#warning "box_scale.c compiled without optimisation: expect it to be 15-40x slower; build this file with -O2"
#endif

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define DP_X86 1
#include <cpuid.h>
#include <immintrin.h>
#define DP_AVX2_FN __attribute__((target("avx2")))
#define DP_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#else
#define DP_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DP_INLINE static inline __attribute__((always_inline))
#define DP_PREFETCH(p) __builtin_prefetch((p), 0, 3)
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

/* floor() without a libm call (x86-64 without SSE4.1 has no rounding insn);
   |x| < 2^62 here. */
static inline double dp_floor(double x)
{
    double t = (double)(int64_t)x;
    return t > x ? t - 1.0 : t;
}

/* Taps of output index X along one axis: box [a*X + b, a*(X+1) + b), 1 < a <= 2. */
static void dp_axis_taps(double a, double b, int64_t X, int size, dp_taps *t)
{
    const double x0 = a * (double)X + b;
    const double x1 = a * (double)(X + 1) + b;
    const double f = dp_floor(x0);
    /* The box starts in pixel f and, being longer than 1 but at most 2, ends in
       pixel f+1 or f+2: pixels f and f+1 always overlap it. */
    double m[3];
    m[0] = (x1 < f + 1.0 ? x1 : f + 1.0) - x0;
    m[1] = (x1 < f + 2.0 ? x1 : f + 2.0) - (f + 1.0);
    m[2] = x1 - (f + 2.0);
    if (m[0] > 0.0 && m[1] > 0.0 && f >= 0.0 && f + 2.0 <= (double)(size - 1)) {
        /* Common case, no clamping: same quantisation as below, unrolled. */
        const double m2 = m[2] > 0.0 ? m[2] : 0.0;
        const double scale = 256.0 / (m[0] + m[1] + m2);
        const double y0 = m[0] * scale, y1 = m[1] * scale, y2 = m2 * scale;
        int q0 = (int)y0, q1 = (int)y1, q2 = (int)y2;
        double r0 = y0 - q0, r1 = y1 - q1, r2 = y2 - q2;
        int deficit = 256 - q0 - q1 - q2; /* 0..2 */
        while (deficit > 0) {             /* largest remainders get the units */
            if (r0 >= r1 && r0 >= r2) {
                q0++;
                r0 = -1.0;
            } else if (r1 >= r2) {
                q1++;
                r1 = -1.0;
            } else {
                q2++;
                r2 = -1.0;
            }
            deficit--;
        }
        if (q0 > 0 && deficit == 0) {
            t->idx = (int32_t)f;
            t->n = q2 > 0 ? 3 : 2;
            t->w[0] = q0;
            t->w[1] = q1;
            t->w[2] = q2;
            if (q1 > 0)
                return;
        }
        /* rare (a weight quantised to 0): fall through to the general code */
    }
    int32_t idx[3];
    double mass[3];
    int n = 0;
    for (int j = 0; j < 3; j++) {
        if (!(m[j] > 0.0))
            continue;
        double k = f + (double)j;
        int32_t ki = k < 0.0 ? 0 : (k > (double)(size - 1) ? size - 1 : (int32_t)k);
        if (n > 0 && idx[n - 1] == ki) {
            mass[n - 1] += m[j]; /* clamped onto the same edge pixel: merge */
        } else {
            idx[n] = ki;
            mass[n] = m[j];
            n++;
        }
    }
    if (n == 0) { /* only with absurd float inputs; be safe */
        idx[0] = f < 0.0 ? 0 : (f > (double)(size - 1) ? size - 1 : (int32_t)f);
        mass[0] = 1.0;
        n = 1;
    }

    /* Largest-remainder quantisation to integers summing to exactly 256. */
    double total = 0.0;
    for (int j = 0; j < n; j++)
        total += mass[j];
    const double scale = 256.0 / total;
    int w[3] = {0, 0, 0}, sum = 0;
    double frac[3];
    for (int j = 0; j < n; j++) {
        double x = mass[j] * scale;
        int q = (int)x; /* x >= 0: truncation is floor */
        if (q > 256)
            q = 256;
        w[j] = q;
        frac[j] = x - (double)q;
        sum += q;
    }
    while (sum < 256) {
        int best = 0;
        for (int j = 1; j < n; j++)
            if (frac[j] > frac[best])
                best = j;
        w[best]++;
        frac[best] = -1e9;
        sum++;
    }
    while (sum > 256) { /* only reachable through pathological float error */
        int best = 0;
        for (int j = 1; j < n; j++)
            if (w[j] > w[best])
                best = j;
        w[best]--;
        sum--;
    }

    /* Drop leading and trailing zero weights so w[0] > 0 and w[n-1] > 0. */
    int first = 0;
    while (first < n - 1 && w[first] == 0)
        first++;
    int last = n - 1;
    while (last > first && w[last] == 0)
        last--;
    t->idx = idx[first];
    t->n = last - first + 1;
    for (int j = 0; j < 3; j++)
        t->w[j] = (first + j <= last) ? w[first + j] : 0;
}

static int dp_same_taps(const dp_taps *a, const dp_taps *b)
{
    return a->idx == b->idx && a->n == b->n && a->w[0] == b->w[0] && a->w[1] == b->w[1] &&
           a->w[2] == b->w[2];
}

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

/* ------------------------------------------------------------------------- */
/* Scalar path                                                               */
/* ------------------------------------------------------------------------- */

/* Vertical pass, unbiased intermediate.  nbytes = 4 * pixels. */
static void dp_vert_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                           const dp_taps *vt, uint8_t *t, int nbytes)
{
    const unsigned w0 = (unsigned)vt->w[0], w1 = (unsigned)vt->w[1], w2 = (unsigned)vt->w[2];
    if (vt->n == 1) {
        memcpy(t, r0, (size_t)nbytes);
    } else if (vt->n == 2) {
        for (int i = 0; i < nbytes; i++)
            t[i] = (uint8_t)((w0 * r0[i] + w1 * r1[i] + 128u) >> 8);
    } else {
        for (int i = 0; i < nbytes; i++)
            t[i] = (uint8_t)((w0 * r0[i] + w1 * r1[i] + w2 * r2[i] + 128u) >> 8);
    }
}

/* Horizontal pass.  off[x] = byte offset of column x's first tap in t,
   w = 4 x uint16 per column (w0 w1 w2 0).  t must have 2 pixels of readable
   padding after the last used pixel.  Two channels at a time in 16-bit lanes of
   a 32-bit word ("SWAR"): w * byte <= 255 * 256 and the three weights sum to 256,
   so a lane never overflows. */
static inline uint32_t dp_load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void dp_horiz_scalar(const uint8_t *t, const int32_t *off, const uint16_t *w,
                            uint8_t *out, int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    for (int x = 0; x < width; x++) {
        if ((x & 3) == 0)
            dp_pf_step(&pf);
        const uint8_t *p = t + off[x];
        const uint32_t w0 = w[4 * x], w1 = w[4 * x + 1], w2 = w[4 * x + 2];
        const uint32_t a = dp_load32(p), b = dp_load32(p + 4), c = dp_load32(p + 8);
        const uint32_t m = 0x00FF00FFu;
        uint32_t even = (a & m) * w0 + (b & m) * w1 + (c & m) * w2 + 0x00800080u;
        uint32_t odd = ((a >> 8) & m) * w0 + ((b >> 8) & m) * w1 + ((c >> 8) & m) * w2 + 0x00800080u;
        uint32_t v = ((even >> 8) & m) | (odd & ~m);
        memcpy(out + 4 * (size_t)x, &v, 4);
    }
    *pfp = pf;
}

/* ------------------------------------------------------------------------- */
/* SSE2 path                                                                 */
/* ------------------------------------------------------------------------- */
#if DP_X86

static void dp_vert_sse2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                         const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    if (vt->n == 1 || nbytes < 16) {
        dp_vert_scalar(r0, r1, r2, vt, t, nbytes);
        return;
    }
    dp_pf pf = *pfp;
    const __m128i z = _mm_setzero_si128();
    const __m128i rnd = _mm_set1_epi16(128);
    const __m128i W0 = _mm_set1_epi16((short)vt->w[0]);
    const __m128i W1 = _mm_set1_epi16((short)vt->w[1]);
    const __m128i W2 = _mm_set1_epi16((short)vt->w[2]);
    const int three = vt->n == 3;
    /* 16 bytes at offset i; the last block may overlap the previous one.  (The
       loop counter must stay a plain induction variable: a data-dependent clamp
       inside the loop serialises the iterations.) */
#define DP_SSE2_VBLOCK(i)                                                                   \
    do {                                                                                    \
        __m128i a = _mm_loadu_si128((const __m128i *)(r0 + (i)));                           \
        __m128i b = _mm_loadu_si128((const __m128i *)(r1 + (i)));                           \
        __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(a, z), W0),            \
                                   _mm_mullo_epi16(_mm_unpacklo_epi8(b, z), W1));           \
        __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(a, z), W0),            \
                                   _mm_mullo_epi16(_mm_unpackhi_epi8(b, z), W1));           \
        if (three) {                                                                        \
            __m128i c = _mm_loadu_si128((const __m128i *)(r2 + (i)));                       \
            lo = _mm_add_epi16(lo, _mm_mullo_epi16(_mm_unpacklo_epi8(c, z), W2));           \
            hi = _mm_add_epi16(hi, _mm_mullo_epi16(_mm_unpackhi_epi8(c, z), W2));           \
        }                                                                                   \
        lo = _mm_srli_epi16(_mm_add_epi16(lo, rnd), 8);                                     \
        hi = _mm_srli_epi16(_mm_add_epi16(hi, rnd), 8);                                     \
        _mm_storeu_si128((__m128i *)(t + (i)), _mm_packus_epi16(lo, hi));                   \
    } while (0)
    int i = 0;
    for (; i + 16 <= nbytes; i += 16) {
        dp_pf_step(&pf);
        DP_SSE2_VBLOCK(i);
    }
    if (i < nbytes)
        DP_SSE2_VBLOCK(nbytes - 16);
#undef DP_SSE2_VBLOCK
    *pfp = pf;
}

/* wt: per column 32 bytes = two vectors of 8 x u16: [w0 x4, w1 x4], [w2 x4, 0 x4]. */
static void dp_horiz_sse2(const uint8_t *t, const int32_t *off, const uint8_t *wt,
                          uint8_t *out, int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    const __m128i z = _mm_setzero_si128();
    const __m128i rnd = _mm_set1_epi16(128);
    const __m128i *W = (const __m128i *)wt;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        __m128i s[4];
        dp_pf_step(&pf);
        for (int k = 0; k < 4; k++) {
            __m128i p = _mm_loadu_si128((const __m128i *)(t + off[x + k]));
            s[k] = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(p, z), W[2 * (x + k)]),
                                 _mm_mullo_epi16(_mm_unpackhi_epi8(p, z), W[2 * (x + k) + 1]));
        }
        __m128i u01 = _mm_add_epi16(_mm_unpacklo_epi64(s[0], s[1]), _mm_unpackhi_epi64(s[0], s[1]));
        __m128i u23 = _mm_add_epi16(_mm_unpacklo_epi64(s[2], s[3]), _mm_unpackhi_epi64(s[2], s[3]));
        u01 = _mm_srli_epi16(_mm_add_epi16(u01, rnd), 8);
        u23 = _mm_srli_epi16(_mm_add_epi16(u23, rnd), 8);
        _mm_storeu_si128((__m128i *)(out + 4 * (size_t)x), _mm_packus_epi16(u01, u23));
    }
    for (; x < width; x++) {
        __m128i p = _mm_loadu_si128((const __m128i *)(t + off[x]));
        __m128i s = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(p, z), W[2 * x]),
                                  _mm_mullo_epi16(_mm_unpackhi_epi8(p, z), W[2 * x + 1]));
        s = _mm_add_epi16(s, _mm_srli_si128(s, 8));
        s = _mm_srli_epi16(_mm_add_epi16(s, rnd), 8);
        uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(s, s));
        memcpy(out + 4 * (size_t)x, &v, 4);
    }
    *pfp = pf;
}

/* ------------------------------------------------------------------------- */
/* AVX2 path (intermediate stored biased: byte = value ^ 0x80, i.e. value-128) */
/* ------------------------------------------------------------------------- */

static void dp_vert_biased_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                  const dp_taps *vt, uint8_t *t, int nbytes)
{
    dp_vert_scalar(r0, r1, r2, vt, t, nbytes);
    for (int i = 0; i < nbytes; i++)
        t[i] ^= 0x80;
}

/* One 32-byte block of the vertical pass; kind = 1 (copy), 2 or 3 taps. */
DP_AVX2_FN DP_INLINE void dp_vblock_avx2(const int kind, const uint8_t *r0, const uint8_t *r1,
                                         const uint8_t *r2, uint8_t *t, __m256i W01, __m256i W2)
{
    const __m256i k80 = _mm256_set1_epi8((char)0x80);
    const __m256i k128 = _mm256_set1_epi16(128);
    __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)r0), k80);
    if (kind == 1) {
        _mm256_storeu_si256((__m256i *)t, a);
        return;
    }
    __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)r1), k80);
    __m256i lo = _mm256_maddubs_epi16(W01, _mm256_unpacklo_epi8(a, b));
    __m256i hi = _mm256_maddubs_epi16(W01, _mm256_unpackhi_epi8(a, b));
    if (kind == 3) {
        const __m256i z = _mm256_setzero_si256();
        __m256i c = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)r2), k80);
        lo = _mm256_add_epi16(lo, _mm256_maddubs_epi16(W2, _mm256_unpacklo_epi8(c, z)));
        hi = _mm256_add_epi16(hi, _mm256_maddubs_epi16(W2, _mm256_unpackhi_epi8(c, z)));
    }
    lo = _mm256_mulhrs_epi16(lo, k128); /* (x + 128) >> 8 */
    hi = _mm256_mulhrs_epi16(hi, k128);
    _mm256_storeu_si256((__m256i *)t, _mm256_packs_epi16(lo, hi));
}

#define DP_DEFINE_VERT_AVX2(kind)                                                          \
    DP_AVX2_FN static void dp_vert_avx2_##kind(const uint8_t *r0, const uint8_t *r1,        \
                                               const uint8_t *r2, uint8_t *t, int nbytes,   \
                                               __m256i W01, __m256i W2, dp_pf *pfp)          \
    {                                                                                       \
        dp_pf pf = *pfp;                                                                    \
        int i = 0;                                                                          \
        for (; i + 32 <= nbytes; i += 32) {                                                 \
            dp_pf_step(&pf);                                                                \
            dp_vblock_avx2(kind, r0 + i, r1 + i, r2 + i, t + i, W01, W2);                   \
        }                                                                                   \
        if (i < nbytes) { /* last block overlaps the previous one */                        \
            i = nbytes - 32;                                                                \
            dp_vblock_avx2(kind, r0 + i, r1 + i, r2 + i, t + i, W01, W2);                   \
        }                                                                                   \
        *pfp = pf;                                                                          \
    }
DP_DEFINE_VERT_AVX2(1)
DP_DEFINE_VERT_AVX2(2)
DP_DEFINE_VERT_AVX2(3)

DP_AVX2_FN
static void dp_vert_avx2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                         const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    if (nbytes < 32) {
        dp_vert_biased_scalar(r0, r1, r2, vt, t, nbytes);
        return;
    }
    /* byte pairs (row0, row1) get weights (w0, w1), pairs (row2, 0) get (w2, 0) */
    const __m256i W01 = _mm256_set1_epi16((short)(vt->w[0] | (vt->w[1] << 8)));
    const __m256i W2 = _mm256_set1_epi16((short)vt->w[2]);
    if (vt->w[0] == 256)
        dp_vert_avx2_1(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else if (vt->n == 2)
        dp_vert_avx2_2(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else
        dp_vert_avx2_3(r0, r1, r2, t, nbytes, W01, W2, pfp);
}

/* Horizontal pass for one or two rows (t1/out1 used only when two != 0; both rows
   share the column table, so each table load serves two outputs).
   The table covers ncols = lead + width columns, padded to a multiple of 8 by
   repeating the last column; the first `lead` entries are phantom columns (copies
   of the first real one) that put out - 4*lead on a 32-byte boundary, so that the
   stores of whole chunks can be aligned (and non-temporal).  Chunks that contain
   phantom or padding columns are stored with a mask.
   wt: 16 bytes per column: [w0' w1 w2 w3] x 4 with w0' = min(w0, 255), w3 = w0 - w0'.
   Within each group of 8 the columns are stored in the order x, x+4, x+1, x+5,
   x+2, x+6, x+3, x+7, so that the per-lane packs produce outputs in order.
   off[] uses the same order.  t needs 4 pixels of readable padding. */
DP_AVX2_FN DP_INLINE __m256i dp_hwin_avx2(const uint8_t *t, uint64_t oo, __m256i shuf,
                                          __m256i w, __m256i ones)
{
    __m256i p = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(t + (uint32_t)oo)));
    p = _mm256_inserti128_si256(p, _mm_loadu_si128((const __m128i *)(t + (oo >> 32))), 1);
    p = _mm256_shuffle_epi8(p, shuf);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w, p), ones);
}

DP_AVX2_FN DP_INLINE __m256i dp_hfinish_avx2(const __m256i *q)
{
    const __m256i k128 = _mm256_set1_epi16(128);
    const __m256i k80 = _mm256_set1_epi8((char)0x80);
    /* q = sum(w * (v - 128)) = sum(w * v) - 32768, fits int16 */
    __m256i a = _mm256_mulhrs_epi16(_mm256_packs_epi32(q[0], q[1]), k128); /* result - 128 */
    __m256i b = _mm256_mulhrs_epi16(_mm256_packs_epi32(q[2], q[3]), k128);
    return _mm256_xor_si256(_mm256_packs_epi16(a, b), k80);
}

/* Store 8 pixels at p (table columns c .. c+7): masked unless all are real. */
DP_AVX2_FN DP_INLINE void dp_hstore_avx2(uint8_t *p, __m256i v, int c, int lead, int ncols,
                                         int stream)
{
    if (c >= lead && c + 8 <= ncols) {
        if (stream) /* p is 32-byte aligned */
            _mm256_stream_si256((__m256i *)p, v);
        else
            _mm256_storeu_si256((__m256i *)p, v);
    } else {
        const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(c),
                                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256i m = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(lead), col),
                                              _mm256_cmpgt_epi32(_mm256_set1_epi32(ncols), col));
        _mm256_maskstore_epi32((int *)p, m, v);
    }
}

DP_AVX2_FN DP_INLINE void dp_horiz_avx2_impl(const int two, const uint8_t *t0,
                                             const uint8_t *t1, const int32_t *off,
                                             const uint8_t *wt, uint8_t *base0, uint8_t *base1,
                                             int lead, int ncols, dp_pf *pfp, int stream)
{
    dp_pf pf = *pfp;
    const __m256i shuf = _mm256_setr_epi8(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3,
                                          0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3);
    const __m256i ones = _mm256_set1_epi16(1);
    for (int x = 0; x < ncols; x += 8) {
        const int32_t *o = off + x;
        const __m256i *w = (const __m256i *)(wt + 16 * (size_t)x);
        dp_pf_step(&pf);
        __m256i q0[4], q1[4];
        for (int k = 0; k < 4; k++) {
            uint64_t oo; /* two offsets with one load */
            memcpy(&oo, o + 2 * k, 8);
            const __m256i wk = _mm256_load_si256(w + k);
            q0[k] = dp_hwin_avx2(t0, oo, shuf, wk, ones);
            if (two)
                q1[k] = dp_hwin_avx2(t1, oo, shuf, wk, ones);
        }
        dp_hstore_avx2(base0 + 4 * (ptrdiff_t)x, dp_hfinish_avx2(q0), x, lead, ncols, stream);
        if (two)
            dp_hstore_avx2(base1 + 4 * (ptrdiff_t)x, dp_hfinish_avx2(q1), x, lead, ncols, stream);
    }
    *pfp = pf;
}

DP_AVX2_FN static void dp_horiz_avx2_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt,
                                       uint8_t *base0, int lead, int ncols, dp_pf *pf,
                                       int stream)
{
    dp_horiz_avx2_impl(0, t0, t0, off, wt, base0, base0, lead, ncols, pf, stream);
}

DP_AVX2_FN static void dp_horiz_avx2_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                                       const uint8_t *wt, uint8_t *base0, uint8_t *base1,
                                       int lead, int ncols, dp_pf *pf, int stream)
{
    dp_horiz_avx2_impl(1, t0, t1, off, wt, base0, base1, lead, ncols, pf, stream);
}

/* ------------------------------------------------------------------------- */
/* AVX-512 path (AVX512F + AVX512BW + AVX512VBMI: Ice Lake, Zen 4 and later). */
/* Same arithmetic and intermediate format as the AVX2 path.                 */
/* ------------------------------------------------------------------------- */

DP_AVX512_FN DP_INLINE void dp_vblock_avx512(const int kind, const uint8_t *r0,
                                             const uint8_t *r1, const uint8_t *r2, uint8_t *t,
                                             __m512i W01, __m512i W2)
{
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    const __m512i k128 = _mm512_set1_epi16(128);
    __m512i a = _mm512_xor_si512(_mm512_loadu_si512((const void *)r0), k80);
    if (kind == 1) {
        _mm512_storeu_si512((void *)t, a);
        return;
    }
    __m512i b = _mm512_xor_si512(_mm512_loadu_si512((const void *)r1), k80);
    __m512i lo = _mm512_maddubs_epi16(W01, _mm512_unpacklo_epi8(a, b));
    __m512i hi = _mm512_maddubs_epi16(W01, _mm512_unpackhi_epi8(a, b));
    if (kind == 3) {
        const __m512i z = _mm512_setzero_si512();
        __m512i c = _mm512_xor_si512(_mm512_loadu_si512((const void *)r2), k80);
        lo = _mm512_add_epi16(lo, _mm512_maddubs_epi16(W2, _mm512_unpacklo_epi8(c, z)));
        hi = _mm512_add_epi16(hi, _mm512_maddubs_epi16(W2, _mm512_unpackhi_epi8(c, z)));
    }
    lo = _mm512_mulhrs_epi16(lo, k128);
    hi = _mm512_mulhrs_epi16(hi, k128);
    _mm512_storeu_si512((void *)t, _mm512_packs_epi16(lo, hi));
}

#define DP_DEFINE_VERT_AVX512(kind)                                                        \
    DP_AVX512_FN static void dp_vert_avx512_##kind(const uint8_t *r0, const uint8_t *r1,    \
                                                   const uint8_t *r2, uint8_t *t,           \
                                                   int nbytes, __m512i W01, __m512i W2,     \
                                                   dp_pf *pfp)                              \
    {                                                                                       \
        dp_pf pf = *pfp;                                                                    \
        int i = 0;                                                                          \
        for (; i + 64 <= nbytes; i += 64) {                                                 \
            dp_pf_step(&pf);                                                                \
            dp_vblock_avx512(kind, r0 + i, r1 + i, r2 + i, t + i, W01, W2);                 \
        }                                                                                   \
        if (i < nbytes) {                                                                   \
            i = nbytes - 64;                                                                \
            dp_vblock_avx512(kind, r0 + i, r1 + i, r2 + i, t + i, W01, W2);                 \
        }                                                                                   \
        *pfp = pf;                                                                          \
    }
DP_DEFINE_VERT_AVX512(1)
DP_DEFINE_VERT_AVX512(2)
DP_DEFINE_VERT_AVX512(3)

DP_AVX512_FN
static void dp_vert_avx512(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                           const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    if (nbytes < 64) {
        dp_vert_avx2(r0, r1, r2, vt, t, nbytes, pfp);
        return;
    }
    const __m512i W01 = _mm512_set1_epi16((short)(vt->w[0] | (vt->w[1] << 8)));
    const __m512i W2 = _mm512_set1_epi16((short)vt->w[2]);
    if (vt->w[0] == 256)
        dp_vert_avx512_1(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else if (vt->n == 2)
        dp_vert_avx512_2(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else
        dp_vert_avx512_3(r0, r1, r2, t, nbytes, W01, W2, pfp);
}

/* Columns in groups of 4 (the column count is padded to a multiple of 16 by
   repeating the last column).  Per group: off4 = byte offset of the group's first
   tap in t, and 32 bytes, 8 per column: the four byte weights [w0 w1 w2 w3] and
   four copies of 4*d, d = the column's first tap relative to the group's (layout
   of phantom lead columns and padding as in the AVX2 path).  The
   weights are broadcast to the column's 128-bit lane with vpermd; 4*d added to a
   fixed pattern gives the vpermb indices that gather the four [c0 c1 c2 c0]
   windows out of the 64 bytes at t + off4 (4 columns span < 16 pixels).  Keeping
   the table at 8 bytes per column keeps it in L1 together with t.
   Four groups (16 outputs) are finished together; the packs interleave them per
   128-bit lane, which one vpermd undoes.  t needs 16 pixels of readable padding. */
DP_AVX512_FN DP_INLINE __m512i dp_hfinish_avx512(const __m512i *q)
{
    const __m512i k128 = _mm512_set1_epi16(128);
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    __m512i a = _mm512_mulhrs_epi16(_mm512_packs_epi32(q[0], q[1]), k128);
    __m512i b = _mm512_mulhrs_epi16(_mm512_packs_epi32(q[2], q[3]), k128);
    return _mm512_permutexvar_epi32(order, _mm512_xor_si512(_mm512_packs_epi16(a, b), k80));
}

/* Store 16 pixels at p (table columns c .. c+15): masked unless all are real. */
DP_AVX512_FN DP_INLINE void dp_hstore_avx512(uint8_t *p, __m512i v, int c, int lead, int ncols,
                                             int stream)
{
    if (c >= lead && c + 16 <= ncols) {
        if (stream) /* p is 64-byte aligned */
            _mm512_stream_si512((void *)p, v);
        else
            _mm512_storeu_si512((void *)p, v);
    } else {
        uint32_t m = 0xFFFFu;
        if (c < lead)
            m &= 0xFFFFu << (lead - c);
        if (c + 16 > ncols)
            m &= 0xFFFFu >> (c + 16 - ncols);
        _mm512_mask_storeu_epi32((void *)p, (__mmask16)m, v);
    }
}

DP_AVX512_FN DP_INLINE void dp_horiz_avx512_impl(const int two, const uint8_t *t0,
                                                 const uint8_t *t1, const int32_t *off4,
                                                 const uint8_t *wt, uint8_t *base0,
                                                 uint8_t *base1, int lead, int ncols,
                                                 dp_pf *pfp, int stream)
{
    dp_pf pf = *pfp;
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i iw = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    const __m512i id = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7);
    /* window byte m of channel c = byte 4*tap + c of the pixels, tap = 0,1,2,0 */
    const __m512i pat = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3));
    for (int x = 0; x < ncols; x += 16) {
        const int g = x >> 2;
        dp_pf_step(&pf);
        dp_pf_step(&pf);
        __m512i q0[4], q1[4];
        for (int k = 0; k < 4; k++) {
            const __m512i e = _mm512_castsi256_si512(
                _mm256_load_si256((const __m256i *)(wt + 32 * (size_t)(g + k))));
            const __m512i idx = _mm512_add_epi8(pat, _mm512_permutexvar_epi32(id, e));
            const __m512i w = _mm512_permutexvar_epi32(iw, e);
            const int32_t o = off4[g + k];
            __m512i p = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512((const void *)(t0 + o)));
            q0[k] = _mm512_madd_epi16(_mm512_maddubs_epi16(w, p), ones);
            if (two) {
                p = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512((const void *)(t1 + o)));
                q1[k] = _mm512_madd_epi16(_mm512_maddubs_epi16(w, p), ones);
            }
        }
        dp_hstore_avx512(base0 + 4 * (ptrdiff_t)x, dp_hfinish_avx512(q0), x, lead, ncols, stream);
        if (two)
            dp_hstore_avx512(base1 + 4 * (ptrdiff_t)x, dp_hfinish_avx512(q1), x, lead, ncols,
                             stream);
    }
    *pfp = pf;
}

DP_AVX512_FN static void dp_horiz_avx512_1(const uint8_t *t0, const int32_t *off4,
                                           const uint8_t *wt, uint8_t *base0, int lead,
                                           int ncols, dp_pf *pf, int stream)
{
    dp_horiz_avx512_impl(0, t0, t0, off4, wt, base0, base0, lead, ncols, pf, stream);
}

DP_AVX512_FN static void dp_horiz_avx512_2(const uint8_t *t0, const uint8_t *t1,
                                           const int32_t *off4, const uint8_t *wt,
                                           uint8_t *base0, uint8_t *base1, int lead, int ncols,
                                           dp_pf *pf, int stream)
{
    dp_horiz_avx512_impl(1, t0, t1, off4, wt, base0, base1, lead, ncols, pf, stream);
}

/* ------------------------------------------------------------------------- */
/* CPU detection                                                             */
/* ------------------------------------------------------------------------- */

static int dp_detect_isa(void)
{
    unsigned a, b, c, d;
    int isa = DP_BOX_ISA_SSE2;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return isa;
    const int ssse3 = (c >> 9) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!(ssse3 && osxsave && avx))
        return isa;
    unsigned xlo, xhi;
    __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    (void)xhi;
    if ((xlo & 6u) != 6u) /* OS saves XMM and YMM state */
        return isa;
    if (__get_cpuid_max(0, NULL) < 7)
        return isa;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & (1u << 5)))
        return isa;
    isa = DP_BOX_ISA_AVX2;
    /* AVX512F (ebx 16), AVX512BW (ebx 30), AVX512VBMI (ecx 1), and the OS saving
       opmask and ZMM state (xcr0 bits 5-7). */
    if ((b & (1u << 16)) && (b & (1u << 30)) && (c & (1u << 1)) && (xlo & 0xE0u) == 0xE0u)
        isa = DP_BOX_ISA_AVX512;
    return isa;
}

#else /* !DP_X86 */

static int dp_detect_isa(void) { return DP_BOX_ISA_SCALAR; }

#endif

int dp_box_downscale_best_isa(void)
{
    static int cached; /* 0 = not yet known; benign race: every thread stores the same */
#if defined(__GNUC__) || defined(__clang__)
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v == 0) {
        v = dp_detect_isa();
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
#else
    if (cached == 0)
        cached = dp_detect_isa();
    return cached;
#endif
}

/* ------------------------------------------------------------------------- */
/* Driver                                                                    */
/* ------------------------------------------------------------------------- */

#define DP_PAD_PIXELS 20 /* readable slack after an intermediate row (AVX-512 reads 16) */

/* Output rectangles at least this large are written with non-temporal stores on
   the AVX2 / AVX-512 paths (rows whose start is suitably aligned): a frame that
   size does not stay in cache anyway, and streaming saves the read-for-ownership
   traffic.  Define DP_BOX_STREAM_MIN_BYTES=0 to always stream where aligned, or a
   huge value to never stream. */
#ifndef DP_BOX_STREAM_MIN_BYTES
#define DP_BOX_STREAM_MIN_BYTES (4u << 20)
#endif

int dp_box_downscale_isa(int isa,
                         const uint32_t *src, int src_width, int src_height, int src_stride,
                         uint32_t *dst, int dst_stride, int dst_x, int dst_y, int width, int height,
                         double ax, double bx, double ay, double by)
{
    if (!(ax > 1.0 && ax <= 2.0 && ay > 1.0 && ay <= 2.0))
        return -1;
    if (!(fabs(bx) <= 1073741824.0 && fabs(by) <= 1073741824.0))
        return -1; /* also rejects NaN / inf */
    if (!src || !dst || src_width <= 0 || src_height <= 0 ||
        (int64_t)src_stride < 4 * (int64_t)src_width || dst_x < 0 || dst_y < 0)
        return -1;
    if (width <= 0 || height <= 0)
        return 0;
    if ((int64_t)dst_x + width > INT32_MAX || (int64_t)dst_y + height > INT32_MAX ||
        width > (1 << 26))
        return -1;

    const int best = dp_box_downscale_best_isa();
    if (isa == DP_BOX_ISA_AUTO) {
        isa = best;
#if !defined(__OPTIMIZE__) && DP_X86
        /* Unoptimised build: the SSE2 path suffers least from -O0 (about 40 ms per
           2048x1536 frame against 55 for AVX-512 and 165 for AVX2); the output is
           bit-identical either way. */
        if (best > DP_BOX_ISA_SSE2)
            isa = DP_BOX_ISA_SSE2;
#endif
    }
    if (isa < DP_BOX_ISA_SCALAR || isa > best)
        return -2;

    /* SIMD paths: `lead` phantom columns before the rectangle put the start of the
       column table on a 32 (AVX2) or 64 (AVX-512) byte boundary of the first
       destination row, so that whole chunks can use aligned non-temporal stores.
       The table is padded at the end to whole chunks (copies of the last column). */
    const int chunk = isa == DP_BOX_ISA_AVX512 ? 16 : (isa == DP_BOX_ISA_AVX2 ? 8 : 1);
    const uint8_t *out_first =
        (const uint8_t *)dst + (ptrdiff_t)dst_y * dst_stride + 4 * (size_t)dst_x;
    const int lead = (chunk > 1 && ((uintptr_t)out_first & 3) == 0)
                         ? (int)(((uintptr_t)out_first & (uintptr_t)(4 * chunk - 1)) >> 2)
                         : 0;
    const int nreal = lead + width;                                /* real end column */
    const int ncols = (nreal + chunk - 1) / chunk * chunk;        /* table columns */

    /* Memory: column offsets, weights, and two intermediate rows.  An intermediate
       row never needs more than min(src_width, 2*width + 3) pixels. */
    size_t off_bytes, wt_bytes;
    switch (isa) {
    case DP_BOX_ISA_AVX512:
        off_bytes = (size_t)(ncols / 4) * 4;
        wt_bytes = (size_t)ncols * 8;
        break;
    case DP_BOX_ISA_AVX2:
        off_bytes = (size_t)ncols * 4;
        wt_bytes = (size_t)ncols * 16;
        break;
    case DP_BOX_ISA_SSE2:
        off_bytes = (size_t)ncols * 4;
        wt_bytes = (size_t)ncols * 32;
        break;
    default:
        off_bytes = (size_t)ncols * 4;
        wt_bytes = (size_t)ncols * 8;
        break;
    }
    int64_t maxpix = 2 * (int64_t)width + 3;
    if (maxpix > src_width)
        maxpix = src_width;
    off_bytes = (off_bytes + 63) & ~(size_t)63;
    wt_bytes = (wt_bytes + 63) & ~(size_t)63;
    /* the second row starts 2 KB + 64 bytes off the first modulo 4 KB, so that the
       two rows' accesses do not alias in the L1 set index */
    size_t tmp_bytes = ((size_t)(maxpix + DP_PAD_PIXELS) * 4 + 4095) & ~(size_t)4095;
    tmp_bytes += 2048 + 64;
    unsigned char *block = (unsigned char *)malloc(off_bytes + wt_bytes + 2 * tmp_bytes + 64);
    if (!block)
        return -1;
    unsigned char *base = (unsigned char *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    int32_t *off = (int32_t *)base;
    uint8_t *wt = base + off_bytes;
    uint8_t *tmp0 = wt + wt_bytes;
    uint8_t *tmp1 = tmp0 + tmp_bytes;

    /* Column taps -> ISA specific tables.  off[] first holds absolute source
       indices; they become byte offsets into the intermediate once cmin is known. */
    int32_t cmin = INT32_MAX, cmax = INT32_MIN, gbase = 0;
    dp_taps ct = {0, 1, {256, 0, 0}};
    for (int x = 0; x < ncols; x++) {
        /* phantom lead columns copy the first real column, padding the last one */
        if (x == 0 || (x >= lead && x < nreal)) {
            dp_axis_taps(ax, bx, (int64_t)dst_x + (x < lead ? 0 : x - lead), src_width, &ct);
            if (ct.idx < cmin)
                cmin = ct.idx;
            if (ct.idx + ct.n - 1 > cmax)
                cmax = ct.idx + ct.n - 1;
        }
        const int w0 = ct.w[0] > 255 ? 255 : ct.w[0]; /* byte weights: 256 = 255 + 1 */
        const uint8_t bw[4] = {(uint8_t)w0, (uint8_t)ct.w[1], (uint8_t)ct.w[2],
                               (uint8_t)(ct.w[0] - w0)};
        if (isa == DP_BOX_ISA_AVX512) {
            if ((x & 3) == 0) {
                gbase = ct.idx;
                off[x >> 2] = gbase;
            }
            const int d = ct.idx - gbase; /* <= 7: taps of 4 columns span < 16 pixels */
            uint8_t *we = wt + 8 * (size_t)x;
            memcpy(we, bw, 4);
            memset(we + 4, 4 * d, 4);
            continue;
        }
        int pos = x;
        if (isa == DP_BOX_ISA_AVX2) {
            int r = x & 7;
            pos = (x & ~7) + (r < 4 ? 2 * r : 2 * (r - 4) + 1);
        }
        off[pos] = ct.idx;
        if (isa == DP_BOX_ISA_SSE2) {
            uint16_t *e = (uint16_t *)(wt + 32 * (size_t)pos);
            for (int c = 0; c < 4; c++) {
                e[c] = (uint16_t)ct.w[0];
                e[4 + c] = (uint16_t)ct.w[1];
                e[8 + c] = (uint16_t)ct.w[2];
                e[12 + c] = 0;
            }
        } else if (isa == DP_BOX_ISA_AVX2) {
            uint8_t *e = wt + 16 * (size_t)pos;
            for (int c = 0; c < 4; c++)
                memcpy(e + 4 * c, bw, 4);
        } else {
            uint16_t *e = (uint16_t *)(wt + 8 * (size_t)pos);
            e[0] = (uint16_t)ct.w[0];
            e[1] = (uint16_t)ct.w[1];
            e[2] = (uint16_t)ct.w[2];
            e[3] = 0;
        }
    }
    const int noff = isa == DP_BOX_ISA_AVX512 ? ncols / 4 : ncols;
    for (int x = 0; x < noff; x++)
        off[x] = (off[x] - cmin) * 4;
    const int npix = cmax - cmin + 1; /* <= maxpix */
    const int nbytes = npix * 4;
    memset(tmp0 + nbytes, 0, DP_PAD_PIXELS * 4);
    memset(tmp1 + nbytes, 0, DP_PAD_PIXELS * 4);

    const int stream_ok =
        (uint64_t)width * (uint64_t)height * 4u >= (uint64_t)DP_BOX_STREAM_MIN_BYTES;
    const uintptr_t stream_align = isa == DP_BOX_ISA_AVX512 ? 63 : 31;
    int streamed = 0;
    const int pairs = isa >= DP_BOX_ISA_AVX2; /* two destination rows per pass */
    const uint8_t *src0 = (const uint8_t *)src + 4 * (size_t)cmin;

    dp_pf pf;
    pf.base = (const char *)src0;
    pf.stride = src_stride;
    pf.seg = nbytes;
    pf.p = pf.end = NULL;
    pf.row = -1;
    pf.limit = -1;

    /* Vertical taps for rows y .. y+3 (ring of 4), computed once each. */
    dp_taps vts[4];
    for (int k = 0; k < 4 && k < height; k++)
        dp_axis_taps(ay, by, (int64_t)dst_y + k, src_height, &vts[k]);

    for (int y = 0; y < height;) {
        const int nrows = (pairs && y + 1 < height) ? 2 : 1;
        const dp_taps *va = &vts[y & 3];
        const dp_taps *vb = &vts[(y + 1) & 3];
        /* Prefetch: rows after this step's last tap, up to the last row that the
           next step's destination rows need. */
        const dp_taps *vlast = nrows == 2 ? vb : va;
        const int last_here = vlast->idx + vlast->n - 1;
        int ahead = y + nrows + (pairs ? 1 : 0); /* last destination row of the next step */
        if (ahead >= height)
            ahead = height - 1;
        if (ahead > y + 3)
            ahead = y + 3;
        const dp_taps *vahead = &vts[ahead & 3];
        if (pf.row < last_here) { /* this step's own rows are loaded by the passes */
            pf.row = last_here;
            pf.p = pf.end = NULL;
        }
        pf.limit = vahead->idx + vahead->n - 1;

        uint8_t *ta = tmp0, *tb = tmp1;
        for (int r = 0; r < nrows; r++) {
            const dp_taps *vt = r ? vb : va;
            if (r == 1 && dp_same_taps(va, vb)) { /* clamped edge rows: same source */
                tb = ta;
                break;
            }
            const uint8_t *r0 = src0 + (ptrdiff_t)vt->idx * src_stride;
            const uint8_t *r1 = vt->n > 1 ? r0 + src_stride : r0;
            const uint8_t *r2 = vt->n > 2 ? r1 + src_stride : r1;
            uint8_t *t = r ? tb : ta;
            switch (isa) {
#if DP_X86
            case DP_BOX_ISA_AVX512: dp_vert_avx512(r0, r1, r2, vt, t, nbytes, &pf); break;
            case DP_BOX_ISA_AVX2: dp_vert_avx2(r0, r1, r2, vt, t, nbytes, &pf); break;
            case DP_BOX_ISA_SSE2: dp_vert_sse2(r0, r1, r2, vt, t, nbytes, &pf); break;
#endif
            default: dp_vert_scalar(r0, r1, r2, vt, t, nbytes); break;
            }
        }

        uint8_t *out0 = (uint8_t *)dst + (ptrdiff_t)(dst_y + y) * dst_stride + 4 * (size_t)dst_x;
        uint8_t *out1 = out0 + dst_stride;
        /* table column c is written at base + 4*c; columns below lead are phantoms */
        uint8_t *base0 = out0 - 4 * (ptrdiff_t)lead, *base1 = out1 - 4 * (ptrdiff_t)lead;
        int st = stream_ok && ((uintptr_t)base0 & stream_align) == 0 &&
                 (nrows == 1 || ((uintptr_t)base1 & stream_align) == 0);
        streamed |= st;
        switch (isa) {
#if DP_X86
        case DP_BOX_ISA_AVX512:
            if (nrows == 2)
                dp_horiz_avx512_2(ta, tb, off, wt, base0, base1, lead, nreal, &pf, st);
            else
                dp_horiz_avx512_1(ta, off, wt, base0, lead, nreal, &pf, st);
            break;
        case DP_BOX_ISA_AVX2:
            if (nrows == 2)
                dp_horiz_avx2_2(ta, tb, off, wt, base0, base1, lead, nreal, &pf, st);
            else
                dp_horiz_avx2_1(ta, off, wt, base0, lead, nreal, &pf, st);
            break;
        case DP_BOX_ISA_SSE2: dp_horiz_sse2(ta, off, wt, out0, width, &pf); break;
#endif
        default: dp_horiz_scalar(ta, off, (const uint16_t *)wt, out0, width, &pf); break;
        }

        /* refill the taps ring */
        for (int k = 0; k < nrows; k++)
            if (y + 4 + k < height)
                dp_axis_taps(ay, by, (int64_t)dst_y + y + 4 + k, src_height, &vts[(y + k) & 3]);
        y += nrows;
    }
#if DP_X86
    if (streamed)
        _mm_sfence(); /* make the non-temporal stores globally visible before returning */
#endif
    (void)streamed;
    (void)stream_align;
    free(block);
    return 0;
}

int dp_box_downscale(const uint32_t *src, int src_width, int src_height, int src_stride,
                     uint32_t *dst, int dst_stride, int dst_x, int dst_y, int width, int height,
                     double ax, double bx, double ay, double by)
{
    return dp_box_downscale_isa(DP_BOX_ISA_AUTO, src, src_width, src_height, src_stride, dst,
                                dst_stride, dst_x, dst_y, width, height, ax, bx, ay, by);
}

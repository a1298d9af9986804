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
 *         subtracting 128 (xor 0x80): sum(w*(p-128)) = sum(w*p) - 128*256 which
 *         fits a signed 16-bit lane, and the offset is added back (mod 2^16) at the
 *         end.  The intermediate row is kept in this "biased" signed form.
 *         Vertical: interleave bytes of rows 0/1 (and row 2 with a constant 1 whose
 *         weight 128 supplies the rounding term), pmaddubsw, shift, pack.
 *         Horizontal: load the 16 bytes (4 pixels) starting at the output's first
 *         tap, pshufb them into [c0 c1 c2 c0] groups per channel, pmaddubsw with
 *         the column's weights [w0 w1 w2 w3] (w3 carries the 256th unit when a
 *         single tap has all the weight, which does not fit in a byte), pmaddwd
 *         with ones to finish the per-channel sums, then pack 8 outputs at once.
 *   SSE2  the same arithmetic in 16-bit lanes with pmullw (products <= 65280).
 *   scalar  plain C, used on non-x86 targets and for tails.
 *
 * Per call we build a table with one entry per destination column (offset into
 * the intermediate + weights, ~20-40 bytes) and the intermediate row, in a single
 * malloc that is freed before returning.  Vertical taps are computed per row.
 */

#include "box_scale.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define DP_X86 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define DP_X86 0
#endif

#if DP_X86
#define DP_AVX2_FN __attribute__((target("avx2")))
#endif

/* ------------------------------------------------------------------------- */
/* Tap computation (shared by all paths)                                     */
/* ------------------------------------------------------------------------- */

typedef struct {
    int32_t idx;  /* first (clamped) source index */
    int32_t n;    /* number of taps, 1..3; taps are idx, idx+1, idx+2 */
    int32_t w[3]; /* weights in 1/256, sum 256; only w[0] can be 256; unused = 0 */
} dp_taps;

/* Taps of output index X along one axis: box [a*X + b, a*(X+1) + b), 1 < a <= 2. */
static void dp_axis_taps(double a, double b, int64_t X, int size, dp_taps *t)
{
    double x0 = a * (double)X + b;
    double x1 = a * (double)(X + 1) + b;
    double f = floor(x0);
    double mass[3];
    int32_t idx[3];
    int n = 0;

    /* The box starts in pixel f and, being shorter than 2 but longer than 1,
       ends in pixel f+1 or f+2.  Pixel f and f+1 always get positive overlap. */
    for (int j = 0; j < 3; j++) {
        double k = f + (double)j;
        double lo = x0 > k ? x0 : k;
        double hi = x1 < k + 1.0 ? x1 : k + 1.0;
        double m = hi - lo;
        if (!(m > 0.0))
            continue;
        double kc = k < 0.0 ? 0.0 : (k > (double)(size - 1) ? (double)(size - 1) : k);
        int32_t ki = (int32_t)kc;
        if (n > 0 && idx[n - 1] == ki) {
            mass[n - 1] += m; /* clamped onto the same edge pixel: merge */
        } else {
            idx[n] = ki;
            mass[n] = m;
            n++;
        }
    }
    if (n == 0) { /* cannot happen for sane inputs; be safe */
        double kc = f < 0.0 ? 0.0 : (f > (double)(size - 1) ? (double)(size - 1) : f);
        idx[0] = (int32_t)kc;
        mass[0] = 1.0;
        n = 1;
    }

    /* Largest-remainder quantisation to integers summing to 256. */
    double total = 0.0;
    for (int j = 0; j < n; j++)
        total += mass[j];
    int w[3] = {0, 0, 0};
    double frac[3];
    int sum = 0;
    for (int j = 0; j < n; j++) {
        double x = mass[j] * 256.0 / total;
        int q = (int)floor(x);
        if (q < 0)
            q = 0;
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

/* Software prefetch cursor.  The inner loops of both passes each issue one
   prefetch per iteration for the source rows that the next destination rows will
   need, walking the rows [row, limit] of the column range in order.  Keeping
   requests in flight all the time matters far more here than the arithmetic. */
typedef struct {
    const char *p, *end; /* next line to prefetch, end of the current row segment */
    const char *base;    /* row 0 of the column range */
    ptrdiff_t stride;
    int row, limit, seg; /* current row, last row to prefetch, bytes per row segment */
} dp_pf;

#if defined(__GNUC__) || defined(__clang__)
#define DP_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define DP_PREFETCH(p) ((void)(p))
#endif

static inline void dp_pf_step(dp_pf *s)
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
   padding after the last used pixel. */
static void dp_horiz_scalar(const uint8_t *t, const int32_t *off, const uint16_t *w,
                            uint8_t *out, int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    for (int x = 0; x < width; x++) {
        if ((x & 3) == 0)
            dp_pf_step(&pf);
        const uint8_t *p = t + off[x];
        const unsigned w0 = w[4 * x], w1 = w[4 * x + 1], w2 = w[4 * x + 2];
        for (int c = 0; c < 4; c++)
            out[4 * x + c] = (uint8_t)((w0 * p[c] + w1 * p[4 + c] + w2 * p[8 + c] + 128u) >> 8);
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
    dp_pf pf = *pfp;
    if (vt->n == 1 || nbytes < 16) {
        dp_vert_scalar(r0, r1, r2, vt, t, nbytes);
        *pfp = pf;
        return;
    }
    const __m128i z = _mm_setzero_si128();
    const __m128i rnd = _mm_set1_epi16(128);
    const __m128i W0 = _mm_set1_epi16((short)vt->w[0]);
    const __m128i W1 = _mm_set1_epi16((short)vt->w[1]);
    const __m128i W2 = _mm_set1_epi16((short)vt->w[2]);
    const int three = vt->n == 3;
    int i = 0;
    for (;;) {
            dp_pf_step(&pf);
        if (i + 16 > nbytes)
            i = nbytes - 16; /* last block overlaps the previous one */
        __m128i a = _mm_loadu_si128((const __m128i *)(r0 + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(r1 + i));
        __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(a, z), W0),
                                   _mm_mullo_epi16(_mm_unpacklo_epi8(b, z), W1));
        __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(a, z), W0),
                                   _mm_mullo_epi16(_mm_unpackhi_epi8(b, z), W1));
        if (three) {
            __m128i c = _mm_loadu_si128((const __m128i *)(r2 + i));
            lo = _mm_add_epi16(lo, _mm_mullo_epi16(_mm_unpacklo_epi8(c, z), W2));
            hi = _mm_add_epi16(hi, _mm_mullo_epi16(_mm_unpackhi_epi8(c, z), W2));
        }
        lo = _mm_srli_epi16(_mm_add_epi16(lo, rnd), 8);
        hi = _mm_srli_epi16(_mm_add_epi16(hi, rnd), 8);
        _mm_storeu_si128((__m128i *)(t + i), _mm_packus_epi16(lo, hi));
        i += 16;
        if (i >= nbytes)
            break;
    }
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
        _mm_storeu_si128((__m128i *)(out + 4 * x), _mm_packus_epi16(u01, u23));
    }
    for (; x < width; x++) {
        __m128i p = _mm_loadu_si128((const __m128i *)(t + off[x]));
        __m128i s = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(p, z), W[2 * x]),
                                  _mm_mullo_epi16(_mm_unpackhi_epi8(p, z), W[2 * x + 1]));
        s = _mm_add_epi16(s, _mm_srli_si128(s, 8));
        s = _mm_srli_epi16(_mm_add_epi16(s, rnd), 8);
        uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(s, s));
        memcpy(out + 4 * x, &v, 4);
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

DP_AVX2_FN
static void dp_vert_avx2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                         const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    if (nbytes < 32) {
        dp_vert_biased_scalar(r0, r1, r2, vt, t, nbytes);
        *pfp = pf;
        return;
    }
    const __m256i k80 = _mm256_set1_epi8((char)0x80);
    int i = 0;
    if (vt->w[0] == 256) { /* single tap: copy */
        for (;;) {
            dp_pf_step(&pf);
            if (i + 32 > nbytes)
                i = nbytes - 32;
            __m256i a = _mm256_loadu_si256((const __m256i *)(r0 + i));
            _mm256_storeu_si256((__m256i *)(t + i), _mm256_xor_si256(a, k80));
            i += 32;
            if (i >= nbytes)
                break;
        }
        *pfp = pf;
        return;
    }
    /* byte pairs (row0, row1) get weights (w0, w1) */
    const __m256i W01 = _mm256_set1_epi16((short)(vt->w[0] | (vt->w[1] << 8)));
    if (vt->n == 2) {
        /* pmulhrsw by 128 = (x*128 + 2^14) >> 15 = (x + 128) >> 8: round + shift */
        const __m256i k128 = _mm256_set1_epi16(128);
        for (;;) {
            dp_pf_step(&pf);
            if (i + 32 > nbytes)
                i = nbytes - 32;
            __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(r0 + i)), k80);
            __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(r1 + i)), k80);
            __m256i lo = _mm256_maddubs_epi16(W01, _mm256_unpacklo_epi8(a, b));
            __m256i hi = _mm256_maddubs_epi16(W01, _mm256_unpackhi_epi8(a, b));
            lo = _mm256_mulhrs_epi16(lo, k128);
            hi = _mm256_mulhrs_epi16(hi, k128);
            _mm256_storeu_si256((__m256i *)(t + i), _mm256_packs_epi16(lo, hi));
            i += 32;
            if (i >= nbytes)
                break;
        }
    } else {
        /* byte pairs (row2, 1) get weights (w2, 128): the 128 is the rounding term */
        const __m256i W2R = _mm256_set1_epi16((short)(vt->w[2] | (128 << 8)));
        const __m256i one = _mm256_set1_epi8(1);
        for (;;) {
            dp_pf_step(&pf);
            if (i + 32 > nbytes)
                i = nbytes - 32;
            __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(r0 + i)), k80);
            __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(r1 + i)), k80);
            __m256i c = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(r2 + i)), k80);
            __m256i lo = _mm256_add_epi16(_mm256_maddubs_epi16(W01, _mm256_unpacklo_epi8(a, b)),
                                          _mm256_maddubs_epi16(W2R, _mm256_unpacklo_epi8(c, one)));
            __m256i hi = _mm256_add_epi16(_mm256_maddubs_epi16(W01, _mm256_unpackhi_epi8(a, b)),
                                          _mm256_maddubs_epi16(W2R, _mm256_unpackhi_epi8(c, one)));
            lo = _mm256_srai_epi16(lo, 8);
            hi = _mm256_srai_epi16(hi, 8);
            _mm256_storeu_si256((__m256i *)(t + i), _mm256_packs_epi16(lo, hi));
            i += 32;
            if (i >= nbytes)
                break;
        }
    }
    *pfp = pf;
}

/* wt: 16 bytes per column: [w0' w1 w2 w3] x 4 with w0' = min(w0, 255), w3 = w0 - w0'.
   Columns are stored in groups of 8 in the order x, x+4, x+1, x+5, x+2, x+6, x+3, x+7
   (so that the per-lane packs produce outputs in order); the last width % 8 columns
   are in natural order.  off[] uses the same order. */
DP_AVX2_FN
static void dp_horiz_avx2(const uint8_t *t, const int32_t *off, const uint8_t *wt,
                          uint8_t *out, int width, dp_pf *pfp, int stream)
{
    dp_pf pf = *pfp;
    const __m256i shuf = _mm256_setr_epi8(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3,
                                          0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3);
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i bias = _mm256_set1_epi16((short)0x8080); /* +32768 (unbias) + 128 (round) */
    const __m256i k128 = _mm256_set1_epi16(128);
    const __m256i k80 = _mm256_set1_epi8((char)0x80);
    const __m256i sel = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        const int32_t *o = off + x;
        const __m256i e = _mm256_load_si256((const __m256i *)(wt + 4 * (size_t)x));
        dp_pf_step(&pf);
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            uint64_t oo; /* two offsets with one load */
            memcpy(&oo, o + 2 * k, 8);
            __m256i p = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(t + (uint32_t)oo)));
            p = _mm256_inserti128_si256(p, _mm_loadu_si128((const __m128i *)(t + (oo >> 32))), 1);
            p = _mm256_shuffle_epi8(p, shuf);
            p = _mm256_maddubs_epi16(_mm256_permutevar8x32_epi32(e, _mm256_add_epi32(sel, _mm256_set1_epi32(2 * k))), p);
            q[k] = _mm256_madd_epi16(p, ones);
        }
        /* q = sum(w * (v - 128)) = sum(w * v) - 32768, fits int16 */
        __m256i a = _mm256_packs_epi32(q[0], q[1]);
        __m256i b = _mm256_packs_epi32(q[2], q[3]);
        a = _mm256_mulhrs_epi16(a, k128); /* (q + 128) >> 8 = result - 128 */
        b = _mm256_mulhrs_epi16(b, k128);
        __m256i r = _mm256_xor_si256(_mm256_packs_epi16(a, b), k80);
        if (stream) /* out is 32-byte aligned */
            _mm256_stream_si256((__m256i *)(out + 4 * (size_t)x), r);
        else
            _mm256_storeu_si256((__m256i *)(out + 4 * (size_t)x), r);
    }
    const __m128i shuf1 = _mm256_castsi256_si128(shuf);
    const __m128i ones1 = _mm256_castsi256_si128(ones);
    const __m128i bias1 = _mm256_castsi256_si128(bias);
    for (; x < width; x++) {
        __m128i p = _mm_loadu_si128((const __m128i *)(t + off[x]));
        p = _mm_shuffle_epi8(p, shuf1);
        int32_t w4;
        memcpy(&w4, wt + 4 * (size_t)x, 4);
        p = _mm_maddubs_epi16(_mm_set1_epi32(w4), p);
        p = _mm_madd_epi16(p, ones1);
        p = _mm_packs_epi32(p, p);
        p = _mm_srli_epi16(_mm_add_epi16(p, bias1), 8);
        uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(p, p));
        memcpy(out + 4 * (size_t)x, &v, 4);
    }
    *pfp = pf;
}


/* ------------------------------------------------------------------------- */
/* AVX-512 path (needs AVX512F + AVX512BW + AVX512VBMI: Ice Lake, Zen 4 and    */
/* later).  Same arithmetic and intermediate format as the AVX2 path.         */
/* ------------------------------------------------------------------------- */

#define DP_AVX512_FN __attribute__((target("avx512f,avx512bw,avx512vbmi")))

DP_AVX512_FN
static void dp_vert_avx512(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                           const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    if (nbytes < 64) {
        dp_vert_avx2(r0, r1, r2, vt, t, nbytes, pfp);
        return;
    }
    dp_pf pf = *pfp;
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    int i = 0;
    if (vt->w[0] == 256) {
        for (;;) {
            dp_pf_step(&pf);
            if (i + 64 > nbytes)
                i = nbytes - 64;
            __m512i a = _mm512_loadu_si512((const void *)(r0 + i));
            _mm512_storeu_si512((void *)(t + i), _mm512_xor_si512(a, k80));
            i += 64;
            if (i >= nbytes)
                break;
        }
        *pfp = pf;
        return;
    }
    const __m512i W01 = _mm512_set1_epi16((short)(vt->w[0] | (vt->w[1] << 8)));
    const __m512i k128 = _mm512_set1_epi16(128);
    if (vt->n == 2) {
        for (;;) {
            dp_pf_step(&pf);
            if (i + 64 > nbytes)
                i = nbytes - 64;
            __m512i a = _mm512_xor_si512(_mm512_loadu_si512((const void *)(r0 + i)), k80);
            __m512i b = _mm512_xor_si512(_mm512_loadu_si512((const void *)(r1 + i)), k80);
            __m512i lo = _mm512_maddubs_epi16(W01, _mm512_unpacklo_epi8(a, b));
            __m512i hi = _mm512_maddubs_epi16(W01, _mm512_unpackhi_epi8(a, b));
            lo = _mm512_mulhrs_epi16(lo, k128);
            hi = _mm512_mulhrs_epi16(hi, k128);
            _mm512_storeu_si512((void *)(t + i), _mm512_packs_epi16(lo, hi));
            i += 64;
            if (i >= nbytes)
                break;
        }
    } else {
        const __m512i W2 = _mm512_set1_epi16((short)vt->w[2]);
        const __m512i z = _mm512_setzero_si512();
        for (;;) {
            dp_pf_step(&pf);
            if (i + 64 > nbytes)
                i = nbytes - 64;
            __m512i a = _mm512_xor_si512(_mm512_loadu_si512((const void *)(r0 + i)), k80);
            __m512i b = _mm512_xor_si512(_mm512_loadu_si512((const void *)(r1 + i)), k80);
            __m512i c = _mm512_xor_si512(_mm512_loadu_si512((const void *)(r2 + i)), k80);
            __m512i lo = _mm512_add_epi16(_mm512_maddubs_epi16(W01, _mm512_unpacklo_epi8(a, b)),
                                          _mm512_maddubs_epi16(W2, _mm512_unpacklo_epi8(c, z)));
            __m512i hi = _mm512_add_epi16(_mm512_maddubs_epi16(W01, _mm512_unpackhi_epi8(a, b)),
                                          _mm512_maddubs_epi16(W2, _mm512_unpackhi_epi8(c, z)));
            lo = _mm512_mulhrs_epi16(lo, k128);
            hi = _mm512_mulhrs_epi16(hi, k128);
            _mm512_storeu_si512((void *)(t + i), _mm512_packs_epi16(lo, hi));
            i += 64;
            if (i >= nbytes)
                break;
        }
    }
    *pfp = pf;
}

/* Columns in groups of 4 (the column count is padded to a multiple of 16 by
   repeating the last column).  Per group: off4 = byte offset of the group's first
   tap in t, and 32 bytes, 8 per column: the four byte weights [w0 w1 w2 w3] and
   four copies of 4*d, d = the column's first tap relative to the group's.  The
   weights are broadcast to the column's 128-bit lane with vpermd; 4*d added to a
   fixed pattern gives the vpermb indices that gather the four [c0 c1 c2 c0]
   windows out of the 64 bytes at t + off4 (4 columns span < 16 pixels).  Keeping
   the table at 8 bytes per column keeps it in L1 together with t.
   Four groups (16 outputs) are finished together; the packs interleave them per
   128-bit lane, which one vpermd undoes.  The last partial chunk is stored with
   a mask.  t needs 16 pixels of readable padding. */
DP_AVX512_FN
static void dp_horiz_avx512(const uint8_t *t, const int32_t *off4, const uint8_t *wt,
                            uint8_t *out, int width, dp_pf *pfp, int stream)
{
    dp_pf pf = *pfp;
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i k128 = _mm512_set1_epi16(128);
    const __m512i k80 = _mm512_set1_epi8((char)0x80);
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i iw = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
    const __m512i id = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 5, 5, 5, 5, 7, 7, 7, 7);
    /* window byte m of channel c = byte 4*tap + c of the pixels, tap = 0,1,2,0 */
    const __m512i pat = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3));
    for (int x = 0; x < width; x += 16) {
        const int g = x >> 2;
        dp_pf_step(&pf);
        dp_pf_step(&pf);
        __m512i q[4];
        for (int k = 0; k < 4; k++) {
            __m512i e = _mm512_castsi256_si512(
                _mm256_load_si256((const __m256i *)(wt + 32 * (size_t)(g + k))));
            __m512i idx = _mm512_add_epi8(pat, _mm512_permutexvar_epi32(id, e));
            __m512i p = _mm512_loadu_si512((const void *)(t + off4[g + k]));
            p = _mm512_permutexvar_epi8(idx, p);
            p = _mm512_maddubs_epi16(_mm512_permutexvar_epi32(iw, e), p);
            q[k] = _mm512_madd_epi16(p, ones);
        }
        __m512i a = _mm512_mulhrs_epi16(_mm512_packs_epi32(q[0], q[1]), k128);
        __m512i b = _mm512_mulhrs_epi16(_mm512_packs_epi32(q[2], q[3]), k128);
        __m512i r = _mm512_permutexvar_epi32(order, _mm512_xor_si512(_mm512_packs_epi16(a, b), k80));
        if (x + 16 <= width) {
            if (stream) /* out is 64-byte aligned */
                _mm512_stream_si512((void *)(out + 4 * (size_t)x), r);
            else
                _mm512_storeu_si512((void *)(out + 4 * (size_t)x), r);
        } else {
            _mm512_mask_storeu_epi32((void *)(out + 4 * (size_t)x),
                                     (__mmask16)((1u << (width - x)) - 1u), r);
        }
    }
    *pfp = pf;
}

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
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v == 0) {
        v = dp_detect_isa();
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* ------------------------------------------------------------------------- */
/* Driver                                                                    */
/* ------------------------------------------------------------------------- */

#define DP_PAD_PIXELS 20 /* readable slack after the intermediate row (AVX-512 reads 16) */

/* Output rectangles at least this large are written with non-temporal stores on
   the AVX2 / AVX-512 paths (when the row start is aligned): a frame that size will
   not stay in cache anyway, and streaming saves the read-for-ownership traffic.
   Define DP_BOX_STREAM_MIN_BYTES=0 to always stream, or a huge value to never. */
#ifndef DP_BOX_STREAM_MIN_BYTES
#define DP_BOX_STREAM_MIN_BYTES (4u << 20)
#endif

static int dp_same_taps(const dp_taps *a, const dp_taps *b)
{
    return a->idx == b->idx && a->n == b->n && a->w[0] == b->w[0] && a->w[1] == b->w[1] &&
           a->w[2] == b->w[2];
}

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
        width > (1 << 28))
        return -1;

    const int best = dp_box_downscale_best_isa();
    if (isa == DP_BOX_ISA_AUTO)
        isa = best;
    if (isa < DP_BOX_ISA_SCALAR || isa > best)
        return -2;

    /* Memory: column offsets, weights (and vpermb indices for AVX-512), and the
       intermediate row.  The intermediate never needs more than
       min(src_width, 2*width + 3) pixels. */
    const int wpad = (width + 15) & ~15; /* AVX-512 pads to 16 columns */
    size_t off_bytes, wt_bytes, perm_bytes = 0;
    switch (isa) {
    case DP_BOX_ISA_AVX512:
        off_bytes = (size_t)(wpad / 4) * 4;
        wt_bytes = (size_t)wpad * 8;
        break;
    case DP_BOX_ISA_AVX2:
        off_bytes = (size_t)width * 4;
        wt_bytes = (size_t)width * 4;
        break;
    case DP_BOX_ISA_SSE2:
        off_bytes = (size_t)width * 4;
        wt_bytes = (size_t)width * 32;
        break;
    default:
        off_bytes = (size_t)width * 4;
        wt_bytes = (size_t)width * 8;
        break;
    }
    int64_t maxpix = 2 * (int64_t)width + 3;
    if (maxpix > src_width)
        maxpix = src_width;
    off_bytes = (off_bytes + 63) & ~(size_t)63;
    size_t tmp_bytes = ((size_t)(maxpix + DP_PAD_PIXELS) * 4 + 63) & ~(size_t)63;
    unsigned char *block = (unsigned char *)malloc(off_bytes + wt_bytes + perm_bytes + tmp_bytes + 64);
    if (!block)
        return -1;
    unsigned char *base = (unsigned char *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    int32_t *off = (int32_t *)base;
    uint8_t *wt = base + off_bytes;
    uint8_t *perm = wt + wt_bytes;
    uint8_t *tmp = perm + perm_bytes;

    /* Column taps -> ISA specific tables.  off[] first holds absolute source
       indices; they become byte offsets into tmp once cmin is known. */
    const int width8 = isa == DP_BOX_ISA_AVX2 ? (width & ~7) : 0;
    const int ncols = isa == DP_BOX_ISA_AVX512 ? wpad : width;
    int32_t cmin = INT32_MAX, cmax = INT32_MIN, gbase = 0;
    dp_taps ct = {0, 1, {256, 0, 0}};
    for (int x = 0; x < ncols; x++) {
        if (x < width) { /* padding columns repeat the last real column */
            dp_axis_taps(ax, bx, (int64_t)dst_x + x, src_width, &ct);
            if (ct.idx < cmin)
                cmin = ct.idx;
            if (ct.idx + ct.n - 1 > cmax)
                cmax = ct.idx + ct.n - 1;
        }
        const int w0 = ct.w[0] > 255 ? 255 : ct.w[0]; /* byte weights: 256 = 255 + 1 */
        const uint8_t bw[4] = {(uint8_t)w0, (uint8_t)ct.w[1], (uint8_t)ct.w[2], (uint8_t)(ct.w[0] - w0)};
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
        if (x < width8) {
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
            memcpy(wt + 4 * (size_t)pos, bw, 4);
        } else {
            uint16_t *e = (uint16_t *)(wt + 8 * (size_t)pos);
            e[0] = (uint16_t)ct.w[0];
            e[1] = (uint16_t)ct.w[1];
            e[2] = (uint16_t)ct.w[2];
            e[3] = 0;
        }
    }
    const int noff = isa == DP_BOX_ISA_AVX512 ? wpad / 4 : width;
    for (int x = 0; x < noff; x++)
        off[x] = (off[x] - cmin) * 4;
    const int npix = cmax - cmin + 1; /* <= maxpix */
    const int nbytes = npix * 4;
    memset(tmp + nbytes, 0, DP_PAD_PIXELS * 4);

    const int stream_ok = (uint64_t)width * (uint64_t)height * 4u >= (uint64_t)DP_BOX_STREAM_MIN_BYTES;
    int streamed = 0;
    const uint8_t *src0 = (const uint8_t *)src + 4 * (size_t)cmin;
    dp_taps prev = {-1, 0, {0, 0, 0}};
    dp_taps vt, vnext, vnext2;
    dp_axis_taps(ay, by, (int64_t)dst_y, src_height, &vnext);
    dp_axis_taps(ay, by, (int64_t)dst_y + 1, src_height, &vnext2);
    dp_pf pf;
    pf.base = (const char *)src0;
    pf.stride = src_stride;
    pf.seg = nbytes;
    pf.row = vnext.idx - 1; /* nothing prefetched yet */
    pf.p = pf.end = NULL;
    for (int y = 0; y < height; y++) {
        vt = vnext;
        vnext = vnext2;
        if (y + 2 < height)
            dp_axis_taps(ay, by, (int64_t)dst_y + y + 2, src_height, &vnext2);
        /* Prefetch ahead: rows after this row's last tap, up to the last row that
           destination row y + 2 needs (never past the rectangle). */
        const int last_here = vt.idx + vt.n - 1;
        if (pf.row < last_here) { /* this row's own taps are loaded by the pass itself */
            pf.row = last_here;
            pf.p = pf.end = NULL;
        }
        pf.limit = y + 1 >= height ? last_here
                 : (y + 2 >= height ? vnext.idx + vnext.n - 1 : vnext2.idx + vnext2.n - 1);
        /* Rows whose taps equal the previous row's (clamped edges) reuse tmp. */
        if (!dp_same_taps(&vt, &prev)) {
            const uint8_t *r0 = src0 + (ptrdiff_t)vt.idx * src_stride;
            const uint8_t *r1 = vt.n > 1 ? r0 + src_stride : r0;
            const uint8_t *r2 = vt.n > 2 ? r1 + src_stride : r1;
            switch (isa) {
#if DP_X86
            case DP_BOX_ISA_AVX512: dp_vert_avx512(r0, r1, r2, &vt, tmp, nbytes, &pf); break;
            case DP_BOX_ISA_AVX2: dp_vert_avx2(r0, r1, r2, &vt, tmp, nbytes, &pf); break;
            case DP_BOX_ISA_SSE2: dp_vert_sse2(r0, r1, r2, &vt, tmp, nbytes, &pf); break;
#endif
            default: dp_vert_scalar(r0, r1, r2, &vt, tmp, nbytes); break;
            }
            prev = vt;
        }
        uint8_t *out = (uint8_t *)dst + (ptrdiff_t)(dst_y + y) * dst_stride + 4 * (size_t)dst_x;
        switch (isa) {
#if DP_X86
        case DP_BOX_ISA_AVX512: {
            int st = stream_ok && ((uintptr_t)out & 63) == 0;
            streamed |= st;
            dp_horiz_avx512(tmp, off, wt, out, width, &pf, st);
            break;
        }
        case DP_BOX_ISA_AVX2: {
            int st = stream_ok && ((uintptr_t)out & 31) == 0;
            streamed |= st;
            dp_horiz_avx2(tmp, off, wt, out, width, &pf, st);
            break;
        }
        case DP_BOX_ISA_SSE2: dp_horiz_sse2(tmp, off, wt, out, width, &pf); break;
#endif
        default: dp_horiz_scalar(tmp, off, (const uint16_t *)wt, out, width, &pf); break;
        }
    }
#if DP_X86
    if (streamed)
        _mm_sfence(); /* make the non-temporal stores globally visible before returning */
#endif
    (void)streamed;
    (void)stream_ok;
    (void)perm;
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

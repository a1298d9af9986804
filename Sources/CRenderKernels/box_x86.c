// SPDX-License-Identifier: MIT
/* box_x86.c - the x86 kernels of the area-average downscale (see box_scale.c for the method):
 * SSE2, SSSE3 and AVX2 vertical and horizontal passes, and which path this CPU runs (AVX-512 is
 * in box_avx512.c). */

#include "box_internal.h"


/* ------------------------------------------------------------------------- */
/* SSE2 path                                                                 */
/* ------------------------------------------------------------------------- */
#if DP_X86

/* The SSE2 path computes the two destination rows of a step together and keeps their
   intermediate rows interleaved by pixel in one buffer (8 bytes a pixel: row a's 4, row b's
   4), the layout its horizontal pass multiplies in, so that pass loads each column's taps of
   both rows with two loads and no shuffling. */

/* One row's 16-byte block of the vertical pass: kind 1 (a copy), 2 or 3 taps. */
DP_INLINE __m128i dp_vblock_sse2(const int kind, const uint8_t *r0, const uint8_t *r1,
                                 const uint8_t *r2, __m128i W0, __m128i W1, __m128i W2)
{
    const __m128i z = _mm_setzero_si128();
    const __m128i rnd = _mm_set1_epi16(128);
    const __m128i a = _mm_loadu_si128((const __m128i *)r0);
    if (kind == 1)
        return a;
    const __m128i b = _mm_loadu_si128((const __m128i *)r1);
    __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(a, z), W0),
                               _mm_mullo_epi16(_mm_unpacklo_epi8(b, z), W1));
    __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(a, z), W0),
                               _mm_mullo_epi16(_mm_unpackhi_epi8(b, z), W1));
    if (kind == 3) {
        const __m128i c = _mm_loadu_si128((const __m128i *)r2);
        lo = _mm_add_epi16(lo, _mm_mullo_epi16(_mm_unpacklo_epi8(c, z), W2));
        hi = _mm_add_epi16(hi, _mm_mullo_epi16(_mm_unpackhi_epi8(c, z), W2));
    }
    lo = _mm_srli_epi16(_mm_add_epi16(lo, rnd), 8);
    hi = _mm_srli_epi16(_mm_add_epi16(hi, rnd), 8);
    return _mm_packus_epi16(lo, hi);
}

typedef struct {
    const uint8_t *r[3];
    __m128i w[3];
} dp_vrow_sse2;

/* Both rows' block at byte i of the rows, interleaved by pixel at 2 i of t. */
DP_INLINE void dp_vblock2_sse2(const int ka, const int kb, const dp_vrow_sse2 *a,
                               const dp_vrow_sse2 *b, uint8_t *t, int i)
{
    const __m128i va = dp_vblock_sse2(ka, a->r[0] + i, a->r[1] + i, a->r[2] + i, a->w[0], a->w[1], a->w[2]);
    const __m128i vb = dp_vblock_sse2(kb, b->r[0] + i, b->r[1] + i, b->r[2] + i, b->w[0], b->w[1], b->w[2]);
    _mm_storeu_si128((__m128i *)(void *)(t + 2 * (size_t)i), _mm_unpacklo_epi32(va, vb));
    _mm_storeu_si128((__m128i *)(void *)(t + 2 * (size_t)i + 16), _mm_unpackhi_epi32(va, vb));
}

/* 16 bytes and one prefetch an iteration; the last block may overlap the one before.  (The
   loop counter must stay a plain induction variable: a data-dependent clamp inside the loop
   serialises the iterations.) */
#define DP_DEFINE_VERT2_SSE2(ka, kb)                                                       \
    static void dp_vert2_sse2_##ka##kb(const dp_vrow_sse2 *a, const dp_vrow_sse2 *b,        \
                                       uint8_t *t, int nbytes, dp_pf *pfp)                  \
    {                                                                                       \
        dp_pf pf = *pfp;                                                                    \
        int i = 0;                                                                          \
        for (; i + 16 <= nbytes; i += 16) {                                                 \
            dp_pf_step(&pf);                                                                \
            dp_vblock2_sse2(ka, kb, a, b, t, i);                                            \
        }                                                                                   \
        if (i < nbytes)                                                                     \
            dp_vblock2_sse2(ka, kb, a, b, t, nbytes - 16);                                  \
        *pfp = pf;                                                                          \
    }
DP_DEFINE_VERT2_SSE2(2, 2)
DP_DEFINE_VERT2_SSE2(2, 3)
DP_DEFINE_VERT2_SSE2(3, 2)
DP_DEFINE_VERT2_SSE2(3, 3)

/* A kind 1 row (a copy: the clamped edges) with any other: rare, so not unswitched. */
static void dp_vert2_sse2_any(int ka, int kb, const dp_vrow_sse2 *a, const dp_vrow_sse2 *b,
                              uint8_t *t, int nbytes, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    int i = 0;
    for (;; i += 16) {
        if (i + 16 > nbytes)
            i = nbytes - 16;
        dp_pf_step(&pf);
        dp_vblock2_sse2(ka, kb, a, b, t, i);
        if (i + 16 >= nbytes)
            break;
    }
    *pfp = pf;
}

static int dp_vrow_sse2_set(dp_vrow_sse2 *v, const uint8_t *src0, ptrdiff_t stride,
                            const dp_taps *vt)
{
    v->r[0] = src0 + (ptrdiff_t)vt->idx * stride;
    v->r[1] = vt->n > 1 ? v->r[0] + stride : v->r[0];
    v->r[2] = vt->n > 2 ? v->r[1] + stride : v->r[1];
    for (int k = 0; k < 3; k++)
        v->w[k] = _mm_set1_epi16((short)vt->w[k]);
    return vt->w[0] == 256 ? 1 : vt->n;
}

void dp_vert2_sse2(const uint8_t *src0, ptrdiff_t stride, const dp_taps *va, const dp_taps *vb,
                   uint8_t *t, int nbytes, dp_pf *pfp)
{
    dp_vrow_sse2 a, b;
    const int ka = dp_vrow_sse2_set(&a, src0, stride, va), kb = dp_vrow_sse2_set(&b, src0, stride, vb);
    if (nbytes < 16) { /* under 4 pixels: rows apart, then interleaved */
        uint8_t ra[16], rb[16];
        dp_vert_scalar(a.r[0], a.r[1], a.r[2], va, ra, nbytes);
        dp_vert_scalar(b.r[0], b.r[1], b.r[2], vb, rb, nbytes);
        for (int p = 0; p < nbytes / 4; p++) {
            memcpy(t + 8 * p, ra + 4 * p, 4);
            memcpy(t + 8 * p + 4, rb + 4 * p, 4);
        }
        return;
    }
    if (ka == 2 && kb == 2)
        dp_vert2_sse2_22(&a, &b, t, nbytes, pfp);
    else if (ka == 2 && kb == 3)
        dp_vert2_sse2_23(&a, &b, t, nbytes, pfp);
    else if (ka == 3 && kb == 2)
        dp_vert2_sse2_32(&a, &b, t, nbytes, pfp);
    else if (ka == 3 && kb == 3)
        dp_vert2_sse2_33(&a, &b, t, nbytes, pfp);
    else
        dp_vert2_sse2_any(ka, kb, &a, &b, t, nbytes, pfp);
}

/* Horizontal pass on the interleaved rows: one column x is the 32 bytes at its first tap (taps
   k = 0..3 of both rows: [a p0, b p0, a p1, b p1], [a p2, b p2, a p3, b p3]); as 8 x u16
   [tap k of row a, of row b] times [w_k x 8], summed over k and rounded: [row a's output,
   row b's].  Every 16-bit lane does useful work and the column's weights serve both rows.
   wt: per column 48 bytes = [w0 x 8], [w1 x 8], [w2 x 8]. */
DP_INLINE __m128i dp_hcol_sse2(const uint8_t *t, int32_t o, const __m128i *w)
{
    const __m128i z = _mm_setzero_si128();
    const __m128i lo = _mm_loadu_si128((const __m128i *)(t + o));
    const __m128i hi = _mm_loadu_si128((const __m128i *)(t + o + 16));
    __m128i s = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(lo, z), w[0]),
                              _mm_mullo_epi16(_mm_unpackhi_epi8(lo, z), w[1]));
    s = _mm_add_epi16(s, _mm_mullo_epi16(_mm_unpacklo_epi8(hi, z), w[2]));
    return _mm_srli_epi16(_mm_add_epi16(s, _mm_set1_epi16(128)), 8);
}

/* Both rows into out0 and out1 (out1 NULL: the last row of an odd height, row a only). */
void dp_horiz_sse2(const uint8_t *t, const int32_t *off, const uint8_t *wt, uint8_t *out0,
                   uint8_t *out1, int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    const __m128i *W = (const __m128i *)wt;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        dp_pf_step(&pf);
        /* [row a x, row b x, row a x+1, row b x+1] -> [row a x, x+1, row b x, x+1] */
        const __m128i a = _mm_shuffle_epi32(
            _mm_packus_epi16(dp_hcol_sse2(t, off[x], W + 3 * x), dp_hcol_sse2(t, off[x + 1], W + 3 * (x + 1))),
            _MM_SHUFFLE(3, 1, 2, 0));
        const __m128i b = _mm_shuffle_epi32(
            _mm_packus_epi16(dp_hcol_sse2(t, off[x + 2], W + 3 * (x + 2)), dp_hcol_sse2(t, off[x + 3], W + 3 * (x + 3))),
            _MM_SHUFFLE(3, 1, 2, 0));
        _mm_storeu_si128((__m128i *)(void *)(out0 + 4 * (size_t)x), _mm_unpacklo_epi64(a, b));
        if (out1)
            _mm_storeu_si128((__m128i *)(void *)(out1 + 4 * (size_t)x), _mm_unpackhi_epi64(a, b));
    }
    for (; x < width; x++) {
        const __m128i v = _mm_packus_epi16(dp_hcol_sse2(t, off[x], W + 3 * x), _mm_setzero_si128());
        const uint32_t pa = (uint32_t)_mm_cvtsi128_si32(v);
        const uint32_t pb = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 4));
        memcpy(out0 + 4 * (size_t)x, &pa, 4);
        if (out1)
            memcpy(out1 + 4 * (size_t)x, &pb, 4);
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
        DP_VERT_LOOP(32, dp_vblock_avx2, kind, W01, W2);                                    \
    }
DP_DEFINE_VERT_AVX2(1)
DP_DEFINE_VERT_AVX2(2)
DP_DEFINE_VERT_AVX2(3)

DP_AVX2_FN
void dp_vert_avx2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
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

DP_AVX2_FN void dp_horiz_avx2_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt,
                                       uint8_t *base0, int lead, int ncols, dp_pf *pf,
                                       int stream)
{
    dp_horiz_avx2_impl(0, t0, t0, off, wt, base0, base0, lead, ncols, pf, stream);
}

DP_AVX2_FN void dp_horiz_avx2_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                                       const uint8_t *wt, uint8_t *base0, uint8_t *base1,
                                       int lead, int ncols, dp_pf *pf, int stream)
{
    dp_horiz_avx2_impl(1, t0, t1, off, wt, base0, base1, lead, ncols, pf, stream);
}

/* ------------------------------------------------------------------------- */
/* SSSE3 path: the AVX2 path's arithmetic and biased intermediate, 16 bytes  */
/* at a time (what SSE4-class kiosk CPUs without AVX2 run).                  */
/* ------------------------------------------------------------------------- */

DP_SSSE3_FN DP_INLINE void dp_vblock_ssse3(const int kind, const uint8_t *r0, const uint8_t *r1,
                                           const uint8_t *r2, uint8_t *t, __m128i W01, __m128i W2)
{
    const __m128i k80 = _mm_set1_epi8((char)0x80);
    const __m128i k128 = _mm_set1_epi16(128);
    __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r0), k80);
    if (kind == 1) {
        _mm_storeu_si128((__m128i *)t, a);
        return;
    }
    __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r1), k80);
    __m128i lo = _mm_maddubs_epi16(W01, _mm_unpacklo_epi8(a, b));
    __m128i hi = _mm_maddubs_epi16(W01, _mm_unpackhi_epi8(a, b));
    if (kind == 3) {
        const __m128i z = _mm_setzero_si128();
        __m128i c = _mm_xor_si128(_mm_loadu_si128((const __m128i *)r2), k80);
        lo = _mm_add_epi16(lo, _mm_maddubs_epi16(W2, _mm_unpacklo_epi8(c, z)));
        hi = _mm_add_epi16(hi, _mm_maddubs_epi16(W2, _mm_unpackhi_epi8(c, z)));
    }
    lo = _mm_mulhrs_epi16(lo, k128); /* (x + 128) >> 8 */
    hi = _mm_mulhrs_epi16(hi, k128);
    _mm_storeu_si128((__m128i *)t, _mm_packs_epi16(lo, hi));
}

#define DP_DEFINE_VERT_SSSE3(kind)                                                         \
    DP_SSSE3_FN static void dp_vert_ssse3_##kind(const uint8_t *r0, const uint8_t *r1,      \
                                                 const uint8_t *r2, uint8_t *t, int nbytes, \
                                                 __m128i W01, __m128i W2, dp_pf *pfp)        \
    {                                                                                       \
        DP_VERT_LOOP(16, dp_vblock_ssse3, kind, W01, W2);                                   \
    }
DP_DEFINE_VERT_SSSE3(1)
DP_DEFINE_VERT_SSSE3(2)
DP_DEFINE_VERT_SSSE3(3)

DP_SSSE3_FN
void dp_vert_ssse3(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                   const dp_taps *vt, uint8_t *t, int nbytes, dp_pf *pfp)
{
    if (nbytes < 16) {
        dp_vert_biased_scalar(r0, r1, r2, vt, t, nbytes);
        return;
    }
    const __m128i W01 = _mm_set1_epi16((short)(vt->w[0] | (vt->w[1] << 8)));
    const __m128i W2 = _mm_set1_epi16((short)vt->w[2]);
    if (vt->w[0] == 256)
        dp_vert_ssse3_1(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else if (vt->n == 2)
        dp_vert_ssse3_2(r0, r1, r2, t, nbytes, W01, W2, pfp);
    else
        dp_vert_ssse3_3(r0, r1, r2, t, nbytes, W01, W2, pfp);
}

/* One output's per-channel sums (4 x int32, biased by -32768) from the 16 bytes at its first
   tap: [c0 c1 c2 c0] per channel times its weights [w0' w1 w2 w3]. */
DP_SSSE3_FN DP_INLINE __m128i dp_hwin_ssse3(const uint8_t *p, __m128i w)
{
    const __m128i shuf = _mm_setr_epi8(0, 4, 8, 0, 1, 5, 9, 1, 2, 6, 10, 2, 3, 7, 11, 3);
    __m128i v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), shuf);
    return _mm_madd_epi16(_mm_maddubs_epi16(w, v), _mm_set1_epi16(1));
}

/* Horizontal pass, one or two rows sharing the column table.  off[] natural order, wt 16
   bytes per column ([w0' w1 w2 w3] x 4, as AVX2's); t needs 4 pixels of readable padding. */
DP_SSSE3_FN DP_INLINE void dp_horiz_ssse3_impl(const int two, const uint8_t *t0,
                                               const uint8_t *t1, const int32_t *off,
                                               const uint8_t *wt, uint8_t *out0, uint8_t *out1,
                                               int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    const __m128i k128 = _mm_set1_epi16(128);
    const __m128i k80 = _mm_set1_epi8((char)0x80);
    const __m128i *W = (const __m128i *)wt;
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        dp_pf_step(&pf);
        __m128i q0[4], q1[4];
        for (int k = 0; k < 4; k++) {
            const __m128i w = _mm_load_si128(W + x + k);
            q0[k] = dp_hwin_ssse3(t0 + off[x + k], w);
            if (two)
                q1[k] = dp_hwin_ssse3(t1 + off[x + k], w);
        }
        __m128i a = _mm_mulhrs_epi16(_mm_packs_epi32(q0[0], q0[1]), k128);
        __m128i b = _mm_mulhrs_epi16(_mm_packs_epi32(q0[2], q0[3]), k128);
        _mm_storeu_si128((__m128i *)(out0 + 4 * (size_t)x), _mm_xor_si128(_mm_packs_epi16(a, b), k80));
        if (two) {
            a = _mm_mulhrs_epi16(_mm_packs_epi32(q1[0], q1[1]), k128);
            b = _mm_mulhrs_epi16(_mm_packs_epi32(q1[2], q1[3]), k128);
            _mm_storeu_si128((__m128i *)(out1 + 4 * (size_t)x), _mm_xor_si128(_mm_packs_epi16(a, b), k80));
        }
    }
    for (; x < width; x++) {
        const __m128i w = _mm_load_si128(W + x);
        for (int r = 0; r <= two; r++) {
            __m128i q = dp_hwin_ssse3((r ? t1 : t0) + off[x], w);
            q = _mm_mulhrs_epi16(_mm_packs_epi32(q, q), k128);
            uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_xor_si128(_mm_packs_epi16(q, q), k80));
            memcpy((r ? out1 : out0) + 4 * (size_t)x, &v, 4);
        }
    }
    *pfp = pf;
}

DP_SSSE3_FN void dp_horiz_ssse3_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt,
                                  uint8_t *out0, int width, dp_pf *pf)
{
    dp_horiz_ssse3_impl(0, t0, t0, off, wt, out0, out0, width, pf);
}

DP_SSSE3_FN void dp_horiz_ssse3_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                                  const uint8_t *wt, uint8_t *out0, uint8_t *out1, int width,
                                  dp_pf *pf)
{
    dp_horiz_ssse3_impl(1, t0, t1, off, wt, out0, out1, width, pf);
}

/* ------------------------------------------------------------------------- */
/* CPU detection                                                             */
/* ------------------------------------------------------------------------- */

int dp_detect_isa(void)
{
    unsigned a, b, c, d;
    int isa = DP_BOX_ISA_SSE2;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return isa;
    const int ssse3 = (c >> 9) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!ssse3)
        return isa;
    isa = DP_BOX_ISA_SSSE3;
    if (!(osxsave && avx))
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

int dp_detect_isa(void) { return DP_NEON ? DP_BOX_ISA_NEON : DP_BOX_ISA_SCALAR; }

#endif

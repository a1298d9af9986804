// SPDX-License-Identifier: MIT
/* box_avx512.c - the AVX-512 kernels of the area-average downscale (AVX512F + AVX512BW +
 * AVX512VBMI: Ice Lake, Zen 4 and later): the AVX2 path's arithmetic and intermediate format,
 * sixteen pixels at a time (see box_scale.c for the method). */

#include "box_internal.h"

#if DP_X86

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
void dp_vert_avx512(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
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

DP_AVX512_FN void dp_horiz_avx512_1(const uint8_t *t0, const int32_t *off4,
                                           const uint8_t *wt, uint8_t *base0, int lead,
                                           int ncols, dp_pf *pf, int stream)
{
    dp_horiz_avx512_impl(0, t0, t0, off4, wt, base0, base0, lead, ncols, pf, stream);
}

DP_AVX512_FN void dp_horiz_avx512_2(const uint8_t *t0, const uint8_t *t1,
                                           const int32_t *off4, const uint8_t *wt,
                                           uint8_t *base0, uint8_t *base1, int lead, int ncols,
                                           dp_pf *pf, int stream)
{
    dp_horiz_avx512_impl(1, t0, t1, off4, wt, base0, base1, lead, ncols, pf, stream);
}

#endif

// SPDX-License-Identifier: MIT
/* box_neon.c - the AArch64 (Advanced SIMD) kernels of the area-average downscale (see
 * box_scale.c for the method).  The scalar path's integer formula, sixteen bytes at a time:
 * weights are bytes (a lone tap's 256 is a copy vertically, 255 + 1 horizontally), products
 * widen to 16 bits (the weights sum to 256, so a sum is at most 255 * 256 = 65280), and the
 * rounding shift (x + 128) >> 8 is one rounding narrow (rshrn).  The intermediate is
 * unbiased, as the scalar path's. */

#include "box_internal.h"

#if DP_NEON

DP_INLINE void dp_vblock_neon(const int kind, const uint8_t *r0, const uint8_t *r1,
                              const uint8_t *r2, uint8_t *t, uint8x16_t W0, uint8x16_t W1,
                              uint8x16_t W2)
{
    const uint8x16_t a = vld1q_u8(r0), b = vld1q_u8(r1);
    uint16x8_t lo = vmull_u8(vget_low_u8(a), vget_low_u8(W0));
    uint16x8_t hi = vmull_high_u8(a, W0);
    lo = vmlal_u8(lo, vget_low_u8(b), vget_low_u8(W1));
    hi = vmlal_high_u8(hi, b, W1);
    if (kind == 3) {
        const uint8x16_t c = vld1q_u8(r2);
        lo = vmlal_u8(lo, vget_low_u8(c), vget_low_u8(W2));
        hi = vmlal_high_u8(hi, c, W2);
    }
    vst1q_u8(t, vrshrn_high_n_u16(vrshrn_n_u16(lo, 8), hi, 8));
}

#define DP_DEFINE_VERT_NEON(kind)                                                          \
    static void dp_vert_neon_##kind(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, \
                                    uint8_t *t, int nbytes, uint8x16_t W0, uint8x16_t W1,   \
                                    uint8x16_t W2, dp_pf *pfp)                              \
    {                                                                                       \
        DP_VERT_LOOP(16, dp_vblock_neon, kind, W0, W1, W2);                                 \
    }
DP_DEFINE_VERT_NEON(2)
DP_DEFINE_VERT_NEON(3)

void dp_vert_neon(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const dp_taps *vt,
                  uint8_t *t, int nbytes, dp_pf *pfp)
{
    /* a single tap (256) is a copy; otherwise every weight is below 256 and fits a byte */
    if (vt->w[0] == 256 || nbytes < 16) {
        dp_vert_scalar(r0, r1, r2, vt, t, nbytes);
        return;
    }
    const uint8x16_t W0 = vdupq_n_u8((uint8_t)vt->w[0]), W1 = vdupq_n_u8((uint8_t)vt->w[1]),
                     W2 = vdupq_n_u8((uint8_t)vt->w[2]);
    if (vt->n == 2)
        dp_vert_neon_2(r0, r1, r2, t, nbytes, W0, W1, W2, pfp);
    else
        dp_vert_neon_3(r0, r1, r2, t, nbytes, W0, W1, W2, pfp);
}

/* One output's weighted taps, not yet summed: the 16 bytes at its first tap are pixels
   [c0 c1 c2 c3]; [c0 c1] times [w0' w1] plus [c2 c0] times [w2 w3] leaves two 4-channel
   halves whose sum is the output's (before rounding). */
DP_INLINE uint16x8_t dp_hwin_neon(const uint8_t *p, const uint8_t *w, uint8x8_t c2c0)
{
    const uint8x16_t v = vld1q_u8(p), wv = vld1q_u8(w);
    const uint16x8_t s = vmull_u8(vget_low_u8(v), vget_low_u8(wv));
    return vmlal_u8(s, vqtbl1_u8(v, c2c0), vget_high_u8(wv));
}

/* Two outputs' halves summed and rounded: 2 pixels. */
DP_INLINE uint16x8_t dp_hsum2_neon(uint16x8_t a, uint16x8_t b)
{
    const uint64x2_t a64 = vreinterpretq_u64_u16(a), b64 = vreinterpretq_u64_u16(b);
    return vaddq_u16(vreinterpretq_u16_u64(vzip1q_u64(a64, b64)),
                     vreinterpretq_u16_u64(vzip2q_u64(a64, b64)));
}

DP_INLINE void dp_horiz_neon_impl(const int two, const uint8_t *t0, const uint8_t *t1,
                                  const int32_t *off, const uint8_t *wt, uint8_t *out0,
                                  uint8_t *out1, int width, dp_pf *pfp)
{
    dp_pf pf = *pfp;
    static const uint8_t idx[8] = {8, 9, 10, 11, 0, 1, 2, 3};
    const uint8x8_t c2c0 = vld1_u8(idx);
    int x = 0;
    for (; x + 4 <= width; x += 4) {
        dp_pf_step(&pf);
        const uint8_t *w = wt + 16 * (size_t)x;
        const int32_t o0 = off[x], o1 = off[x + 1], o2 = off[x + 2], o3 = off[x + 3];
        {
            const uint16x8_t s01 = dp_hsum2_neon(dp_hwin_neon(t0 + o0, w, c2c0),
                                                 dp_hwin_neon(t0 + o1, w + 16, c2c0));
            const uint16x8_t s23 = dp_hsum2_neon(dp_hwin_neon(t0 + o2, w + 32, c2c0),
                                                 dp_hwin_neon(t0 + o3, w + 48, c2c0));
            vst1q_u8(out0 + 4 * (size_t)x, vrshrn_high_n_u16(vrshrn_n_u16(s01, 8), s23, 8));
        }
        if (two) {
            const uint16x8_t s01 = dp_hsum2_neon(dp_hwin_neon(t1 + o0, w, c2c0),
                                                 dp_hwin_neon(t1 + o1, w + 16, c2c0));
            const uint16x8_t s23 = dp_hsum2_neon(dp_hwin_neon(t1 + o2, w + 32, c2c0),
                                                 dp_hwin_neon(t1 + o3, w + 48, c2c0));
            vst1q_u8(out1 + 4 * (size_t)x, vrshrn_high_n_u16(vrshrn_n_u16(s01, 8), s23, 8));
        }
    }
    for (; x < width; x++) {
        const uint8_t *w = wt + 16 * (size_t)x;
        for (int r = 0; r <= two; r++) {
            const uint16x8_t s = dp_hwin_neon((r ? t1 : t0) + off[x], w, c2c0);
            const uint16x4_t sum = vadd_u16(vget_low_u16(s), vget_high_u16(s));
            const uint8x8_t v = vrshrn_n_u16(vcombine_u16(sum, sum), 8);
            const uint32_t u = vget_lane_u32(vreinterpret_u32_u8(v), 0);
            memcpy((r ? out1 : out0) + 4 * (size_t)x, &u, 4);
        }
    }
    *pfp = pf;
}

void dp_horiz_neon_1(const uint8_t *t0, const int32_t *off, const uint8_t *wt, uint8_t *out0,
                     int width, dp_pf *pf)
{
    dp_horiz_neon_impl(0, t0, t0, off, wt, out0, out0, width, pf);
}

void dp_horiz_neon_2(const uint8_t *t0, const uint8_t *t1, const int32_t *off,
                     const uint8_t *wt, uint8_t *out0, uint8_t *out1, int width, dp_pf *pf)
{
    dp_horiz_neon_impl(1, t0, t1, off, wt, out0, out1, width, pf);
}

#endif

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
 *   SSSE3 the AVX2 path 16 bytes at a time, natural column order, two rows per pass.
 *   SSE2  the same integer formula in 16-bit lanes with pmullw (products <= 65280).
 *   NEON  (AArch64) the formula on unbiased bytes: umull/umlal widen the products to 16
 *         bits and rshrn is the rounding shift; horizontally each output's 16-byte window
 *         [c0 c1 c2 c3] is multiplied as [c0 c1] x [w0' w1] + [c2 c0] x [w2 w3] (tbl).
 *   scalar  plain C, every CPU.
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

#include "box_internal.h"

/* ------------------------------------------------------------------------- */
/* Scalar path                                                               */
/* ------------------------------------------------------------------------- */

/* Vertical pass, unbiased intermediate.  nbytes = 4 * pixels. */
void dp_vert_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
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

int dp_box_isa_available(int isa)
{
    if (isa == DP_BOX_ISA_SCALAR)
        return 1;
#if DP_X86
    /* the x86 paths are ordered: a CPU that runs one runs those below it */
    return isa >= DP_BOX_ISA_SSE2 && isa <= DP_BOX_ISA_AVX512 && isa <= dp_box_downscale_best_isa();
#else
    return DP_NEON && isa == DP_BOX_ISA_NEON;
#endif
}

const char *dp_box_isa_name(int isa)
{
    static const char *const names[DP_BOX_ISA_COUNT] = {NULL,    "scalar", "sse2", "ssse3",
                                                        "avx2",  "avx512", "neon"};
    return isa > DP_BOX_ISA_AUTO && isa < DP_BOX_ISA_COUNT ? names[isa] : NULL;
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
    if (!dp_box_isa_available(isa))
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
        wt_bytes = (size_t)ncols * 48;
        break;
    case DP_BOX_ISA_SSSE3:
    case DP_BOX_ISA_NEON:
        off_bytes = (size_t)ncols * 4;
        wt_bytes = (size_t)ncols * 16;
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
    /* the SSE2 path keeps a step's two intermediate rows interleaved in tmp0 (8 bytes a pixel) */
    const int tbpp = isa == DP_BOX_ISA_SSE2 ? 8 : 4;
    size_t tmp_bytes = ((size_t)(maxpix + DP_PAD_PIXELS) * tbpp + 4095) & ~(size_t)4095;
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
            uint16_t *e = (uint16_t *)(wt + 48 * (size_t)pos);
            for (int k = 0; k < 3; k++)
                for (int c = 0; c < 8; c++)
                    e[8 * k + c] = (uint16_t)ct.w[k];
        } else if (isa == DP_BOX_ISA_AVX2 || isa == DP_BOX_ISA_SSSE3) {
            uint8_t *e = wt + 16 * (size_t)pos;
            for (int c = 0; c < 4; c++)
                memcpy(e + 4 * c, bw, 4);
        } else if (isa == DP_BOX_ISA_NEON) {
            uint8_t *e = wt + 16 * (size_t)pos;
            for (int k = 0; k < 4; k++)
                memset(e + 4 * k, bw[k], 4);
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
        off[x] = (off[x] - cmin) * tbpp;
    const int npix = cmax - cmin + 1; /* <= maxpix */
    const int nbytes = npix * 4;
    memset(tmp0 + (size_t)npix * tbpp, 0, (size_t)DP_PAD_PIXELS * tbpp);
    memset(tmp1 + (size_t)npix * tbpp, 0, (size_t)DP_PAD_PIXELS * tbpp);

    const int stream_ok =
        (uint64_t)width * (uint64_t)height * 4u >= (uint64_t)DP_BOX_STREAM_MIN_BYTES;
    const uintptr_t stream_align = isa == DP_BOX_ISA_AVX512 ? 63 : 31;
    int streamed = 0;
    /* two destination rows per pass (each column table entry serves both) */
    const int pairs = isa != DP_BOX_ISA_SCALAR;
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
#if DP_X86
        if (isa == DP_BOX_ISA_SSE2)
            dp_vert2_sse2(src0, src_stride, va, nrows == 2 ? vb : va, ta, nbytes, &pf);
        else
#endif
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
            case DP_BOX_ISA_SSSE3: dp_vert_ssse3(r0, r1, r2, vt, t, nbytes, &pf); break;
#endif
#if DP_NEON
            case DP_BOX_ISA_NEON: dp_vert_neon(r0, r1, r2, vt, t, nbytes, &pf); break;
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
        case DP_BOX_ISA_SSSE3:
            if (nrows == 2)
                dp_horiz_ssse3_2(ta, tb, off, wt, out0, out1, width, &pf);
            else
                dp_horiz_ssse3_1(ta, off, wt, out0, width, &pf);
            break;
        case DP_BOX_ISA_SSE2: dp_horiz_sse2(ta, off, wt, out0, nrows == 2 ? out1 : NULL, width, &pf); break;
#endif
#if DP_NEON
        case DP_BOX_ISA_NEON:
            if (nrows == 2)
                dp_horiz_neon_2(ta, tb, off, wt, out0, out1, width, &pf);
            else
                dp_horiz_neon_1(ta, off, wt, out0, width, &pf);
            break;
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

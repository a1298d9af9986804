// SPDX-License-Identifier: MIT
/* box_taps.c - the weights of the area-average downscale (see box_scale.c for the method): each
 * destination pixel's run of 1..3 source pixels along an axis, in 1/256 summing to 256. */

#include "box_internal.h"

/* floor() without a libm call (x86-64 without SSE4.1 has no rounding insn);
   |x| < 2^62 here. */
static inline double dp_floor(double x)
{
    double t = (double)(int64_t)x;
    return t > x ? t - 1.0 : t;
}

/* Taps of output index X along one axis: box [a*X + b, a*(X+1) + b), 1 < a <= 2. */
void dp_axis_taps(double a, double b, int64_t X, int size, dp_taps *t)
{
    /* Each product rounded on its own before the sum: a fused multiply-add (GCC and clang
       contract a * X + b into one on AArch64) rounds once, and where a box sits symmetrically
       on a pixel that breaks the tie between its outer weights differently from x86 (21/214/21
       against 22/213/21 at a = 1.2, b = 0.1).  The volatile store keeps the products apart
       whatever the compiler's contraction setting; it costs nothing measurable (a table
       entry per column, a ring entry per row). */
    volatile double p0 = a * (double)X, p1 = a * (double)(X + 1);
    const double x0 = p0 + b;
    const double x1 = p1 + b;
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

int dp_same_taps(const dp_taps *a, const dp_taps *b)
{
    return a->idx == b->idx && a->n == b->n && a->w[0] == b->w[0] && a->w[1] == b->w[1] &&
           a->w[2] == b->w[2];
}

/* om_dd_trig.h - sin and cos of an f32 value in double-double: the exact Payne-Hanek reduction and the series
 * behind the fallback of the f32 Sin and Cos kernels (sincos_f32.inc) and the f16/bf16 tables (../tr16.c).
 *
 * Reduction (om_trig_reduce, |x| >= 0.78, x an f32 value): x = m 2^e with m < 2^24 an integer, e = E - 150
 * (E the biased f32 exponent, so -24 <= e <= 104 here). With 2/pi = sum_{i >= 1} b_i 2^-i (om_2opi_bits,
 * tools/gen/gen_trig_tables.py; b_i = 0 for i <= 0),
 *   x 2/pi = m sum_i b_i 2^(e-i).
 * The bits i < i0 = e - 31 add multiples of m 2^32, a multiple of 4: they change no quadrant and no fraction.
 * The 192 bits b_i0 .. b_(i0+191) form the integer G (b_i0 its top bit), so they add m G 2^(e - i0 - 191) =
 * m G 2^-160 = P 2^-160 with P = m G exact in seven 32-bit limbs p[0..6] (p[6] the lowest); the bits past the
 * window add less than m 2^-160 < 2^-136. So x 2/pi = 4j + (p[1] mod 4) + F + tail, where F = p[2..6] 2^-160 is
 * the 160-bit fraction and 0 <= tail < 2^-136. Rounding to the nearest integer: when F >= 1/2 (the top bit of
 * p[2]), k = p[1] + 1 and t = F - 1, else k = p[1] and t = F: the limbs read with p[2] as a signed int32 give
 * t exactly. t is summed into a double-double from its five limbs (the first two by an exact two-sum, then three
 * accurate double-double additions, each within 2^-105 of its result, all partial sums within 2^-64 of t):
 * the result is within 3 2^-105 |t| + 2^-136 of x 2/pi - k. For x < 0 the reduction of |x| is negated (k -> -k).
 * The table is read from b_-55 (e = -24) to b_264 (e = 104): the 11 words hold b_-63 .. b_288.
 * Over all f32 |x| >= 0.78 the smallest |t| is 2^-29.86, at x = 0x1.f37c8ap+95 (tools/c_tool.py trig_reduce_scan scans
 * them all and checks the reduction against MPFR), so t is within 2^-103 of x 2/pi - k, relatively.
 *
 * r = t pi/2 in double-double (pi/2 to 107 bits, one product): within 2^-102 relative of x - k pi/2.
 * sin r = r (1 - r^2/(2 3) (1 - r^2/(4 5) (1 - ...))) and cos r = 1 - r^2/(1 2) (1 - r^2/(3 4) (1 - ...)), 14
 * factors each by Horner in double-double, |r| <= pi/4 (1 + 2^-40): truncation below 2^-107 relative, each step
 * within about 2^-103 of its value, the factors r^2/(2n (2n + 1)) < 0.11 damping the earlier ones: the series
 * are within 2^-101 relative. sin x = (-1)^(q >> 1) (sin r or cos r as q is even or odd), q = k mod 4 (q + 1 for
 * cos x). In all, the double-double result is within 2^-100 of sin x (cos x), relatively.
 * |x| < 0.78 < pi/4 takes r = x (exact) and q = 0.
 */
#ifndef OM_DD_TRIG_H
#define OM_DD_TRIG_H

#include "om_dd_core.h"
#include "om_trig_tab.h"

/* x 2/pi = k + t with k = rint: returns k mod 4 and sets *t (double-double), for an f32 value |x| >= 0.78. */
static inline int om_trig_reduce(double x, om_dd* t) {
  uint32_t b = om_f32_bits((float)x);
  uint32_t m = (b & 0x7fffffu) | 0x800000u;
  int e = (int)((b >> 23) & 255u) - 150;
  int pos = (e - 31) - 1 + 64; /* bit b_i0 at word pos >> 5, bit (pos & 31) from the top */
  int w = pos >> 5, sh = pos & 31;
  uint32_t g[6], p[7];
  for (int j = 0; j < 6; j++) {
    uint64_t two = ((uint64_t)om_2opi_bits[w + j] << 32) | om_2opi_bits[w + j + 1];
    g[j] = (uint32_t)((two << sh) >> 32);
  }
  uint64_t c = 0;
  for (int j = 5; j >= 0; j--) {
    uint64_t v = (uint64_t)m * g[j] + c;
    p[j + 1] = (uint32_t)v;
    c = v >> 32;
  }
  p[0] = (uint32_t)c;
  int q = (int)((p[1] + (p[2] >> 31)) & 3u);
  om_dd s = om_two_sum((double)(int32_t)p[2] * 0x1p-32, (double)p[3] * 0x1p-64);
  s = om_dd_add_d(s, (double)p[4] * 0x1p-96);
  s = om_dd_add_d(s, (double)p[5] * 0x1p-128);
  s = om_dd_add_d(s, (double)p[6] * 0x1p-160);
  if (b >> 31) {
    s = om_dd_neg(s);
    q = (4 - q) & 3;
  }
  *t = s;
  return q;
}

/* sin x (cosine = 0) or cos x (cosine = 1) in double-double, x a finite f32 value. */
static inline om_dd om_dd_sincos(double x, int cosine) {
  om_dd r;
  int q = 0;
  if (x < 0.78 && x > -0.78) {
    r = om_dd_make(x, 0.0);
  } else {
    om_dd t;
    q = om_trig_reduce(x, &t);
    r = om_dd_mul(t, om_dd_make(OM_PIO2_hi, OM_PIO2_lo));
  }
  q = (q + cosine) & 3;
  om_dd r2 = om_dd_mul(r, r), s = om_dd_make(1.0, 0.0);
  int odd = q & 1;
  for (int n = 14; n >= 1; n--) {
    double den = odd ? (double)((2 * n - 1) * (2 * n)) : (double)((2 * n) * (2 * n + 1));
    s = om_dd_add_d(om_dd_neg(om_dd_div_d(om_dd_mul(s, r2), den)), 1.0);
  }
  om_dd y = odd ? s : om_dd_mul(s, r);
  if (!odd && x == 0) y = om_dd_make(x, 0.0); /* sin(+-0) = +-0 */
  return (q & 2) ? om_dd_neg(y) : y;
}

/* The f32 fallbacks of Sin and Cos (om_dd_trig.c; x an f32 value, finite: the first pass settles NaN and inf). */
float om_fb_sin(double x);
float om_fb_cos(double x);

#endif

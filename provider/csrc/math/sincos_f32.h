/* sincos_f32.h - Sin and Cos, f32, correctly rounded in exact mode (included per kernel path by
 * transcendental.inc). Every path runs the first pass below (IEEE + - * / and exact conversions only, so every
 * lane computes the same double on every path, for every finite x) with its rounding test; flagged lanes take the double-double
 * fallback om_fb_sin / om_fb_cos (om_dd_trig.h: exact Payne-Hanek reduction, series in double-double).
 *
 * Quarter turns. x = (k + T) pi/2 with k an integer and T = x 2/pi - k; sin x = (-1)^(q >> 1) s(T) for q = k mod 4
 * even and (-1)^(q >> 1) c(T) for q odd, where s(T) = sin(pi/2 T), c(T) = cos(pi/2 T); cos x is the same with
 * q = k + 1 mod 4 (k mod 4 from the integer k, two's complement, for either sign of x).
 *
 * Reduction (Cody-Waite in quarter turns with per-exponent constants, every finite x; om_trig_tab.h, written by
 * tools/gen/gen_trig_tables.py). om_trig_cw gives C1, C2, C3 for the f32 biased exponent E of x:
 *   |x| < 2^33 (E < 160): 2/pi = C1 + C2 + rho2, C1 and C2 of 28 bits (ulp(C1) = 2^-28, |C2| < 2^-30.8),
 *   |rho2| < 2^-60.68, C3 = RN(rho2), |rho2 - C3| < 2^-114.9. The same three constants for every such lane (a
 *   half vector with no wider lane takes them without the gathers: the same values).
 *   |x| >= 2^33 (x = m 2^e, m < 2^24 an integer, e = E - 150 >= 10): with 2/pi = sum_i b_i 2^-i, the bits i <= e - 2
 *   add multiples of 4 m (nothing mod 4), so 2/pi is replaced by C1e + C2e + rho3e, C1e = sum b_i 2^-i over
 *   e - 1 <= i <= e + 26, C2e over e + 27 <= i <= e + 54 (28 bits each), rho3e the rest (< 2^-(e+54)), C3e = RN(rho3e).
 * In both: p1 = x C1 and p2 = x C2 are exact (24 + 28 bits); k = rint(RN(p1 + p2)); d = p1 - k; t = RN(RN(d + p2) +
 * RN(x C3)). Let T = x (C1 + C2 + rho) - k (rho = rho2 or rho3e): T = x 2/pi - k mod 4, and q = k mod 4 (the bits
 * of k's two's complement) is the quadrant.
 *   |T| <= 1/2 + 2^-20.6: RN(p1 + p2) is within 2^-53.6 |x| of x (C1 + C2) for |x| < 2^33 (|C1 + C2| < 0.6367), and
 *   within 2^-27 (p1 + p2 < 2^26) for the wider lanes; |x rho| < 2^-27.6 (2^-30 for the wider).
 *   d is exact: p1 is a multiple of 2^(ex - 51) (|x| in [2^ex, 2^(ex+1))), and of 2^-26 for the wider lanes; so is k
 *   (an integer; k = 0 for |x| < 0.78, where d = p1); |d| <= |T| + |p2| + |x rho| < 2^(ex + 2) (|p2| < |x| 2^-30.8),
 *   and < 1 for the wider lanes (|p2| < 2^-2).
 *   A = RN(d + p2) = (T - x rho)(1 + e1), then t = RN(A + x C3 (1 + e2)) with |e1|, |e2|, |e3| <= 2^-53:
 *   t - T = T(e1 + e3 + e1 e3) - x rho e1 (1 + e3) + x (C3 - rho) + x C3 e2 (1 + e3), so
 *   |t - T| <= 2^-51.99 |T| + 2^-112.5 |x| (|x| < 2^33; the last three terms < 2^-113.68, 2^-114.9, 2^-113.68 of |x|)
 *   and <= 2^-51.99 |T| + 2^-81.4 for the wider lanes (each of the three < 2^-83).
 * Polynomials (tools/gen/sollya/om_trig_consts.sollya -> om_trig_consts.h), |t| <= 1/2 + 2^-20:
 *   s(t) ~= t S(u), u = RN(t^2), S of degree 6: relative error < 2^-54.5 (supnorm); Horner with |u S'/S| < 0.11:
 *   u's rounding < 0.11 2^-53, the steps < 1.25 2^-53 (the last addition 2^-53, the rest damped by 0.11), t S:
 *   2^-53; in all < 2^-54.5 + 2.36 2^-53 < 2^-51.55.
 *   c(t) ~= C(u), c0 = 1, C of degree 6: < 2^-53.84 (supnorm); |u C'(u)/C(u)| < 0.44 (C >= cos(pi/4)):
 *   u's rounding 0.44 2^-53, the last addition 2^-53, the product u p1 and p1's own error < 0.44 (1 + 1.12) 2^-53:
 *   < 2^-53.84 + 2.38 2^-53 < 2^-51.6.
 * Reduction error through the function: |s'| <= pi/2 and |s(T)| >= sqrt2 |T| (|T| <= 1/2 + 2^-28), so the relative
 * part 2^-51.99 |T| moves s by < 1.111 2^-51.99 relative; |c'(T)| = pi/2 sin(pi/2 |T|) <= (pi/2)^2 |T| and
 * c >= 0.7 give < 1.77 2^-52.99 relative (|T| <= 1/2 + 2^-20). The absolute part moves either by at most pi/2
 * times its own: < 2^-111.8 |x| (|x| < 2^33), < 2^-80.7 (wider lanes).
 * Bound: |y - f(x)| <= |y| 2^-50.2 + min(|x|, 2^33) 2^-111.4 for y the double result (2^-51.55 + 1.111 2^-51.99 and
 * the products < 2^-50.2; the cosine branch below that; 2^-80.7 < 2^33 2^-111.4), f = +-s or +-c by the quadrant.
 * Rounding test: e = |y| (2^-50 + 2^-52) + min(|x|, 2^33) 2^-111 (the 2^-52 covers the roundings of e and of
 * y +- e); when RN_f32(y - e) = RN_f32(y + e), that is RN_f32(f(x)) (rounding is monotone); else the lane is
 * flagged and takes the fallback. The smallest |T| over all f32 is 2^-29.86 (om_dd_trig.h), so |y| >= 2^-29.4
 * for |x| >= 0.78 and the |x| term is below 2^-48.6 |y| even there; the flagged share is about 2^-25.
 * Specials: NaN and +-inf -> canonical NaN (never flagged); sin(+-0) = x (selected: d + x C2 = -0 + +0 would lose
 * the sign); cos(+-0) = 1 (u = 0, y = c0 = 1). Tiny |x| (down to the subnormals): y = t S(u) is within 2^-50 of
 * x, far from any f32 boundary, so sin x = x (and cos x = 1) are settled by the test. No result is subnormal:
 * |sin x| >= |x| 2/pi sin(2^-29 ...) for |x| >= pi/4, and |sin x| ~ |x| below.
 */
#include "om_dd_trig.h"
#include "om_trig_consts.h"

static inline __attribute__((always_inline)) om_vd om_vhorner7(om_vd u, const double* c) {
  return c[0] + u * (c[1] + u * (c[2] + u * (c[3] + u * (c[4] + u * (c[5] + u * c[6])))));
}

/* cosine = 0: sin, 1: cos. */
static inline __attribute__((always_inline)) om_vfh om_sincos_v(om_vfh xf, int cosine, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vd ax = om_vabs(x);
  om_vih special = (om_vih)(((om_vih)xf & 0x7f800000) == 0x7f800000); /* NaN or +-inf */
  x = OM_VSELD(ax < __builtin_inf(), x, OM_VD(0.0));
  om_vd c1 = OM_VD(om_trig_cw[0][0]), c2 = OM_VD(om_trig_cw[1][0]), c3 = OM_VD(om_trig_cw[2][0]);
  om_vl wide = (om_vl)(ax >= 0x1p33) & (om_vl)(ax < __builtin_inf());
  om_vih wide_h = __builtin_convertvector(wide, om_vih);
  if (om_tr_any(&wide_h)) { /* the same constants as above for |x| < 2^33 */
    om_vl e = __builtin_convertvector(((om_vih)xf >> 23) & 255, om_vl);
    c1 = om_vgather(om_trig_cw[0], &e);
    c2 = om_vgather(om_trig_cw[1], &e);
    c3 = om_vgather(om_trig_cw[2], &e);
  }
  om_vd p1 = x * c1, p2 = x * c2; /* both exact */
  om_vd kx = p1 + p2;
  om_vl k;
  om_vd kd = om_vrint(&kx, &k);
  om_vd d = p1 - kd; /* exact */
  om_vd t = (d + p2) + x * c3;
  om_vd u = t * t;
  om_vd ys = t * om_vhorner7(u, om_sin_q);
  om_vd yc = om_vhorner7(u, om_cos_q);
  om_vl q = k + cosine;
  om_vd y = OM_VSELD((q & 1) != 0, yc, ys);
  y = (om_vd)((om_vul)y ^ ((om_vul)(q & 2) << 62));
  if (!cosine) y = OM_VSELD(x == 0.0, x, y); /* sin(-0) = -0: d + x C2 would give +0 (C2 < 0) */
  om_vfh r = __builtin_convertvector(y, om_vfh);
  if (exact) {
    om_vd e = om_vabs(y) * (0x1p-50 + 0x1p-52) + om_vmin(ax, OM_VD(0x1p33)) * 0x1p-111;
    om_vfh lo = __builtin_convertvector(y - e, om_vfh), hi = __builtin_convertvector(y + e, om_vfh);
    om_vih m = (om_vih)(lo != hi) & ~special;
#if OM_VB == 64
    __m256i mv;
    memcpy(&mv, &m, 32);
    *bad = (om_trmask)_mm256_movepi32_mask(mv);
#else
    *bad = m;
#endif
  }
  return OM_VSELF(special, OM_QNAN_F, r);
}
static inline __attribute__((always_inline)) om_vfh om_sin_v(om_vfh xf, int exact, om_trmask* bad) {
  return om_sincos_v(xf, 0, exact, bad);
}
static inline __attribute__((always_inline)) om_vfh om_cos_v(om_vfh xf, int exact, om_trmask* bad) {
  return om_sincos_v(xf, 1, exact, bad);
}
#ifndef OM_FB_SINCOS_DEFINED
#define OM_FB_SINCOS_DEFINED
/* The fallbacks (x an f32 value, finite: the first pass settles NaN and inf). */
static float om_fb_sin(double x) { return om_dd_to_f32(om_dd_sincos(x, 0)); }
static float om_fb_cos(double x) { return om_dd_to_f32(om_dd_sincos(x, 1)); }
#endif
OM_TR_KERNEL(sin_f32, om_sin_v, om_fb_sin)
OM_TR_KERNEL(cos_f32, om_cos_v, om_fb_cos)

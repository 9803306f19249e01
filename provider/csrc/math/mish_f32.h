/* mish_f32.h - Mish x tanh(softplus(x)), f32, correctly rounded in exact mode (included per kernel path by
 * transcendental.inc; fast mode runs the same kernel).
 *
 * tanh(log(1 + u)) = n / (n + 2) with u = e^x, n = u (u + 2), for x <= 0 (u <= 1); and (1 + 2w) / (1 + 2w + 2w^2)
 * with w = e^-x for x > 0. Below -120, x itself and the exponential's argument are clamped at -120: |x| e^x
 * < 2^-160 there and -120 e^-120 rounds to -0 as well; for x > 120 the factor is 1 in double and y = x.
 * u (or w) = RN(hi + lo) from om_vexp_parts: within 1.07 2^-53 relative. In units of 2^-53, relative:
 *   x <= 0: u + 2 within 1.07/3 + 1; n within 1.07 + 1.36 + 1 = 3.43; n + 2 within (3/5) 3.43 + 1 = 3.06;
 *   q = n/(n + 2) within 3.43 + 3.06 + 1 = 7.49; y = RN(x q) within 8.49 < 2^3.09: y within 2^-49.9.
 *   x > 0: 2w exact; a = 1 + 2w within (2/3) 1.07 + 1 = 1.72; b = 2w w within 2 1.07 + 1 = 3.14; a + b within
 *   4.14 + 1 = 5.14 (both positive); q within 1.72 + 5.14 + 1 = 7.86; y within 8.86 < 2^3.15: 2^-49.85.
 * Rounding test eps = 2^-49.5 (+2^-52 padding in om_tr_round); fallback om_fb_mish (om_dd_act.h).
 * Specials: NaN -> canonical NaN; +inf -> +inf; -inf -> -0 (the limit; x q would be -inf times 0);
 * mish(-0) = -0 (0 q keeps the sign of x).
 */
#include "om_dd_act.h"

static inline __attribute__((always_inline)) om_vfh om_mish_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vih inf = (om_vih)((om_vih)xf == 0x7f800000) | (om_vih)((om_vih)xf == (int32_t)0xff800000u);
  om_vih sp = nan | inf;
  om_vfh sv = OM_VSELF(nan, OM_QNAN_F, OM_VSELF((om_vih)(xf > 0), (om_vfh){0} + __builtin_inff(), (om_vfh)((om_vih){0} + (int32_t)0x80000000u)));
  om_vd xs = OM_VSELD(x != x, OM_VD(0.0), x);
  om_vd t = om_vmax(-om_vabs(xs), OM_VD(-120.0)); /* x <= 0: e^x; x > 0: e^-x */
  om_vd hi, lo;
  om_vexp_parts(&t, &hi, &lo);
  om_vd u = hi + lo;
  om_vd n = u * (u + 2.0);
  om_vd qn = n / (n + 2.0);
  om_vd w2 = u + u;
  om_vd a = 1.0 + w2;
  om_vd qp = a / (a + w2 * u);
  om_vd y = om_vmax(xs, OM_VD(-120.0)) * OM_VSELD(x > 0, qp, qn); /* x < -120: -120 e^-120 also rounds to -0 */
  om_vd eps = OM_VD(0x1.6a09e667f3bcdp-50);
  return om_tr_round(&y, &eps, sp, sv, exact, bad);
}
OM_TR_KERNEL(mish_f32, om_mish_v, om_fb_mish)

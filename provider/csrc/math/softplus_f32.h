/* softplus_f32.h - Softplus log(1 + e^x), f32, correctly rounded in exact mode (included per kernel path by
 * transcendental.inc; fast mode runs the same kernel).
 *
 * softplus(x) = max(x, 0) + log1p(u), u = e^-a, a = min(|x|, 120) (x < -120: the result is below 2^-173 and
 * rounds to +0 either way; x > 120: log1p(u) < 2^-173 vanishes next to x in double, y = x exactly).
 * u = RN(hi + lo) from om_vexp_parts(-a): relative error < 2^-52.9 (1.07 2^-53).
 * log1p(u) = 2 atanh(s), s = u / (2 + u) in (0, 1/3]: s within (1.07 + 2) 2^-53 (the error of u enters scaled
 * by 2/(2 + u) <= 1; the sum and the quotient round once each). The series 1 + s^2/3 + ... + s^32/33 (degree
 * 16 in s^2, Horner, positive terms): truncation below (1/3)^34/35 (9/8) < 2^-58.8 relative; evaluation
 * within 1.2 2^-53 (the last addition 2^-53; the rest enters scaled by s^2 q/p < 0.04). L = 2 s p: the error
 * of s enters scaled by s / ((1 - s^2) atanh s) <= 1.08, the product rounds once: L within
 * (1.08 * 3.07 + 1.2 + 1 + 0.03) 2^-53 < 5.6 2^-53 < 2^-50.5.
 * x <= 0: y = L. x > 0: y = RN(x + L), L <= ln 2 < x + L: within 2^-53 + 2^-50.5 < 2^-50.2 relative.
 * Rounding test eps = 2^-50 (+2^-52 padding in om_tr_round); fallback om_fb_softplus (om_dd_act.h).
 * Specials: NaN -> canonical NaN; +inf -> +inf; -inf -> +0; softplus(+-0) = RN(ln 2).
 */
#include "om_dd_act.h"

/* c_k = RN(1/(2k + 1)), k = 0..16: atanh(s)/s = sum c_k s^2k. */
static const double om_atanh_series[17] = {
    1.0,       1.0 / 3.0,  1.0 / 5.0,  1.0 / 7.0,  1.0 / 9.0,  1.0 / 11.0, 1.0 / 13.0, 1.0 / 15.0, 1.0 / 17.0,
    1.0 / 19.0, 1.0 / 21.0, 1.0 / 23.0, 1.0 / 25.0, 1.0 / 27.0, 1.0 / 29.0, 1.0 / 31.0, 1.0 / 33.0};

/* log1p(u) for 0 < u <= 1 in double lanes (bound above). */
static inline __attribute__((always_inline)) om_vd om_vlog1p_unit(om_vd u) {
  om_vd s = u / (u + 2.0);
  om_vd s2 = s * s;
  om_vd p = OM_VD(om_atanh_series[16]);
  for (int k = 15; k >= 0; k--) p = om_atanh_series[k] + s2 * p;
  return 2.0 * (s * p);
}

static inline __attribute__((always_inline)) om_vfh om_softplus_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vih pinf = (om_vih)(xf == __builtin_inff());
  om_vih sp = nan | pinf;
  om_vfh sv = OM_VSELF(nan, OM_QNAN_F, (om_vfh){0} + __builtin_inff());
  om_vd a = om_vmin(om_vabs(x), OM_VD(120.0));
  a = OM_VSELD(x != x, OM_VD(0.0), a);
  om_vd t = -a, hi, lo;
  om_vexp_parts(&t, &hi, &lo);
  om_vd l = om_vlog1p_unit(hi + lo);
  om_vd y = OM_VSELD(x > 0, x + l, l);
  om_vd eps = OM_VD(0x1p-50);
  return om_tr_round(&y, &eps, sp, sv, exact, bad);
}
OM_TR_KERNEL(softplus_f32, om_softplus_v, om_fb_softplus)

/* erf_f32.h - Erf, f32, correctly rounded in exact mode (included per kernel path by transcendental.inc).
 *
 * a = |x|. a < 0.5: erf a = a P(a^2) (a^2 exact), P degree 9 in a^2 (Sollya, relative < 2^-56.0); error
 * < 2^-51.7. 0.5 <= a < 4: erf a = 1 - e^(-a^2) g(a) with -a^2 exact, e^(-a^2) from om_vexp_parts
 * (< 2^-52.9), g = e^(a^2) erfc(a) piecewise degree-10 (om_verfc_g, < 2^-51.9), so erfc a is within
 * 2^-52.9 + 2^-51.9 + 2^-53 (product) < 2^-50.7; erf a >= 0.52 > erfc a, so 1 - erfc a is within
 * 2^-50.7 * 0.93 + 2^-53 < 2^-50.5. a >= 4 is clamped to 4, where 1 - erfc(4) (erfc(4) < 2^-25.9) rounds to 1
 * like every larger a (erf a rounds to 1 for a > 3.92). Rounding test eps = 2^-50.
 * Fallback om_fb_erf: the positive series e^(-a^2) sum 2^n a^(2n+1)/(2n+1)!! in double-double (< 2^-95).
 * Specials: NaN -> canonical NaN; +-inf -> +-1; sign copied from x (erf(-0) = -0).
 */
static inline __attribute__((always_inline)) om_vfh om_erf_v(om_vfh xf, int exact, om_vih* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd a = om_vmin(om_vabs(x), OM_VD(4.0));
  a = OM_VSELD(x != x, OM_VD(0.0), a);
  om_vd a2 = a * a;
  om_vl big = (om_vl)(a >= 0.5);
  om_vd ys = om_verf_small(&a, &a2);
  om_vd hi, lo;
  om_vd t = -a2;
  om_vexp_parts(&t, &hi, &lo);
  om_vd ag = om_vmax(a, OM_VD(0.5));
  om_vd g = om_verfc_g(&ag);
  om_vd yb = 1.0 - (hi + lo) * g;
  om_vd y = om_vcopysign(OM_VSELD(big, yb, ys), x);
  om_vd eps = OM_VD(0x1p-50);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
OM_TR_KERNEL(erf_f32, om_erf_v, om_fb_erf)

/* sigmoid_f32.h - Sigmoid 1/(1+e^-x), f32, correctly rounded in exact mode (per path, transcendental.inc).
 *
 * a = min(|x|, 120) (sigma(120) rounds to 1 and sigma(-120) < 2^-170 to 0); E = e^-a from om_vexp_parts,
 * relative error < 2^-52.9; sigma(x) = 1/(1 + E) for x >= 0, E/(1 + E) for x < 0. The error of E enters
 * scaled by E/(1+E) <= 1/2 (x >= 0) or 1 + E/(1+E) <= 3/2 (x < 0); two more roundings: relative error
 * < 1.5 * 2^-52.9 + 2^-52 < 2^-51.1. Rounding test eps = 2^-50.5. The deep negative tail needs no special
 * care: E is a normal double down to e^-120, so subnormal f32 results are rounded by the same test.
 * Fallback om_fb_sigmoid (double-double exp and division, < 2^-92).
 * Specials: NaN -> canonical NaN; +inf -> 1; -inf -> +0; sigma(+-0) = 1/2.
 */
static inline __attribute__((always_inline)) om_vfh om_sigmoid_v(om_vfh xf, int exact, om_vih* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd a = om_vmin(om_vabs(x), OM_VD(120.0));
  a = OM_VSELD(x != x, OM_VD(0.0), a);
  om_vd hi, lo;
  om_vd t = -a;
  om_vexp_parts(&t, &hi, &lo);
  om_vd e = hi + lo;
  om_vd y = OM_VSELD(x < 0, e, OM_VD(1.0)) / (1.0 + e);
  om_vd eps = OM_VD(0x1.6a09e667f3bcdp-51);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
OM_TR_KERNEL(sigmoid_f32, om_sigmoid_v, om_fb_sigmoid)

/* exp_f32.h - Exp, f32, correctly rounded in exact mode (included per kernel path by transcendental.inc).
 *
 * Range: x > 89 gives +inf (e^89 > 2^128), x < -105 gives +0 (e^-105 < 2^-151, below half the least
 * subnormal); both are clamped into [-105, 89] so the same evaluation decides the lanes in between.
 * Reduction and polynomial: om_vexp_parts (om_vcore.h): e^x = 2^(k/64) e^r, |r| <= ln2/128, 64-entry
 * double-double table of 2^(j/64), degree-6 minimax r + r^2 q(r) for e^r - 1 (Sollya, tools/sollya).
 * Error: RN(hi + lo) is within 2^-52.9 e^x (relative; x is exact in double). Rounding test with eps = 2^-52
 * (+2^-52 padding in om_tr_round); the fallback is om_fb_exp (double-double, < 2^-94).
 * Specials: NaN -> canonical NaN; +inf -> +inf; -inf -> +0; e^0 = 1 exactly (r = 0, p = 0).
 */
static inline __attribute__((always_inline)) om_vfh om_exp_v(om_vfh xf, int exact, om_vih* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd t = om_vmin(om_vmax(x, OM_VD(-105.0)), OM_VD(89.0));
  t = OM_VSELD(x != x, OM_VD(0.0), t);
  om_vd hi, lo;
  om_vexp_parts(&t, &hi, &lo);
  om_vd y = hi + lo, eps = OM_VD(0x1p-52);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
OM_TR_KERNEL(exp_f32, om_exp_v, om_fb_exp)

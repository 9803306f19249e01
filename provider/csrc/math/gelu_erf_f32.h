/* gelu_erf_f32.h - Gelu approximate="none": x/2 erfc(-x/sqrt2) = x Phi(x), f32, correctly rounded in exact
 * mode (included per kernel path by transcendental.inc).
 *
 * xc = max(x, -14.5) (Gelu x rounds to -0 for x < -14.41: |Gelu x| < phi(x) < 2^-151); w = |xc| / sqrt2 in
 * double (two roundings, relative error < 2^-52); w^2 = xc^2/2 exactly.
 * w < 0.5: Phi = 1/2 + erf(+-w)/2, erf from om_verf_small (< 2^-51.7, plus < 2^-52 from w, |w erf'/erf| <= 1);
 *   for x < 0, 1/2 - erf(w)/2 >= 0.24 carries the error of erf times 0.26/0.24: Phi within < 2^-50.5.
 * w >= 0.5 (w clamped to 10.3, where Phi(-14.5) underflows and 1 - Phi(14.5) vanishes): the tail is taken
 *   through erfc, never 1 + erf: erfc w = e^(-w^2) g(w) with the exact -w^2 (< 2^-52.9) and g at the rounded
 *   w (< 2^-51.9, plus < 2^-52 since |w g'/g| <= 1): < 2^-50.3; Phi = erfc(w)/2 for x < 0 (same bound),
 *   1 - erfc(w)/2 for x >= 0 (erfc(w)/2 <= 0.31 <= Phi/2: < 2^-51).
 * y = x Phi: one more rounding. Bound < 2^-49.9; rounding test eps = 2^-49.5.
 * Fallback om_fb_gelu_erf: erf series / erfc continued fraction in double-double.
 * Specials: NaN -> canonical NaN; -inf -> -0 (clamped, then underflows with its sign); +inf -> +inf
 * (Phi = 1); -0 -> -0 (x Phi with Phi = 1/2).
 */
static inline __attribute__((always_inline)) om_vfh om_gelu_erf_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd xc = om_vmax(x, OM_VD(-14.5));
  xc = OM_VSELD(x != x, OM_VD(0.0), xc);
  om_vd w = om_vmin(om_vabs(xc) * OM_SQRT1_2_hi, OM_VD(10.3));
  om_vd w2 = om_vmin(xc * xc * 0.5, OM_VD(10.3 * 10.3));
  om_vl neg = (om_vl)(xc < 0);
  om_vd ww = w * w;
  om_vd es = om_verf_small(&w, &ww);
  om_vd phis = 0.5 + 0.5 * OM_VSELD(neg, -es, es);
  om_vd hi, lo;
  om_vd t = -w2;
  om_vexp_parts(&t, &hi, &lo);
  om_vd wg = om_vmax(w, OM_VD(0.5));
  om_vd ec = (hi + lo) * om_verfc_g(&wg);
  om_vd phib = OM_VSELD(neg, 0.5 * ec, 1.0 - 0.5 * ec);
  om_vd y = xc * OM_VSELD((om_vl)(w < 0.5), phis, phib);
  om_vd eps = OM_VD(0x1.6a09e667f3bcdp-50);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
OM_TR_KERNEL(gelu_erf_f32, om_gelu_erf_v, om_fb_gelu_erf)

/* tanh_f32.h - Tanh, f32, correctly rounded in exact mode (included per kernel path by transcendental.inc).
 *
 * a = min(|x|, 10) (tanh a rounds to 1 for a > 9.02: 1 - tanh a < 2e^-2a < 2^-25); m = e^(2a) - 1 from
 * om_vexp_parts (2a exact): relative error < 2^-49.8 (2^-52.9 when 2a <= ln2/128, where m is the
 * polynomial itself); tanh a = m / (m + 2): the error of m enters scaled by 2/(m + 2) <= 1, plus two
 * roundings: relative error < 2^-49.8 + 2^-52 < 2^-49.4. Rounding test eps = 2^-49.
 * Fallback om_fb_tanh: expm1 in double-double (series and doublings), < 2^-90; |x| < 2^-12 returns x.
 * Specials: NaN -> canonical NaN; +-inf -> +-1; the sign is copied from x, so tanh(-0) = -0.
 */
static inline __attribute__((always_inline)) om_vfh om_tanh_v(om_vfh xf, int exact, om_vih* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd a = om_vmin(om_vabs(x), OM_VD(10.0));
  a = OM_VSELD(x != x, OM_VD(0.0), a);
  om_vd hi, lo;
  om_vd t = a + a;
  om_vexp_parts(&t, &hi, &lo);
  om_vd m = (hi - 1.0) + lo;
  om_vd y = om_vcopysign(m / (m + 2.0), x);
  om_vd eps = OM_VD(0x1p-49);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
OM_TR_KERNEL(tanh_f32, om_tanh_v, om_fb_tanh)

/* tanh_f32.h - Tanh, f32, correctly rounded in exact mode (included per kernel path by transcendental.inc).
 *
 * a = min(|x|, 10) (tanh a rounds to 1 for a > 9.02: 1 - tanh a < 2e^-2a < 2^-25); m = e^(2a) - 1 from
 * om_vexp_parts (2a exact): relative error < 2^-49.8 (2^-52.9 when 2a <= ln2/128, where m is the
 * polynomial itself); tanh a = m / (m + 2): the error of m enters scaled by 2/(m + 2) <= 1, plus two
 * roundings: relative error < 2^-49.8 + 2^-52 < 2^-49.4. Rounding test eps = 2^-49.
 * Fallback om_fb_tanh: expm1 in double-double (series and doublings), < 2^-90; |x| < 2^-12 returns x.
 * Specials: NaN -> canonical NaN; +-inf -> +-1; the sign is copied from x, so tanh(-0) = -0.
 */
static inline __attribute__((always_inline)) om_vfh om_tanh_v(om_vfh xf, int exact, om_trmask* bad) {
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
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs |x| >= 2^-60 (NaN excluded: tanh |x| >= 2^-61, a normal f32); other
 * lanes send the half vector to om_tanh_v above. a = min(|x|, 9.5) (tanh a rounds to 1 above 9.02; at 9.5 the
 * double result 1 - 1.1e-8 is far from the boundary 1 - 2^-25 and rounds to 1); t = 2a exact; om_vexp16 (long
 * polynomial) gives sc and p; m = fma(sc, p, sc - 1) ~= e^t - 1:
 *   k = 0: sc = 1, r = t exactly, m = p: within 2^-52.9 (om_vexp16).
 *   k != 0 (t >= 0.02166, m >= 0.0219): absolute errors in units of sc: T_j (2^-53), p (2^-52.9 |p| with
 *   |p| < 0.0219: 2^-58.41) and r (2^-59 e^0.0217 < 2^-58.94): < 2^-52.93 sc in all, and
 *   sc/m <= e^0.04333/0.021896 < 47.7 = 2^5.58: < 2^-47.35 relative; sc - 1 is exact for sc <= 2 and within
 *   2^-53 (sc - 1) < 1.05 2^-53 m above; the fma rounds once: m within 2^-47.2.
 * y = m/(m + 2) by om_vdiv3 (2^-42 + 2.01 2^-53), d = RN(m + 2) (2^-53), and the error of m moves y by at most
 * 2/(m + 2) <= 1 times its own: below 2^-42 + 2^-47.2 + 3.01 2^-53 < 2^-41.95 in all; rounding test T = 4096
 * (needs < 2^-41.51) on tanh |x|, whose f32 result then takes the sign bit of x. */
static inline __attribute__((always_inline)) om_vfh om_tanh_v_fma(om_vfh xf, int exact, om_trmask* bad) {
  om_vfh ax = (om_vfh)((om_vih)xf & 0x7fffffff);
  if (__builtin_expect(!om_tr_all((om_vih)(ax >= 0x1p-60f)), 0)) return om_tanh_v(xf, exact, bad);
  om_vd a = om_vminpd(om_vwiden(ax), 9.5);
  om_vd sc, p;
  om_vexp16(a + a, 6, 0, &sc, &p);
  om_vd m = om_fma(sc, p, sc - 1.0);
  om_vfh r = om_tr_round_bits(om_vdiv3(m, m + 2.0), 4096, exact, bad); /* tanh |x| */
  return (om_vfh)((om_vih)r | ((om_vih)xf & INT32_MIN));               /* the sign of x */
}
OM_TR_KERNEL(tanh_f32, om_tanh_v_fma, om_fb_tanh)
#else
OM_TR_KERNEL(tanh_f32, om_tanh_v, om_fb_tanh)
#endif

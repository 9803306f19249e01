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
static inline __attribute__((always_inline)) om_vfh om_exp_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd t = om_vmin(om_vmax(x, OM_VD(-105.0)), OM_VD(89.0));
  t = OM_VSELD(x != x, OM_VD(0.0), t);
  om_vd hi, lo;
  om_vexp_parts(&t, &hi, &lo);
  om_vd y = hi + lo, eps = OM_VD(0x1p-52);
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs |x| <= 87.3 (e^x in [2^-125.96, 2^125.95]: a normal f32 result);
 * any other lane (NaN, +-inf, overflow, subnormal or zero results) sends the whole vector (then the half vector, OM_TR_KERNEL_FMA) to om_exp_v above.
 * e^x ~= y = fma(sc, p, sc) (om_vexp16): e^x = 2^(k/16) e^r* with r* = x - k ln2/16;
 * the computed reduced argument r' (exact) differs from r* by < 2^-48.3 (|k| <= 2015), sc = 2^(k/16) (1 + d_T)
 * with |d_T| <= 2^-53 and 1 + p = e^r' (1 + d_p) with |d_p| < 2^-45.61; the fma rounds once (2^-53). So
 * |y - e^x| < (2^-45.61 + 2^-48.3 + 2^-52 + 2^-97) e^x < 2^-45.36 e^x.
 * Rounding test om_tr_round_bits with T = 512 (needs a bound below 0.7 2^-44; about 2^-19 of the lanes fail it). */
static inline __attribute__((always_inline)) om_vd om_exp_y_fma(om_vfh xf) {
  return om_vexp16(om_vwiden(xf), 0); /* fma(sc, p, sc): rounding test T = 512 */
}
OM_TR_KERNEL_FMA(exp_f32, -87.3f, 0.0f, 87.3f, om_exp_y_fma, 512, 0, om_exp_v, om_fb_exp, 1)
#else
OM_TR_KERNEL(exp_f32, om_exp_v, om_fb_exp)
#endif

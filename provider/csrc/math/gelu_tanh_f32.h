/* gelu_tanh_f32.h - Gelu approximate="tanh": x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with
 * sqrt(2/pi) and 0.044715 the exact reals, f32, correctly rounded in exact mode (per path, transcendental.inc).
 *
 * Identity: x/2 (1 + tanh u) = x sigma(2u), sigma(v) = 1/(1 + e^-v): no cancellation in the negative tail.
 * v = 2u = x (K1 + K3 x^2), K1 = 2 sqrt(2/pi), K3 = 0.08943 sqrt(2/pi) rounded to double (Sollya): x^2 exact,
 * four more roundings and the two constants: |v~ - v| < 2^-50.9 |v|.
 * sigma(v) as in sigmoid_f32.h with v clamped to [-120, 120] (x < -20 is clamped to -20 first, whose result
 * is far below 2^-150): relative error < 2^-51.1 for the exact v; the error of v moves log sigma by at most
 * (1 - sigma(v)) |dv| <= 2^-50.9 |v|, which reaches 2^-44 in the far negative tail. y = x sigma: one rounding.
 * Per-lane bound: 2^-50.3 + 2^-50.5 |v|, used as the rounding test's eps (the fallback rate stays small).
 * Fallback om_fb_gelu_tanh: v and sigma(v) in double-double.
 * Specials: NaN -> canonical NaN; -inf -> -0; +inf -> +inf; -0 -> -0.
 */
static inline __attribute__((always_inline)) om_vfh om_gelu_tanh_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih nan = (om_vih)(xf != xf);
  om_vd xc = om_vmax(x, OM_VD(-20.0));
  xc = OM_VSELD(x != x, OM_VD(0.0), xc);
  om_vd v = xc * (OM_K1_hi + OM_K3_hi * (xc * xc));
  om_vd vc = om_vmin(om_vmax(v, OM_VD(-120.0)), OM_VD(120.0));
  om_vd hi, lo;
  om_vd t = -om_vabs(vc);
  om_vexp_parts(&t, &hi, &lo);
  om_vd e = hi + lo;
  om_vd y = xc * (OM_VSELD(vc < 0, e, OM_VD(1.0)) / (1.0 + e));
  om_vd eps = 0x1.9p-51 + om_vabs(vc) * 0x1.6a09e667f3bcdp-51;
  return om_tr_round(&y, &eps, nan, OM_QNAN_F, exact, bad);
}
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs: -10 <= x <= 1e30 and |x| >= 2^-60 (results between 2^-122.65, at
 * x = -10, and 1e30 in magnitude: normal f32); a whole vector (then a half vector) with other lanes (NaN,
 * infinities, tiny or very negative x) takes om_gelu_tanh_v above (OM_TR_KERNEL_FMA).
 * v = x fma(x^2, K3, K1) (x^2 exact): the constants are within 2^-53 relative, the fma and the product round
 * once each: |v~ - v| < 2^-51.41 |v|; |v| <= 87.32 for x >= -10. v~ is clamped at 120 above (x sigma(120) and
 * x sigma(v) for v > 120 differ by less than 2^-170 relative).
 * sigma(v~) = 1/(1 + e^-v~) as in sigmoid_f32.h (om_vexp16 with OM_EXP16_NEG, with
 * |v~| <= 120: e^-v~ within 2^-45.61 + 2^-47.8 + 2 2^-53 < 2^-45.31), d = RN(1 + e^-v~) (2^-53, no
 * cancellation) and y = x/d as n/d (OM_TR_KERNEL_FMA_QUOT2, in two steps: v, then e^-v to d: a half vector alone by VDIVPD, 2^-53; a whole
 * vector by om_vdiv_pair, 4.01 2^-53; x d <= 1e30 (1 + e^87.32) < 2^168, d0 d1 < 2^253: all products normal):
 * x sigma(v~) within 2^-45.31 + 5.01 2^-53.
 * The error of v~ moves log sigma by at most (1 - sigma) |v~ - v|: < 2^-53.3 for v >= 0 ((1 - sigma(v)) v
 * < 0.28) and < 87.32 2^-51.41 < 2^-44.96 for v < 0.
 * Total below 2^-44.1; rounding test T = 4096 (needs < 0.7 2^-41 = 2^-41.51; the next T the test offers, 512,
 * needs < 2^-44.51). */
static inline __attribute__((always_inline)) void om_gelu_tanh_qa_fma(om_vfh xf, om_vd* x, om_vd* v) {
  *x = om_vwiden(xf);
  *v = om_vminpd(*x * om_fma(*x * *x, OM_VD(OM_K3_hi), OM_VD(OM_K1_hi)), 120.0);
}
static inline __attribute__((always_inline)) void om_gelu_tanh_qb_fma(om_vd x, om_vd v, om_vd* n, om_vd* d) {
  om_vd e = om_vexp16(v, OM_EXP16_NEG); /* e^-v */
  *n = x;
  *d = 1.0 + e; /* y = n/d: rounding test T = 4096 */
}
OM_TR_KERNEL_FMA_QUOT2(gelu_tanh_f32, -10.0f, 0x1p-60f, 1e30f, om_gelu_tanh_qa_fma, om_gelu_tanh_qb_fma, 4096, 0,
                       om_gelu_tanh_v, om_fb_gelu_tanh, 4)
#else
OM_TR_KERNEL(gelu_tanh_f32, om_gelu_tanh_v, om_fb_gelu_tanh)
#endif

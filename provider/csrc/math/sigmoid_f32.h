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
static inline __attribute__((always_inline)) om_vfh om_sigmoid_v(om_vfh xf, int exact, om_trmask* bad) {
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
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs |x| <= 87 (sigma(-87) > 2^-125.6: a normal f32 result); other lanes
 * (NaN, larger |x|) send the whole vector (then the half vector) to om_sigmoid_v above. E = fma(sc, p, sc) ~= e^-x within 2^-45.36
 * (om_vexp16 with OM_EXP16_NEG, as in exp_f32.h; E <= e^87 < 2^125.6);
 * d = RN(1 + E): E > 0, so no cancellation, and d is within (E/(1 + E)) 2^-45.36 + 2^-53 of 1 + e^-x; y = 1/d
 * as n/d with n = 1 (OM_TR_KERNEL_FMA_RECIP2, in two steps: the reduction, then p to d): a half vector alone by VDIVPD (2^-53), a whole vector by
 * om_vdiv_pair (within 4.01 2^-53; here n0 d1 = d1 is exact, so 3.01 2^-53): below
 * 2^-45.36 + 4.01 2^-53 < 2^-45.33 in all (d0 d1 <= (1 + e^87)^2 < 2^252: no product leaves the normal range);
 * rounding test T = 512 (needs < 0.7 2^-44 = 2^-44.51). */
static inline __attribute__((always_inline)) void om_sigmoid_qa_fma(om_vfh xf, om_vd* r, om_vd* sc) {
  om_vexp16_reduce(om_vwiden(xf), OM_EXP16_NEG, r, sc); /* e^-x */
}
static inline __attribute__((always_inline)) void om_sigmoid_qb_fma(om_vd r, om_vd sc, om_vd* n, om_vd* d) {
  om_vd e = om_vexp16_e(r, sc);
  *n = OM_VD(1.0);
  *d = 1.0 + e; /* y = n/d: rounding test T = 512 */
}
OM_TR_KERNEL_FMA_RECIP2(sigmoid_f32, -87.0f, 0.0f, 87.0f, om_sigmoid_qa_fma, om_sigmoid_qb_fma, 512, 1, om_sigmoid_v,
                       om_fb_sigmoid, OM_VB == 64 ? 4 : 2)
#else
OM_TR_KERNEL(sigmoid_f32, om_sigmoid_v, om_fb_sigmoid)
#endif

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
/* FMA paths (512, 256). A whole vector (then a half vector) with a NaN, a zero or a subnormal goes to om_tanh_v; every other
 * input takes the signed computation below, the same for both signs (tanh(-a) = -tanh a exactly and RN is
 * symmetric, so the two correctly rounded results mirror each other although the operations differ).
 * a = clamp(x, -9.5, 9.5) (tanh |x| rounds to 1 above 9.02; at 9.5 the double result 1 - 1.1e-8 is far from the
 * boundary 1 - 2^-25 and rounds to 1); om_vexp2x16 (in two steps) gives sc2 and ph; m = fma(sc2, ph, sc2/2 - 1)
 * ~= e^(2a) - 1.
 * The first pass takes ph from om_vexp2x16_ph3 (q of degree 3, within 2^-40.11 relative):
 *   k = 0: sc2 = 2, sc2/2 - 1 = 0, m = 2 ph exactly: within 2^-40.11.
 *   k != 0 (|2a| >= 0.02166): absolute errors in units of sc = sc2/2: T_j (2^-53 e^0.0217), ph (2 2^-40.11 |ph|
 *   with |ph| < 0.011: 2^-45.62) and r (2 |k| 2^-60.25 e^0.0217); sc/|m| <= 47.7 (at 2a = 0.02166; 46.7 at
 *   2a = -0.02166) and |k| sc/|m| <= 449 for |a| <= 9.5: ph gives < 2^-40.04, T_j < 2^-47.39, r < 2^-50.44;
 *   sc/2 - 1 is exact for 1 <= sc2 <= 4 and within 2^-53 |sc - 1| <= 2.09 2^-53 |m| outside; the fma rounds once
 *   (2^-53): m within 2^-40.03 relative.
 * y = m/d with d = RN(m + 2) (2^-53) as n/d (OM_TR_KERNEL_FMA_QUOT2): a half vector alone by VDIVPD (2^-53), a
 * whole vector by om_vdiv_pair (within 4.01 2^-53; d0 d1 <= (e^19 + 1)^2 and every other product stays a normal
 * double too); the error of m moves y by at most 2/(m + 2) <= 2 (m > -1) times its own: below 2^-39.03 +
 * 5.01 2^-53 (+ their products) < 2^-39.02 in all; rounding test T = 32768 (needs < 0.7 T 2^-53 = 2^-38.51) on
 * y, negative or positive.
 * Tiny x (2^-126 <= |x| < 2^-60): r = a, r^2 may underflow (below 2^-900 relative); y is within 2^-39 |x| of
 * the f32 x, far less than half its spacing, so RN_f32(y) = x = RN_f32(tanh x) whatever the rounding test says
 * (which does not apply where y falls just below 2^-126); a flagged lane gets the second chance below, then
 * om_fb_tanh, which returns x for |x| < 2^-12. */
/* Two steps (OM_TR_KERNEL_FMA_QUOT2), so the loop runs them on different vectors (PIPE 4): */
static inline __attribute__((always_inline)) void om_tanh_qa_fma(om_vfh xf, om_vd* r, om_vd* sc2) {
  om_vexp2x16_reduce(om_vclamp_sym(om_vwiden(xf), 9.5), r, sc2);
}
static inline __attribute__((always_inline)) void om_tanh_nd(om_vd sc2, om_vd ph, om_vd* n, om_vd* d) {
  om_vd m = om_fma(sc2, ph, om_fms(sc2, OM_VD(0.5), OM_VD(1.0)));
  *n = m;
  *d = m + 2.0;
}
static inline __attribute__((always_inline)) void om_tanh_qb_fma(om_vd r, om_vd sc2, om_vd* n, om_vd* d) {
  om_tanh_nd(sc2, om_vexp2x16_ph3(r), n, d); /* y = n/d: rounding test T = 32768 */
}
/* Second chance (the FMA paths' fallback, OM_TR_SECOND_CHANCE): a lane that the first pass flags (about 2^-13 of
 * the lanes with |x| < 9.02) is computed again with q of degree 4 (om_vexp2x16_ph, within 2^-49.3) and one VDIVPD:
 * the analysis above with ph's 2^-49.3 gives m within 2^-46.84 (k != 0; 2^-49.3 for k = 0) and y within 2^-45.84
 * + 2 2^-53 < 2^-45.78, rounding test T = 512 (needs < 0.7 T 2^-53 = 2^-44.51). A lane it cannot settle either
 * takes the double-double om_fb_tanh, as every flagged lane did with the degree-4 first pass and T = 512. */
static inline __attribute__((always_inline)) om_vd om_tanh_y2_fma(om_vfh xf) {
  om_vd r, sc2, n, d;
  om_tanh_qa_fma(xf, &r, &sc2);
  om_tanh_nd(sc2, om_vexp2x16_ph(r), &n, &d);
  return n / d; /* rounding test T = 512 */
}
OM_TR_SECOND_CHANCE(om_fb_tanh_fma, -__builtin_inff(), 0x1p-126f, __builtin_inff(), om_tanh_y2_fma, 512, om_fb_tanh)
OM_TR_KERNEL_FMA_QUOT2(tanh_f32, -__builtin_inff(), 0x1p-126f, __builtin_inff(), om_tanh_qa_fma, om_tanh_qb_fma, 32768,
                       0, om_tanh_v, om_fb_tanh_fma, OM_VB == 64 ? 4 : 2)
#else
OM_TR_KERNEL(tanh_f32, om_tanh_v, om_fb_tanh)
#endif

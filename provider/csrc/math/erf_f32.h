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
static inline __attribute__((always_inline)) om_vfh om_erf_v(om_vfh xf, int exact, om_trmask* bad) {
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
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs: normal f32 and infinities (clamped below); a whole vector, then a half vector, with a NaN,
 * a zero or a subnormal goes to om_erf_v above. a = min(|x|, 3.99) (erf a rounds to 1 above 3.92; at 3.99 the
 * double result 1 - 1.7e-8 is far from the boundary 1 - 2^-25 and rounds to 1; erf a >= 1.12 2^-126 is normal).
 * Piece i = rint(t) in [0, 15], t = 4a - 1/2 (exact unless a < 2^-49, where it rounds to -1/2 and i = 0 all the
 * same; ks = t + 1.5 2^52 holds i in its low bits): a in [i/4, (i+1)/4], a tie taking the even neighbour (so
 * piece 0 is a <= 1/4); centre m_i = i/4 + 1/8. erf(a)/a ~= Q_i(d), degree 7 (Sollya supnorm, rigorous:
 * relative < 2^-38.84 on every piece (OM_ERF16_7_LOG2ERR), fitted on |d| <= 0.126, piece 0 on -1/8 < d <= 0.126):
 * d = a - m_i = (t - i)/4 (exact: t - i = t - rint(t) is VREDUCEPD's exact result on 512, and
 * t - (ks - 1.5 2^52) on 256; for a < 2^-49 t's rounding moves d by < 2^-55, Q_0 by < 2^-57 relative), which
 * the table takes as f = t - i = 4d (om_erf16_c7 holds coefficient j times 4^-j, so every Horner step is exactly
 * 4^-j times the unscaled one: the same values). Piece 0 was a polynomial in d = a^2 until the eighth session,
 * which cost a compare, a product and a blend per half vector.
 * Horner in FMA: |c_1 d/c_0| < 0.07 on every piece and the later terms are smaller: within 1.2 2^-53.
 * y = RN(a Q): 2^-53. Total below 2^-38.84375 + 2.3 2^-53 < 18,262 units of 2^-53 (OM_ERF16_7_LOG2ERR = -38.84375);
 * rounding test T = 32768 (needs < 0.7 T = 22,937.6 units; about 2T 2^-29 = 2^-13 of the lanes take the second
 * chance below). Degree 8 with T = 4096 (2^-43.95, 2^-16 of the lanes flagged), the first pass until the twelfth
 * session, was one permute and one FMA more per half vector and about 8% slower on the 512 path (kernel alone, 64K
 * and 1M, docs/exact-transcendentals.md); degree 9 with T = 32 (2^-49.2) two more.
 * Sign: the product's first factor is a with the sign of x (om_vclamp_sym: one VRANGEPD on the 512 path, where an AND
 * and an OR of the sign bit were two operations; the same bits). */
static inline __attribute__((always_inline)) om_vd om_erf_y_tab(om_vfh xf, const double* c, int deg) {
  om_vd x = om_vwiden(xf);
  om_vd a = om_vabs_min(x, 3.99);
  om_vd t = om_fma(a, OM_VD(4.0), OM_VD(-0.5)); /* exact, as a * 4.0 - 0.5 */
  om_vd ks = t + 0x1.8p52;
  om_vul ki = (om_vul)ks;
  om_vd d = om_vfrac_rint(t, ks); /* f = t - i = 4(a - m_i), exact; the table holds coefficient j times 4^-j */
  om_vd q = om_vtab16(c + 16 * deg, ki);
  for (int j = deg - 1; j >= 0; j--) q = om_fma(q, d, om_vtab16(c + 16 * j, ki));
  /* erf |x| with the sign of x: RN(s q) with s = a carrying x's sign, which is -RN(a q) for x < 0 (RN is symmetric;
   * the rounding test reads only the low mantissa bits) */
  return om_vclamp_sym(x, 3.99) * q;
}
static inline __attribute__((always_inline)) om_vd om_erf_y_fma(om_vfh xf) {
  return om_erf_y_tab(xf, om_erf16_c7, 7); /* rounding test T = 32768 with constants from memory */
}
/* Second chance (the FMA paths' fallback, OM_TR_SECOND_CHANCE): a lane that the first pass's test flags (about
 * 2^-13 of them) is computed again on the same pieces at degree 9 (om_erf16_c9: < 2^-49.46875,
 * OM_ERF16_9_LOG2ERR, 11.6 units of 2^-53; Horner and the product as above, 2.3 more): < 14 units, rounding test
 * T = 32 (needs < 0.7 T = 22.4): only about one flagged lane in 1,000 (252 of 261,582 over all 2^32 inputs; one in
 * 128 with the degree-8 first pass) goes on to the double-double om_fb_erf (the
 * erf series, about 1 us a lane), whose lanes made about 6% of a 1M call's time (perf on
 * tools/bench/profile_node.py Erf 1M exact). Lanes outside the first pass's range (zeros, subnormals) go straight to
 * om_fb_erf. */
static inline __attribute__((always_inline)) om_vd om_erf_y2_fma(om_vfh xf) {
  return om_erf_y_tab(xf, om_erf16_c9, 9); /* rounding test T = 32 */
}
OM_TR_SECOND_CHANCE(om_fb_erf_fma, -__builtin_inff(), 0x1p-126f, __builtin_inff(), om_erf_y2_fma, 32, om_fb_erf)
OM_TR_KERNEL_FMA(erf_f32, -__builtin_inff(), 0x1p-126f, __builtin_inff(), om_erf_y_fma, 32768, 1, om_erf_v, om_fb_erf_fma,
                 OM_VB == 64 ? 2 : 0)
#else
OM_TR_KERNEL(erf_f32, om_erf_v, om_fb_erf)
#endif

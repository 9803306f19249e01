/* log_f32.h - Log, f32, correctly rounded in exact mode (included per kernel path by transcendental.inc).
 *
 * Reduction (musl style, on the double of x, so subnormal f32 inputs are ordinary): x = 2^k z with z in
 * [0.6875, 1.375); i = 7 bits of the mantissa of z (80 subintervals of width 2^-8 below 1, 48 of width 2^-7
 * above); c_i = 1/centre_i to 20 bits (c = 1 on the two subintervals touching 1); r = z c_i - 1 is exact
 * (z c_i has <= 44 bits, Sterbenz), r in [-2^-8, 2^-7]. log x = k ln2 - log c_i + log1p(r) with ln2 and
 * -log c_i as double-double (Sollya table).
 * Polynomial: log1p(r) ~= r - r^2/2 + r^3 q(r), q of degree 4, relative error < 2^-57.8 (Sollya supnorm).
 * Evaluation: s = k LN2_HI + T_hi (k LN2_HI exact; s = T_hi exactly when k = 0), y = s + ((k LN2_LO + T_lo)
 * + p). When k = 0 and c = 1, y = p: error < 2^-52.8 (final add of p plus 2^-59.3 and the 2^-57.8 of the
 * approximation). Otherwise |y| >= 2^-8 >= |p|, |s| <= 1.2 |y|: three roundings of at most 2^-53 |y| each plus
 * p's: < 2^-51.3 relative. Rounding test eps = 2^-51, fallback om_fb_log (atanh series in double-double).
 * Specials: NaN and x < 0 (including -inf) -> canonical NaN; +-0 -> -inf; +inf -> +inf; log 1 = +0 exactly.
 */
static inline __attribute__((always_inline)) om_vfh om_log_v(om_vfh xf, int exact, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vih neg = (om_vih)(xf < 0) | (om_vih)(xf != xf);
  om_vih zero = (om_vih)(xf == 0);
  om_vih pinf = (om_vih)(xf == __builtin_inff());
  om_vih sp = neg | zero | pinf;
  om_vfh sv = OM_VSELF(neg, OM_QNAN_F, OM_VSELF(zero, (om_vfh){0} - __builtin_inff(), (om_vfh){0} + __builtin_inff()));
  om_vl spd = __builtin_convertvector(sp, om_vl);
  x = OM_VSELD(spd, OM_VD(1.0), x);
  om_vul ix = (om_vul)x;
  om_vul tmp = ix - 0x3fe6000000000000ULL;
  om_vl i3 = (om_vl)((tmp >> 45) & 127) * 3;
  om_vl k = (om_vl)tmp >> 52;
  om_vd z = (om_vd)(ix - (tmp & 0xfff0000000000000ULL));
  om_vd kd = (om_vd)(k + (om_vl)OM_VD(0x1.8p52)) - 0x1.8p52;
  om_vl i31 = i3 + 1, i32 = i3 + 2;
  om_vd c = om_vgather(om_log_tab, &i3), th = om_vgather(om_log_tab, &i31), tl = om_vgather(om_log_tab, &i32);
  om_vd r = z * c - 1.0;
  const double* q = om_log1p_q;
  om_vd r2 = r * r;
  om_vd p = r + r2 * (-0.5 + r * (q[0] + r * (q[1] + r * (q[2] + r * (q[3] + r * q[4])))));
  om_vd s = kd * OM_LN2_HI + th;
  om_vd y = s + ((kd * OM_LN2_LO + tl) + p);
  om_vd eps = OM_VD(0x1p-51);
  return om_tr_round(&y, &eps, sp, sv, exact, bad);
}
#ifdef OM_TR_FMA
/* FMA paths (512, 256). Ordinary inputs: normal positive finite x (bits 0x00800000..0x7f7fffff); other lanes
 * (zero, subnormal, negative, infinite, NaN) send the whole vector (then the half vector) to om_log_v above. Results: log x = 0 only
 * at x = 1 (exactly +0 here: k = 0, c = 1, t = 0, r = 0), else |log x| >= 2^-24.0: normal f32 results.
 * Reduction on the double of x: tmp = bits(x) - bits(0.6875), k = tmp >> 52, z = x 2^-k in [0.6875, 1.375)
 * (exact), i = (tmp >> 48) & 15 (om_log16_c/t in om_tr_consts.h: widths 1/32 below 1 and 1/16 above, c = 1
 * and t = 0 on [31/32, 1) and [1, 17/16)); r = fma(z, c_i, -1): one rounding, r in [-0.03125, 0.0625].
 * p = fma(r^2, fma(r, q(r), -1/2), r) ~= log1p(r): Sollya relative error < 2^-48.375; q (Horner, FMA) within
 * about 2^-52, r q < 0.022, so u = fma(r, q, -1/2) is within 2^-52.9 of its value; |r^2 u| < 0.034 |p|, so
 * r^2 and u add < 2^-56 relative, the last fma 2^-53, and the rounding of r (2^-53 |r|) moves log1p(r) by at
 * most 1.04 2^-53 relative: p within 2^-48.2 of log1p(z c_i - 1) relative.
 * y = fma(k, LN2, t_i) + p. Three cases:
 *   k = 0 and c_i = 1: y = (0 + 0) + p = p exactly: within 2^-48.2.
 *   k = 0, c_i != 1: s = t_i exactly; |y| = |log z| >= -log(31/32) > 0.03174 (or log(17/16) > 0.06); the
 *     errors, absolute: t_i 2^-53 |t_i| (|t_i| < 0.368), p 2^-48.2 |p| (|p| < 0.061), the add 2^-53 |y|:
 *     relative < 2^-53 (0.368/0.03174 + 1) + 2^-48.2 0.061/0.03174 < 2^-49.34 + 2^-47.26 < 2^-46.9.
 *   k != 0: |y| >= ln2 - 0.3748 > 0.318 and |y| >= 0.318 |k|; errors relative to |y|, in units of 2^-53:
 *     LN2 (2^-54.1 |k| ln2: < 1.1), the fma (2^-53 |s|, |s| <= |k| ln2 + 0.368: < 3.4), t_i (< 1.2), the add
 *     (1); and p: 2^-48.2 0.061/0.318: in all < 2^-50.26 + 2^-50.6 < 2^-49.4.
 * Bound 2^-46.9; rounding test T = 128 (needs < 2^-46). */
static inline __attribute__((always_inline)) om_vd om_log_y_fma(om_vfh xf) {
  om_vd x = om_vwiden(xf);
  om_vul tmp = (om_vul)x - 0x3fe6000000000000ULL;
  om_vd z = (om_vd)((om_vul)x - (tmp & 0xfff0000000000000ULL));
#if OM_VB == 64 /* k as a double: VCVTQQ2PD (exact, |k| < 2^11); the 256 path adds the shifter's bits */
  om_vd kd = (om_vd)_mm512_cvtepi64_pd((__m512i)((om_vl)tmp >> 52));
#else
  om_vd kd = (om_vd)((om_vul)((om_vl)tmp >> 52) + 0x4338000000000000ULL) - 0x1.8p52;
#endif
  om_vul ii = tmp >> 48;
  om_vd c = om_vtab16(om_log16_c, ii), t = om_vtab16(om_log16_t, ii);
  om_vd r = om_fma(z, c, OM_VD(-1.0));
  om_vd u = om_fma(om_vpoly(r, om_log1p_q16, 7), r, OM_VD(-0.5));
  om_vd p = om_fma(r * r, u, r);
  om_vd y = om_fma(kd, OM_VD(OM_LN2_D), t) + p;
  return y; /* rounding test T = 128, constants from memory */
}
OM_TR_KERNEL_FMA(log_f32, 0x1p-126f, 0.0f, 0x1.fffffep127f, om_log_y_fma, 128, 1, om_log_v, om_fb_log, 2)
#else
OM_TR_KERNEL(log_f32, om_log_v, om_fb_log)
#endif

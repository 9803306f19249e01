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
static inline __attribute__((always_inline)) om_vfh om_log_v(om_vfh xf, int exact, om_vih* bad) {
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
OM_TR_KERNEL(log_f32, om_log_v, om_fb_log)

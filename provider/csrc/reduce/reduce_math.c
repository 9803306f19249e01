/* reduce_math.c - the f64 exp and log of the reductions (see reduce_util.h). */
#include "reduce_util.h"

#include "math/om_dd.h"

double om_red_exp_d(double x) {
  if (x != x) return x + x;
  if (x > 710.0) return __builtin_inf(); /* e^710 > DBL_MAX */
  if (x < -746.0) return 0.0;             /* e^-746 < 2^-1075, below half the least subnormal */
  om_dd e = om_dd_exp(om_dd_make(x, 0.0));
  return e.hi + e.lo;
}

double om_red_log_d(double x) {
  if (x != x) return x + x;
  if (x < 0.0) return __builtin_nan("");
  if (x == 0.0) return -__builtin_inf();
  if (x == __builtin_inf()) return x;
  if (x < 0x1p-1022) { /* subnormal: log(x 2^64) - 64 ln2 */
    om_dd l = om_dd_log_any(x * 0x1p64);
    om_dd k = om_dd_mul_d(om_dd_make(OM_LN2_hi, OM_LN2_lo), -64.0);
    om_dd r = om_dd_add(l, k);
    return r.hi + r.lo;
  }
  om_dd l = om_dd_log_any(x);
  return l.hi + l.lo;
}

/* The correctly rounded log of one f32, for the one-row calls of LogSoftmax, where the log of a row's sum sits
 * between the row's two passes, so that its latency counts: a 16-lane Log kernel call for one value takes 29 ns
 * there against this function's 18 (tools/c_tool.py red_logf_check, which also compares all 2^32 inputs with the Log
 * kernel of every path: 0 differ). Reduction and table as math/log_f32.inc's om_log_v: x = 2^k z, z in [0.6875,
 * 1.375) on the double of x (subnormal f32 are ordinary doubles), c_i and -log c_i (hi, lo) from om_log_tab
 * (128 subintervals), r = z c_i - 1 exact, |r| <= 2^-7. log1p(r) ~= r - r^2/2 + r^3 q(r) (relative error <
 * 2^-57.8), evaluated for latency: q by Estrin's scheme, p = (r + r^2 (-1/2)) + r^3 q. The order of q's terms
 * moves p by less than 2^-70 |p| (r^3 q < 2^-21 |p|); p has two roundings of about 2^-53 |p| (r - r^2/2 and the
 * last add): within 2^-51.9 |p| in all. y = (k LN2_HI + T_hi) + ((k LN2_LO + T_lo) + p): y = p when k = 0 and
 * c = 1; otherwise |p| <= |y|, |s| <= 1.2 |y| (log_f32.inc), and y is within 2^-53 (1.2 + 1 + 1) |y| plus p's
 * error, < 2^-50.5 |y|. Rounding test: when y -+ |y| (2^-50 + 2^-52) (the end points' own roundings inside
 * the 2^-52) round to the same f32, that f32 is log x correctly rounded; otherwise the double-double fallback
 * om_fb_log of the kernels. Only IEEE double + - * (no contraction: -ffp-contract=off), so the same bits on
 * every CPU. Specials as the kernel's: NaN and x < 0 give the canonical quiet NaN, +-0 -inf, +inf +inf; log 1
 * = +0 (k = 0, c = 1, r = 0). */
float om_red_logf(float xf) {
  if (!(xf > 0.0f) || xf == __builtin_inff()) {
    if (xf == 0.0f) return -__builtin_inff();
    if (xf == __builtin_inff()) return xf;
    uint32_t qn = 0x7fc00000u; /* NaN, x < 0, -inf */
    memcpy(&xf, &qn, 4);
    return xf;
  }
  double x = (double)xf;
  uint64_t ix;
  memcpy(&ix, &x, 8);
  uint64_t tmp = ix - 0x3fe6000000000000ULL;
  size_t i3 = (size_t)((tmp >> 45) & 127) * 3;
  double kd = (double)((int64_t)tmp >> 52);
  uint64_t iz = ix - (tmp & 0xfff0000000000000ULL);
  double z;
  memcpy(&z, &iz, 8);
  const double* q = om_log1p_q;
  double r = z * om_log_tab[i3] - 1.0, r2 = r * r, r3 = r2 * r;
  double qa = q[0] + r * q[1], qb = q[2] + r * q[3];
  double qr = qa + r2 * (qb + r2 * q[4]);
  double p = (r + r2 * -0.5) + r3 * qr;
  double y = (kd * OM_LN2_HI + om_log_tab[i3 + 1]) + ((kd * OM_LN2_LO + om_log_tab[i3 + 2]) + p);
  double e = __builtin_fabs(y) * (0x1p-50 + 0x1p-52);
  float a = (float)(y - e), b = (float)(y + e);
  if (a == b) return (float)y;
  return om_fb_log(x);
}

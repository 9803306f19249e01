/* reduce_math.c - the f64 exp and log of the reductions (see reduce_util.h). */
#include "reduce_util.h"

/* om_dd.h defines the f32 fallbacks (om_fb_*) as static functions; this file uses only its double-double
 * evaluations. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "../math/om_dd.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

double om_red_exp_d(double x) {
  if (x != x) return x + x;
  if (x > 710.0) return __builtin_inf(); /* e^710 > DBL_MAX */
  if (x < -746.0) return 0.0;             /* e^-746 < 2^-1075, below half the least subnormal */
  om_dd e = om_dd_exp(om_dd_make(x, 0.0));
  return e.hi + e.lo;
}

/* log x for a normal x > 0: om_dd_log's reduction (x = 2^k z, c ~ 1/z from its table, log x = k ln2 - log c +
 * log1p(r)) with r = z c - 1 formed in double-double (om_dd_log assumes an f32 input, for which z c - 1 is
 * exact in double; for a general double it is not), then log1p(r) = 2 atanh(r / (2 + r)) by the same series. */
static om_dd om_red_dd_log(double x) {
  uint64_t ix;
  memcpy(&ix, &x, 8);
  uint64_t tmp = ix - 0x3fe6000000000000ULL;
  int i = (int)((tmp >> 45) & 127);
  int k = (int)((int64_t)tmp >> 52);
  uint64_t iz = ix - (tmp & 0xfff0000000000000ULL);
  double z;
  memcpy(&z, &iz, 8);
  double c = om_log_tab[3 * i];
  om_dd r = om_dd_add_d(om_two_prod(z, c), -1.0);
  om_dd s = om_dd_div(r, om_dd_add_d(r, 2.0));
  om_dd s2 = om_dd_mul(s, s);
  om_dd t = om_dd_div_d(om_dd_make(1.0, 0.0), 17.0);
  for (int n = 15; n >= 1; n -= 2) t = om_dd_add(om_dd_div_d(om_dd_make(1.0, 0.0), (double)n), om_dd_mul(t, s2));
  om_dd l1p = om_dd_mul(t, s);
  l1p.hi *= 2.0;
  l1p.lo *= 2.0;
  om_dd kl = om_dd_mul_d(om_dd_make(OM_LN2_hi, OM_LN2_lo), (double)k);
  return om_dd_add(om_dd_add(kl, om_dd_make(om_log_tab[3 * i + 1], om_log_tab[3 * i + 2])), l1p);
}

double om_red_log_d(double x) {
  if (x != x) return x + x;
  if (x < 0.0) return __builtin_nan("");
  if (x == 0.0) return -__builtin_inf();
  if (x == __builtin_inf()) return x;
  if (x < 0x1p-1022) { /* subnormal: log(x 2^64) - 64 ln2 */
    om_dd l = om_red_dd_log(x * 0x1p64);
    om_dd k = om_dd_mul_d(om_dd_make(OM_LN2_hi, OM_LN2_lo), -64.0);
    om_dd r = om_dd_add(l, k);
    return r.hi + r.lo;
  }
  om_dd l = om_red_dd_log(x);
  return l.hi + l.lo;
}

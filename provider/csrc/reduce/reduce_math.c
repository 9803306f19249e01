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

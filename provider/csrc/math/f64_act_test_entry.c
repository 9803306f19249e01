/* f64_act_test_entry.c - om_test_f64_act and om_test_f64_act_cap_hits (onemodel_test.h): the binary64 Sigmoid and
 * Tanh (om_f64_act.h) called directly, or from their double-double pass or multi-precision fallback on, for
 * tests/kernels/test_f64_act.py and tools/verify/f64_act_check.py. */
#ifdef OM_TEST_ENTRIES /* built with ONEMODEL_TEST_ENTRIES=1 only (onemodel_test.h) */
#include "math/om_f64_act.h"
#include "math/om_mp.h"
#include "onemodel_test.h"

int om_test_f64_act(int fn, int force_mp, const double* x, double* y, size_t n) {
  if ((fn != 0 && fn != 1) || force_mp < -1 || force_mp > 6) return -1;
  /* force_mp = j >= 1: the fallback from F = 64 * 2^j bits, n = F / 64 + 1 limbs; -1: the double-double pass on */
  int n0 = force_mp > 0 ? (1 << force_mp) + 1 : 0;
  for (size_t i = 0; i < n; i++) {
    double v = x[i], a = v < 0 ? -v : v;
    if (!force_mp)
      y[i] = fn == 0 ? om_f64_sigmoid(v) : om_f64_tanh(v);
    else if (fn == 0) /* the fallback's domain; the specials and thresholds as the function settles them */
      y[i] = (v != v || v > 37.5 || v < -745.2 || a < 0x1p-54) ? om_f64_sigmoid(v)
             : force_mp < 0                                    ? om_f64_sigmoid_dd(v)
                                                               : om_f64_sigmoid_mp(v, n0);
    else
      y[i] = (v != v || a > 19.1 || a < 0x1p-27) ? om_f64_tanh(v)
             : force_mp < 0                      ? om_f64_tanh_dd(v)
                                                 : om_f64_tanh_mp(v, n0);
  }
  return 0;
}

long long om_test_f64_act_cap_hits(void) { return om_mp_cap_hits(); }
#endif

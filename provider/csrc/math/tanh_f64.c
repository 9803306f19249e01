/* tanh_f64.c - om_f64_tanh (om_f64_act.h): tanh(x) correctly rounded to binary64. tanh(-x) = -tanh(x) and RN is
 * symmetric: everything below works on a = |x| and copies the sign of x.
 *
 * Specials and thresholds (each settled without evaluation):
 *  NaN -> 0x7FF8000000000000. a < 2^-27 (+-0 and subnormals included) -> x: a - a^3/3 < tanh a < a, and
 *   a^3/3 < a 2^-54 / 3 is below half the spacing under a (>= a 2^-54, the case a = 2^e), so RN gives a.
 *  a > 19.1 (inf included) -> +-1: 0 < 1 - tanh a = 2/(e^2a + 1) < 2 e^-38.2 < 2^-54.1, below half the spacing
 *   2^-53 under 1.
 * First pass, 2^-27 <= a <= 19.1: om_dd_tanh (om_dd.h): m = expm1(2a) in double-double (2a exact; the series for
 *  2a <= 0.35, relative error < 2^-95; else om_dd_exp(2a) - 1: 2^-94 scaled by e^2a/(e^2a - 1) < 3.4, plus the
 *  subtraction's 2^-104: < 2^-92.1), tanh a = m/(m + 2): m's relative error enters scaled by 2/(m + 2) <= 1, the
 *  sum and om_dd_div add < 3 2^-104: relative error < 2^-92. Every intermediate lies in [2^-140, 2^60]: normal.
 *  Rounding test om_dd_round64 (om_dd_round64.h) with eps = 2^-80 (a margin of 2^12 over the bound).
 * Fallback om_f64_tanh_mp: the Ziv loop of om_mp.c with y = 2a, e^y = 2^k E: tanh a = (e^y - 1)/(e^y + 1) =
 *  S1 / (S1 + 2) for k = 0 (S1 = E - 1 summed without its 1: no cancellation when a is small) and
 *  (E - 2^-k) / (E + 2^-k) for k >= 1 (k <= 56 <= F: 2^-k exact). D >= 1 and N/D <= 1: error < 2 e_E + 1 units
 *  (om_mp.c). tanh a >= tanh 2^-27 > 2^-28, so a unit is a relative 2^(28 - F) at worst.
 */
#include "om_f64_act.h"

#include "om_bits.h"
#include "om_dd.h"
#include "om_dd_round64.h"
#include "om_mp.h"

static double om_f64_tanh_abs_mp(double a, int n0) {
  double out = 0.0, best = 0.0;
  for (int n = n0; n <= OM_MP_MAX_BITS / 64 + 1; n = 2 * n - 1) {
    om_mp e, s1, c, num, den, q;
    int k;
    uint64_t err = om_mp_exp_parts(2.0 * a, n, &e, &s1, &k);
    if (k == 0) {
      num = s1;
      om_mp_set_pow2(&c, 1, n);
      om_mp_add(&den, &s1, &c, n);
    } else {
      om_mp_set_pow2(&c, -k, n);
      om_mp_sub(&num, &e, &c, n);
      om_mp_add(&den, &e, &c, n);
    }
    om_mp_div(&q, &num, &den, n);
    if (om_mp_round_interval(&q, 2 * err + 1, 0, n, &out, &best)) return out;
  }
  om_mp_note_cap();
  return best;
}

double om_f64_tanh_mp(double x, int n0) {
  double r = om_f64_tanh_abs_mp(x < 0 ? -x : x, n0);
  return x < 0 ? -r : r;
}

double om_f64_tanh(double x) {
  if (x != x) return om_f64_from_bits(0x7FF8000000000000ull);
  double a = x < 0 ? -x : x;
  if (a < 0x1p-27) return x;
  if (a > 19.1) return x < 0 ? -1.0 : 1.0;
  int ok;
  double r = om_dd_round64(om_dd_tanh(a), 0x1p-80, &ok);
  if (!ok) {
    OM_F64_ACT_NOTE(1, 2);
    r = om_f64_tanh_abs_mp(a, OM_MP_FIRST_LIMBS);
  }
  return x < 0 ? -r : r;
}

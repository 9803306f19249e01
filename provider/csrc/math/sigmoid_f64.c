/* sigmoid_f64.c - om_f64_sigmoid (om_f64_act.h): sigma(x) = 1/(1 + e^-x) correctly rounded to binary64.
 *
 * Specials and thresholds (each settled without evaluation):
 *  NaN -> 0x7FF8000000000000. |x| < 2^-54 (+-0 included) -> 1/2: |sigma(x) - 1/2| <= |x|/4 < 2^-56, below half
 *   the spacing on either side of 1/2 (2^-55 below, 2^-54 above).
 *  x > 37.5 (+inf included) -> 1: 0 < 1 - sigma(x) < e^-x < e^-37.5 < 2^-54.1, below half the spacing 2^-53 under 1.
 *  x < -745.2 (-inf included) -> +0: 0 < sigma(x) < e^x < 2^-1075.1, below half the least subnormal.
 * Fast pass, -600 <= x <= 37.5 (om_f64_fast.h): e = e^-|x| = 2^K (H + L) by om_f64_exp_parts (relative error
 *  eps_E < 2^-73.5; 2^K >= 2^-866 is a normal double, so H 2^K is exact and L 2^K off by < 2^-1075, relative
 *  < 2^-200), d = 1 + e by fast_two_sum(1, eh) plus el (e's error scaled by e/(1+e) <= 1/2, one rounding < 2^-105),
 *  then om_f64_quo(1 or e, d) (< 2^-100): relative error < 2^-73.5 + 2^-74.5 + 2^-100 < 2^-72.9. Rounding test
 *  om_dd_round64 with eps = 2^-68 (eps/2 = 2^-69, a margin of 2^3.9); a failure goes on to the double-double pass
 *  below (docs/exact-transcendentals.md gives the measured rates).
 * Double-double pass, -600 <= x <= 37.5: om_dd_sigmoid (om_dd.h) in double-double: e = e^-|x| by om_dd_exp (relative
 *  error < 2^-94), d = 1 + e (the error of e scaled by e/(1+e) <= 1, plus < 2^-104), then 1/d or e/d by om_dd_div
 *  (< 2^-104): relative error < 2^-94 + 2^-94 + 3 2^-104 < 2^-92.9. Every intermediate is a normal double or
 *  zero for x >= -600 (|values| >= e^-600 2^-110 > 2^-980), so the double-double bounds hold.
 *  Rounding test om_dd_round64 (om_dd_round64.h) with eps = 2^-80 (a margin of 2^12 over the bound): fails
 *  with probability about 2^-27 per input.
 * Fallback om_f64_sigmoid_mp (the first pass failed, or -745.2 <= x < -600): the Ziv loop of om_mp.c with y = |x|,
 *  e^y = 2^k E: x > 0: sigma = E / (E + 2^-k); x < 0: sigma = 2^-k / (E + 2^-k), computed as 1 / (E + 2^-k)
 *  (in [1/9, 1]) and scaled by 2^-k in the final rounding, so subnormal results keep their relative accuracy.
 *  2^-k is exact in fixed point for k <= F, else left out (error < 1 unit). D = E + 2^-k >= 1 and N/D <= 1:
 *  error < e_E + (e_E + 1) + 1 units for x > 0, < (e_E + 1) + 1 for x < 0 (om_mp.c).
 */
#include "om_f64_act.h"

#include "om_bits.h"
#include "om_dd.h"
#include "om_dd_round64.h"
#include "om_f64_fast.h"
#include "om_mp.h"

double om_f64_sigmoid_mp(double x, int n0) {
  double y = x < 0 ? -x : x, out = 0.0, best = 0.0;
  for (int n = n0; n <= OM_MP_MAX_BITS / 64 + 1; n = 2 * n - 1) {
    om_mp e, s1, c, d, q;
    int k, F = 64 * (n - 1);
    uint64_t err = om_mp_exp_parts(y, n, &e, &s1, &k), err_d = err;
    if (k <= F) {
      om_mp_set_pow2(&c, -k, n);
      om_mp_add(&d, &e, &c, n);
    } else {
      d = e;
      err_d += 1;
    }
    if (x > 0) {
      om_mp_div(&q, &e, &d, n);
      err = err + err_d + 1;
    } else {
      om_mp one;
      om_mp_set_pow2(&one, 0, n);
      om_mp_div(&q, &one, &d, n);
      err = err_d + 1;
    }
    if (om_mp_round_interval(&q, err, x > 0 ? 0 : -k, n, &out, &best)) return out;
  }
  om_mp_note_cap();
  return best;
}

double om_f64_sigmoid_dd(double x) {
  OM_F64_ACT_NOTE(0, 1);
  if (x >= -600.0) {
    int ok;
    double r = om_dd_round64(om_dd_sigmoid(om_dd_make(x, 0.0)), 0x1p-80, &ok);
    if (ok) return r;
  }
  OM_F64_ACT_NOTE(0, 2);
  return om_f64_sigmoid_mp(x, OM_MP_FIRST_LIMBS);
}

double om_f64_sigmoid(double x) {
  if (x != x) return om_f64_from_bits(0x7FF8000000000000ull);
  if (x > 37.5) return 1.0;
  if (x < -745.2) return 0.0;
  if (x < 0x1p-54 && x > -0x1p-54) return 0.5;
  if (x >= -600.0) {
    int ok, K;
    double kd;
    om_dd e = om_f64_exp_parts(x < 0 ? x : -x, &K, &kd);
    double s = om_pow2(K);
    e = om_dd_make(e.hi * s, e.lo * s);
    om_dd d = om_fast_two_sum(1.0, e.hi);
    d = om_fast_two_sum(d.hi, d.lo + e.lo);
    double r = om_dd_round64(om_f64_quo(x > 0 ? om_dd_make(1.0, 0.0) : e, d), 0x1p-68, &ok);
    if (ok) return r;
  }
  return om_f64_sigmoid_dd(x);
}

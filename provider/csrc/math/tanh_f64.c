/* tanh_f64.c - om_f64_tanh (om_f64_act.h): tanh(x) correctly rounded to binary64. tanh(-x) = -tanh(x) and RN is
 * symmetric: everything below works on a = |x| and copies the sign of x.
 *
 * Specials and thresholds (each settled without evaluation):
 *  NaN -> 0x7FF8000000000000. a < 2^-27 (+-0 and subnormals included) -> x: a - a^3/3 < tanh a < a, and
 *   a^3/3 < a 2^-54 / 3 is below half the spacing under a (>= a 2^-54, the case a = 2^e), so RN gives a.
 *  a > 19.1 (inf included) -> +-1: 0 < 1 - tanh a = 2/(e^2a + 1) < 2 e^-38.2 < 2^-54.1, below half the spacing
 *   2^-53 under 1.
 * Fast pass, 2^-27 <= a <= 19.1 (om_f64_fast.h): u = 2a (exact), kd = rint(u 64/ln2).
 *  kd = 0 (u < 2^-7.52): m = e^u - 1 = A + lo by om_f64_expm1_small, r = u exactly: the bound of om_f64_fast.h taken
 *   relative to u instead of 1: Taylor's remainder 1.001 u^8/8! < 2^-68 u; t3 within (2^-54.9 + 2^-52/6 +
 *   2^-53/6) u^3 < 2^-52 u^3 < 2^-67 u of u^3 q_true; the two roundings of lo (partial sums below u^3/5 + 2^-53 u)
 *   < 2^-69.4 u: m within 2^-66.2 relative.
 *  kd != 0 (u > ln2/128 - 2^-50): e^u = 2^K (H + L) by om_f64_exp_parts (eps_E < 2^-73.5, 2^K <= 2^55 exact),
 *   (M, mm) = two_sum(H 2^K, -1) (exact), mm += L 2^K (< 2^-97 relative to M): m's relative error is eps_E scaled by
 *   e^u/(e^u - 1) <= 1/(1 - e^-0.0054) < 185.2 = 2^7.54, plus 2^-97: < 2^-65.9; for u >= 1, scaled by
 *   e/(e - 1) < 1.59: < 2^-72.8.
 *  tanh a = m/(m + 2): m + 2 by two_sum plus mm (< 2^-104), om_f64_quo (< 2^-100); m's error enters scaled by
 *  2/(m + 2) <= 1. Relative error < 2^-65.8 for u < 1, < 2^-72.7 for u >= 1. Rounding test om_dd_round64 with
 *  eps = 2^-64 (u < 1) or 2^-68 (u >= 1): margins 2^0.8 and 2^3.7 over eps/2. A failure goes on to the
 *  double-double pass below (docs/exact-transcendentals.md gives the measured rates).
 * Double-double pass, 2^-27 <= a <= 19.1: om_dd_tanh (om_dd.h): m = expm1(2a) in double-double (2a exact; the
 *  series for 2a <= 0.35, relative error < 2^-95; else om_dd_exp(2a) - 1: 2^-94 scaled by e^2a/(e^2a - 1) < 3.4, plus
 *  the subtraction's 2^-104: < 2^-92.1), tanh a = m/(m + 2): m's relative error enters scaled by 2/(m + 2) <= 1, the
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
#include "om_f64_fast.h"
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

static double om_f64_tanh_abs_dd(double a) {
  OM_F64_ACT_NOTE(1, 1);
  int ok;
  double r = om_dd_round64(om_dd_tanh(a), 0x1p-80, &ok);
  if (ok) return r;
  OM_F64_ACT_NOTE(1, 2);
  return om_f64_tanh_abs_mp(a, OM_MP_FIRST_LIMBS);
}

double om_f64_tanh_dd(double x) {
  double r = om_f64_tanh_abs_dd(x < 0 ? -x : x);
  return x < 0 ? -r : r;
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
  double u = 2.0 * a, kd = (u * OM_INVLN2_64 + 0x1.8p52) - 0x1.8p52;
  om_dd m;
  if (kd == 0.0) {
    m = om_f64_expm1_small(u);
  } else {
    int K;
    om_dd e = om_f64_exp_parts(u, &K, &kd);
    double s = om_pow2(K);
    m = om_two_sum(e.hi * s, -1.0);
    m = om_fast_two_sum(m.hi, m.lo + e.lo * s);
  }
  om_dd d = om_two_sum(m.hi, 2.0);
  d = om_fast_two_sum(d.hi, d.lo + m.lo);
  int ok;
  double r = om_dd_round64(om_f64_quo(m, d), u < 1.0 ? 0x1p-64 : 0x1p-68, &ok);
  if (!ok) r = om_f64_tanh_abs_dd(a);
  return x < 0 ? -r : r;
}

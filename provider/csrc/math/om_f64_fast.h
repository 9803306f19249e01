/* om_f64_fast.h - the fast first pass of the binary64 Sigmoid and Tanh (sigmoid_f64.c, tanh_f64.c): e^t from a
 * 64-entry double-double table and a degree-7 polynomial, the quotient by one division and its correction, all in
 * plain IEEE double operations with the exact products of om_two_prod (no FMA, no libm). Its result (hi, lo) goes
 * to the rounding test om_dd_round64; a failure goes on to the double-double pass (om_dd.h) and then the
 * multi-precision Ziv fallback, so the bits are those of the correctly rounded function whichever pass settles.
 *
 * e^t = 2^K 2^(j/64) e^r (om_f64_exp_parts), |t| <= 745:
 *  kd = rint(t 64/ln2) (the 1.5 2^52 shifter; |kd| < 2^16), K = (kd - j)/64, j = kd mod 64. r = t - kd ln2/64 with
 *  ln2/64 = C1 + C2 + C3 (om_tr_consts.h; C1 has 36 bits, so kd C1 is exact): r1 = t - kd C1 is exact (Sterbenz:
 *  kd C1 lies in [t/2, 2t] when kd != 0; r1 = t when kd = 0); (rh, rl0) = two_sum(r1, -p2) with (p2, e2) =
 *  two_prod(kd, C2), both exact; rl = rl0 - e2 - kd C3. |r| <= (ln2/64)(1/2 + 2^-36) < 2^-7.52, |rl| < 2^-60.9;
 *  rh + rl is within 2^-110 of r (the roundings of rl, and kd (ln2/64 - C1 - C2 - C3) < 2^16 2^-150).
 *  e^r - 1 = P = rh + rh^2/2 + rh^3 q(rh) + rl (1 + rh) + the neglected terms:
 *   Taylor's remainder after degree 7, sum_{n>=8} r^n/n! < 1.001 r^8/8! < 2^-75.4; e^rh (e^rl - 1) - rl (1 + rh) <
 *   |rl| (rh^2/2 + |rl|) < 2^-76.9.
 *  q = c3 + rh (c4 + rh (c5 + rh (c6 + rh c7))), c_n = RN(1/n!), in double: |q - q_true| <= ulp(c3)/2 (c3's own
 *   rounding) + ulp(q)/2 (the last addition) + the rest (< 2^-64) < 2^-54.9; rh^3 as RN(RN(rh^2) rh) within 2^-52
 *   relative, and the product with q one rounding more: t3 = RN(RN(RN(rh^2) rh) q) is within 2^-77.5 + 2^-77.1 +
 *   2^-78.2 < 2^-75.9 of rh^3 q_true (|rh^3 q| < 2^-25.1).
 *  (A, a) = fast_two_sum(rh, rh^2/2) with rh^2 = s_h + s_l by two_prod, exact; lo = a + (s_l/2 + (t3 + (rl + rl rh))):
 *   every partial sum is below 2^-25, so three roundings < 2^-76. |A + lo - (e^r - 1)| < 2^-75.4 + 2^-76.9 + 2^-75.9 +
 *   2^-76 < 2^-73.9 (absolute; e^r > 0.9946).
 *  E = 2^(j/64)(1 + A + lo) with 2^(j/64) = Th + Tl (om_exp_tab, within 2^-106): (B, b) = two_prod(Th, A), (H, h) =
 *   fast_two_sum(Th, B) (|B| < 2^-7.5 Th), exact; L = RN(Th lo) + (h + (b + (Tl + Tl A))): the first term is below
 *   2^-24 (one rounding < 2^-78), the inner sum below 2^-50 (roundings < 2^-102), the last addition < 2^-78; Tl lo is
 *   dropped (|Tl| < 2^-52: < 2^-77.09). (H, L) is within 2^-73.9 2^(j/64) + 2^-76 of 2^(j/64) e^r (> 0.9946 2^(j/64)):
 *   relative error eps_E < (2^-73.9 + 2^-76) / 0.9946 < 2^-73.5.
 *  The result: (H, L) renormalized and K kept apart (the callers scale by 2^K exactly).
 *
 * The quotient om_f64_quo (N = nh + nl, D = dh + dl, dh >= 1, normalized pairs, N/D <= 1): qh = RN(nh/dh);
 *  (P, p) = two_prod(qh, dh) exact; nh - P is exact (Sterbenz), the rest of rem = ((nh - P) - p + nl) - qh dl adds
 *  roundings < 2^-104 nh; ql = rem/dh (2^-53 of |rem| <= 2^-51 nh, and the dropped dl/dh < 2^-52): the pair is within
 *  2^-100 relative of N/D.
 */
#ifndef OM_F64_FAST_H
#define OM_F64_FAST_H

#include "om_dd_core.h"
#include "om_tr_consts.h"

/* e^t = 2^K (H + L) as above; |t| <= 745. *kd_out: rint(t 64/ln2) (0 means r = t exactly). */
static inline om_dd om_f64_exp_parts(double t, int* K, double* kd_out) {
  double kd = (t * OM_INVLN2_64 + 0x1.8p52) - 0x1.8p52;
  int ki = (int)kd, j = ki & 63;
  *K = (ki - j) / 64;
  *kd_out = kd;
  double r1 = t - kd * OM_LN2_64_1;
  om_dd p2 = om_two_prod(kd, OM_LN2_64_2);
  om_dd rr = om_two_sum(r1, -p2.hi);
  double rh = rr.hi, rl = (rr.lo - p2.lo) - kd * OM_LN2_64_3;
  const double c3 = 0x1.5555555555555p-3, c4 = 0x1.5555555555555p-5, c5 = 0x1.1111111111111p-7,
               c6 = 0x1.6c16c16c16c17p-10, c7 = 0x1.a01a01a01a01ap-13;
  double q = c3 + rh * (c4 + rh * (c5 + rh * (c6 + rh * c7)));
  om_dd s = om_two_prod(rh, rh);
  double t3 = (s.hi * rh) * q;
  om_dd A = om_fast_two_sum(rh, 0.5 * s.hi);
  double lo = A.lo + (0.5 * s.lo + (t3 + (rl + rl * rh)));
  double Th = om_exp_tab[2 * j], Tl = om_exp_tab[2 * j + 1];
  om_dd B = om_two_prod(Th, A.hi);
  om_dd H = om_fast_two_sum(Th, B.hi);
  double L = Th * lo + (H.lo + (B.lo + (Tl + Tl * A.hi)));
  return om_fast_two_sum(H.hi, L);
}

/* e^r - 1 = A + lo alone, for kd = 0 (r = t exactly, |t| < 2^-7.52): the same operations as above with T = 1. */
static inline om_dd om_f64_expm1_small(double t) {
  const double c3 = 0x1.5555555555555p-3, c4 = 0x1.5555555555555p-5, c5 = 0x1.1111111111111p-7,
               c6 = 0x1.6c16c16c16c17p-10, c7 = 0x1.a01a01a01a01ap-13;
  double q = c3 + t * (c4 + t * (c5 + t * (c6 + t * c7)));
  om_dd s = om_two_prod(t, t);
  double t3 = (s.hi * t) * q;
  om_dd A = om_fast_two_sum(t, 0.5 * s.hi);
  return om_fast_two_sum(A.hi, A.lo + (0.5 * s.lo + t3));
}

/* N / D as above. */
static inline om_dd om_f64_quo(om_dd n, om_dd d) {
  double qh = n.hi / d.hi;
  om_dd P = om_two_prod(qh, d.hi);
  double rem = (((n.hi - P.hi) - P.lo) + n.lo) - qh * d.lo;
  return om_fast_two_sum(qh, rem / d.hi);
}

#endif

/* om_dd_core.h - scalar double-double arithmetic: error-free transformations (Knuth's two-sum, Dekker's
 * fast two-sum, Veltkamp/Dekker splitting for exact products) and the double-double + * / built on them.
 *
 * Only IEEE + - * / on doubles and no FMA (the build has -ffp-contract=off), so every kernel path computes
 * the same bits. Used by the transcendental fallbacks (om_dd.h), the f16/bf16 tables (../tr16.c) and Pow
 * (../pow.c).
 */
#ifndef OM_DD_CORE_H
#define OM_DD_CORE_H

#include <stdint.h>

#include "om_bits.h"

typedef struct om_dd {
  double hi, lo;
} om_dd;

static inline om_dd om_dd_make(double hi, double lo) {
  om_dd r = {hi, lo};
  return r;
}
static inline om_dd om_two_sum(double a, double b) {
  double s = a + b, bb = s - a;
  return om_dd_make(s, (a - (s - bb)) + (b - bb));
}
static inline om_dd om_fast_two_sum(double a, double b) { /* |a| >= |b| or a == 0 */
  double s = a + b;
  return om_dd_make(s, b - (s - a));
}
static inline void om_split(double a, double* h, double* l) {
  double c = 134217729.0 * a; /* 2^27 + 1 */
  *h = c - (c - a);
  *l = a - *h;
}
static inline om_dd om_two_prod(double a, double b) {
  double p = a * b, ah, al, bh, bl;
  om_split(a, &ah, &al);
  om_split(b, &bh, &bl);
  return om_dd_make(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}
static inline om_dd om_dd_add(om_dd a, om_dd b) {
  om_dd s = om_two_sum(a.hi, b.hi), t = om_two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = om_fast_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return om_fast_two_sum(s.hi, s.lo);
}
static inline om_dd om_dd_add_d(om_dd a, double b) { return om_dd_add(a, om_dd_make(b, 0.0)); }
static inline om_dd om_dd_neg(om_dd a) { return om_dd_make(-a.hi, -a.lo); }
static inline om_dd om_dd_mul(om_dd a, om_dd b) {
  om_dd p = om_two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return om_fast_two_sum(p.hi, p.lo);
}
static inline om_dd om_dd_mul_d(om_dd a, double b) {
  om_dd p = om_two_prod(a.hi, b);
  p.lo += a.lo * b;
  return om_fast_two_sum(p.hi, p.lo);
}
/* a / b: three quotient digits (relative error about 2^-104). */
static inline om_dd om_dd_div(om_dd a, om_dd b) {
  double q1 = a.hi / b.hi;
  om_dd r = om_dd_add(a, om_dd_neg(om_dd_mul_d(b, q1)));
  double q2 = r.hi / b.hi;
  r = om_dd_add(r, om_dd_neg(om_dd_mul_d(b, q2)));
  double q3 = r.hi / b.hi;
  om_dd q = om_fast_two_sum(q1, q2);
  return om_dd_add_d(q, q3);
}
static inline om_dd om_dd_div_d(om_dd a, double b) { return om_dd_div(a, om_dd_make(b, 0.0)); }
static inline double om_pow2(int k) { /* 2^k, -1022 <= k <= 1023 */
  return om_f64_from_bits((uint64_t)(k + 1023) << 52);
}

#endif

/* om_dd_round64.h - the rounding test of the binary64 first passes (sigmoid_f64.c, tanh_f64.c): a double-double
 * v = hi + lo (|lo| <= ulp(hi)/2) within relative error eps/2 of a real value t, eps >= 2^-100, |hi| >= 2^-960.
 *
 * With d = |hi| eps: a = RN(hi + fl(lo - d)) and b = RN(hi + fl(lo + d)) (one IEEE addition each: exactly the
 * nearest double to the computed argument); fl(lo -+ d) is within 2^-105 |hi| of lo -+ d, so the arguments
 * enclose [v - d/2 ... v + d/2] > the interval holding t. RN is monotone: a == b means RN(t) = a. */
#ifndef OM_DD_ROUND64_H
#define OM_DD_ROUND64_H

#include "om_dd_core.h"

static inline double om_dd_round64(om_dd v, double eps, int* ok) {
  double d = (v.hi < 0 ? -v.hi : v.hi) * eps;
  double a = v.hi + (v.lo - d), b = v.hi + (v.lo + d);
  *ok = a == b;
  return a;
}

#endif

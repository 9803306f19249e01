/* om_dd_act.h - double-double Softplus, Mish and the expm1 family (Elu, Selu, Celu): the fallbacks of the exact
 * f32 kernels (softplus_f32.inc, mish_f32.inc, elu_f32.inc; the om_fb_* are defined in om_dd_act.c) and the
 * evaluations behind their f16/bf16 results (../tr16.c).
 *
 * Only IEEE + - * / on doubles (om_dd_core.h, om_dd.h's om_dd_exp), as everywhere in exact mode. The error
 * bounds below are a priori estimates; that every fallback lane rounds correctly is what the MPFR checks
 * (tools/verify/cr_verify.c, tests/kernels/test_transcendentals.py) verify.
 */
#ifndef OM_DD_ACT_H
#define OM_DD_ACT_H

#include "om_dd.h"

/* log1p(u) for 0 < u <= 1 (u a pair): 2 atanh(s), s = u / (2 + u) <= 1/3, the series s (1 + s^2/3 + s^4/5
 * + ...) summed until a term is below 2^-110 of the sum (at most 33 terms): relative error about 2^-100. */
static inline om_dd om_dd_log1p_unit(om_dd u) {
  om_dd s = om_dd_div(u, om_dd_add_d(u, 2.0));
  om_dd s2 = om_dd_mul(s, s);
  om_dd p = s2, sum = om_dd_make(1.0, 0.0);
  for (int k = 1; k < 40; k++) {
    om_dd t = om_dd_div_d(p, (double)(2 * k + 1));
    sum = om_dd_add(sum, t);
    if (t.hi < 0x1p-110) break;
    p = om_dd_mul(p, s2);
  }
  om_dd r = om_dd_mul(s, sum);
  return om_dd_make(2.0 * r.hi, 2.0 * r.lo);
}

/* Softplus log(1 + e^x) = max(x, 0) + log1p(e^-|x|), for -120 <= x <= 20 (the callers settle the rest:
 * below, the result is below 2^-173; above, x + e^-x with e^-x < 2^-28.8 |x| rounds to x in every format
 * used here). */
static inline om_dd om_dd_softplus(double x) {
  double a = x < 0 ? -x : x;
  om_dd l = om_dd_log1p_unit(om_dd_exp(om_dd_make(-a, 0.0)));
  return x > 0 ? om_dd_add_d(l, x) : l;
}
float om_fb_softplus(double x);

/* Mish x tanh(softplus(x)): with u = e^x, tanh(log(1 + u)) = u (u + 2) / (u (u + 2) + 2) (x <= 0, u <= 1);
 * with w = e^-x, (1 + 2w) / (1 + 2w + 2w^2) (x > 0). For -120 <= x <= 20 (below, |x| e^x < 2^-150 rounds to
 * -0; above, the factor is within 2e^-40 of 1 and the result rounds to x). No cancellation: every sum adds
 * positive terms. */
static inline om_dd om_dd_mish(double x) {
  om_dd q;
  if (x <= 0) {
    om_dd u = om_dd_exp(om_dd_make(x, 0.0));
    om_dd n = om_dd_mul(u, om_dd_add_d(u, 2.0));
    q = om_dd_div(n, om_dd_add_d(n, 2.0));
  } else {
    om_dd w = om_dd_exp(om_dd_make(-x, 0.0));
    om_dd w2 = om_dd_make(2.0 * w.hi, 2.0 * w.lo);
    om_dd a = om_dd_add_d(w2, 1.0);
    q = om_dd_div(a, om_dd_add(a, om_dd_mul(w2, w)));
  }
  return om_dd_mul_d(q, x);
}
float om_fb_mish(double x);

/* The negative side of Elu, Selu and Celu: a * expm1(x / d) for x < 0 (finite), a and d finite nonzero doubles
 * (Elu: a = alpha, d = 1; Selu: a = gamma alpha, exact in double, d = 1; Celu: a = d = alpha). The quotient is a
 * pair (om_dd_div, about 2^-104; exact when d = 1); below t = -120, e^t < 2^-173 changes a (1 - e^t) by less
 * than any distance of a from an f32 rounding boundary that is not zero (a has at most 48 bits), and on the
 * same side when it is zero, so t is clamped there; above t = 700 (Celu, alpha < 0) the result overflows every
 * format used here. om_dd_expm1 (om_dd.h): relative error < 2^-92; the product: one om_dd_mul_d. */
static inline om_dd om_dd_expm1_act(double x, double a, double d) {
  om_dd t = d == 1.0 ? om_dd_make(x, 0.0) : om_dd_div(om_dd_make(x, 0.0), om_dd_make(d, 0.0));
  if (t.hi < -120.0) t = om_dd_make(-120.0, 0.0);
  if (t.hi > 700.0) return om_dd_make(a * 0x1p1000 * 0x1p1000, 0.0); /* +-inf, the sign of a */
  return om_dd_mul_d(om_dd_expm1(t), a);
}

/* The parameters of one Elu, Selu or Celu node as the kernels use them (elu_f32.inc, tr16.c): for x > 0 the result
 * is RN(p x) (p = 1 or gamma: p x is exact in double); for x < 0 a * expm1(x / d) as above; for x = +-0 the
 * input itself (zkeep, Elu) or +0 (Selu, Celu: the value of their formulas in ONNX Runtime). */
typedef struct om_act_prm {
  double p, a, d;
  int zkeep;
} om_act_prm;

float om_fb_act(double x, const om_act_prm* pr);

#endif

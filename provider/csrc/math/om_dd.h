/* om_dd.h - scalar double-double arithmetic and the accurate per-lane fallbacks of the exact f32
 * transcendentals (see docs/exact-transcendentals.md).
 *
 * A fallback runs for a lane whose fast double-precision result lies too close to a rounding boundary of
 * f32 for its error bound (about one lane in 2^20 or fewer). It re-evaluates the function in double-double
 * (about 100 bits; relative error below 2^-85 on every path below, see each function) and rounds the pair
 * (hi, lo) once to f32 (om_dd_to_f32). Only IEEE + - * / on doubles, no FMA (the build has -ffp-contract=off,
 * products are made exact by Veltkamp/Dekker splitting), no libm: the same bits on every kernel path.
 *
 * That the fallbacks settle every lane that reaches them is not argued from the bounds alone: the exhaustive
 * check (tools/verify/cr_verify.c) runs every f32 input through the kernels and compares with MPFR.
 *
 * The dd-valued om_dd_log, om_dd_tanh, om_dd_erf, om_dd_gelu_erf, om_dd_gelu_tanh (with om_dd_exp and
 * om_dd_sigmoid) are also the evaluations behind the f16/bf16 tables of ../tr16.c, which round them once to
 * the 16-bit format.
 */
#ifndef OM_DD_H
#define OM_DD_H

#include <stdint.h>
#include <string.h>

#include "om_tr_consts.h"

#include "om_dd_core.h"

/* Round hi + lo (|lo| <= ulp(hi)/2) to the nearest f32, ties to even, subnormals and overflow included.
 * RN_f32(hi) is the answer unless hi is exactly an f32 rounding boundary (a midpoint between two adjacent
 * f32, which is a double): no other boundary lies within half a double ulp of hi. On a midpoint the sign of
 * lo decides. */
static inline float om_dd_to_f32(om_dd v) {
  float f = (float)v.hi;
  double fd = (double)f;
  if (fd == v.hi || v.lo == 0.0 || v.hi != v.hi) return f;
  uint32_t b = om_f32_bits(f);
  int away = (v.hi > 0) ? (v.hi > fd) : (v.hi < fd); /* the other neighbour is farther from zero */
  if (fd != fd) return f;
  float g;
  double gd;
  if ((b & 0x7fffffffu) == 0x7f800000u) { /* f = inf: the neighbour below, boundary at 2^128 - 2^103 */
    g = om_f32_from_bits(b - 1);
    gd = (v.hi > 0) ? 0x1p128 : -0x1p128;
    if (v.hi == ((double)g + gd) * 0.5) return (v.hi > 0) == (v.lo > 0) ? f : g;
    return f;
  }
  g = om_f32_from_bits(away ? b + 1 : b - 1);
  gd = (double)g;
  if ((om_f32_bits(g) & 0x7fffffffu) == 0x7f800000u) gd = (v.hi > 0) ? 0x1p128 : -0x1p128;
  if (v.hi != (fd + gd) * 0.5) return f;
  /* hi is the midpoint of f and g: the larger in magnitude when lo pushes hi away from zero. */
  int lo_away = (v.hi > 0) == (v.lo > 0);
  float big = away ? g : f, small = away ? f : g;
  return lo_away ? big : small;
}

/* e^r - 1 for |r| <= 0.36: Taylor series to degree 11 on u = r/256 (truncation < 2^-107 relative), then
 * eight doublings e^(2u) - 1 = m (m + 2), each keeping the relative error below about twice the previous
 * plus 2^-104: relative error < 2^-95. */
static inline om_dd om_dd_expm1_small(om_dd r) {
  om_dd u = om_dd_make(r.hi * 0x1p-8, r.lo * 0x1p-8);
  om_dd t = om_dd_make(1.0, 0.0);
  for (int n = 11; n >= 2; n--) t = om_dd_add_d(om_dd_div_d(om_dd_mul(t, u), (double)n), 1.0);
  om_dd m = om_dd_mul(t, u);
  for (int s = 0; s < 8; s++) m = om_dd_mul(m, om_dd_add_d(m, 2.0));
  return m;
}
/* e^t, |t| <= 745: k = rint(t/ln2), r = t - k ln2 with ln2 to 159 bits (|k ln2| < 2^10, so the error of r
 * is below 2^-99 absolute), e^t = 2^k (1 + expm1(r)). Relative error < 2^-94. */
static inline om_dd om_dd_exp(om_dd t) {
  double kd = (t.hi * 1.4426950408889634 + 0x1.8p52) - 0x1.8p52;
  om_dd kl = om_two_prod(kd, OM_LN2_hi);
  kl.lo += kd * OM_LN2_lo;
  om_dd r = om_dd_add(t, om_dd_neg(kl));
  r = om_dd_add_d(r, -kd * OM_LN2_T3);
  om_dd e = om_dd_add_d(om_dd_expm1_small(r), 1.0);
  int k = (int)kd;
  double s1 = om_pow2(k / 2), s2 = om_pow2(k - k / 2); /* two factors: no overflow of the scale itself */
  return om_dd_make(e.hi * s1 * s2, e.lo * s1 * s2);
}
/* e^t - 1: the series for |t| <= 0.35 (relative error < 2^-95), else e^t - 1 (|e^t - 1| > 0.29 there, so
 * the subtraction costs at most 2 bits). */
static inline om_dd om_dd_expm1(om_dd t) {
  if (t.hi <= 0.35 && t.hi >= -0.35) return om_dd_expm1_small(t);
  return om_dd_add_d(om_dd_exp(t), -1.0);
}

/* ---- fallbacks, one per function, declared here and defined in om_dd.c (compiled once, for the base target):
 * x is the f32 input (not NaN, not a special the kernel settles). The dd-valued evaluations stay static inline
 * here: the f16/bf16 tables (../kernels/tr16.c) and the reductions (../reduce/reduce_math.c) use them too. */

float om_fb_exp(double x);

/* log x = k ln2 - log c + log1p(r) as in the fast path (x = 2^k z, c ~ 1/z from om_log_tab, r = z c - 1);
 * log1p(r) = 2 atanh(s), s = r / (2 + r), |s| < 2^-8, series in s^2 to s^16 (truncation < 2^-120): relative
 * error < 2^-98. x > 0 a normal double. any_double 0 (om_dd_log): x is an f32 value, for which r and 2 + r are
 * exact in double (r has <= 45 bits). any_double 1 (om_dd_log_any, the reductions' f64 log): any double, r formed
 * in double-double (z c - 1 is not exact in double there). Each keeps its own operations, so its own bits. */
static inline om_dd om_dd_log_core(double x, int any_double) {
  uint64_t ix;
  memcpy(&ix, &x, 8);
  uint64_t tmp = ix - 0x3fe6000000000000ULL;
  int i = (int)((tmp >> 45) & 127);
  int k = (int)((int64_t)tmp >> 52);
  uint64_t iz = ix - (tmp & 0xfff0000000000000ULL);
  double z;
  memcpy(&z, &iz, 8);
  double c = om_log_tab[3 * i];
  om_dd s;
  if (any_double) {
    om_dd r = om_dd_add_d(om_two_prod(z, c), -1.0);
    s = om_dd_div(r, om_dd_add_d(r, 2.0));
  } else {
    double r = z * c - 1.0;
    s = om_dd_div(om_dd_make(r, 0.0), om_dd_make(2.0 + r, 0.0));
  }
  om_dd s2 = om_dd_mul(s, s);
  om_dd t = om_dd_div_d(om_dd_make(1.0, 0.0), 17.0);
  for (int n = 15; n >= 1; n -= 2) t = om_dd_add(om_dd_div_d(om_dd_make(1.0, 0.0), (double)n), om_dd_mul(t, s2));
  om_dd l1p = om_dd_mul(t, s);
  l1p.hi *= 2.0;
  l1p.lo *= 2.0;
  om_dd kl = om_dd_mul_d(om_dd_make(OM_LN2_hi, OM_LN2_lo), (double)k);
  return om_dd_add(om_dd_add(kl, om_dd_make(om_log_tab[3 * i + 1], om_log_tab[3 * i + 2])), l1p);
}
static inline om_dd om_dd_log(double x) { return om_dd_log_core(x, 0); }     /* x an f32 value */
static inline om_dd om_dd_log_any(double x) { return om_dd_log_core(x, 1); } /* any normal double */
float om_fb_log(double x);

/* tanh |x| = expm1(2|x|) / (expm1(2|x|) + 2). |x| < 2^-12 rounds to x (tanh x = x (1 - x^2/3 + ...) and
 * x^2/3 < 2^-25.5 is below half an ulp, nearest boundary at relative distance >= 2^-25). */
static inline om_dd om_dd_tanh(double x) { /* |x| <= 10 */
  double a = x < 0 ? -x : x;
  om_dd m = om_dd_expm1(om_dd_make(2.0 * a, 0.0));
  om_dd t = om_dd_div(m, om_dd_add_d(m, 2.0));
  if (x < 0) t = om_dd_neg(t);
  return t;
}
float om_fb_tanh(double x);

/* sigma(x) = 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) for x < 0. */
static inline om_dd om_dd_sigmoid(om_dd v) {
  int neg = v.hi < 0;
  om_dd e = om_dd_exp(neg ? v : om_dd_neg(v));
  om_dd den = om_dd_add_d(e, 1.0);
  return om_dd_div(neg ? e : om_dd_make(1.0, 0.0), den);
}
float om_fb_sigmoid(double x);

/* erf(w) = 2/sqrt(pi) e^(-w^2) sum_n 2^n w^(2n+1) / (1*3*...*(2n+1)): positive terms only, so no
 * cancellation; summed until a term is below 2^-110 of the sum. w2 = w^2 (exact for the callers). */
static inline om_dd om_dd_erf_series(om_dd w, double w2) {
  om_dd t = om_dd_make(1.0, 0.0), s = t;
  for (int n = 1; n < 400; n++) {
    t = om_dd_div_d(om_dd_mul_d(t, 2.0 * w2), (double)(2 * n + 1));
    s = om_dd_add(s, t);
    if (t.hi < s.hi * 0x1p-110) break;
  }
  om_dd e = om_dd_exp(om_dd_make(-w2, 0.0));
  return om_dd_mul(om_dd_mul(om_dd_mul(s, w), e), om_dd_make(OM_2_SQRTPI_hi, OM_2_SQRTPI_lo));
}
/* erfc(w), w >= 0: 1 - erf(w) for w < 2.5 (erfc(2.5) > 2^-12: the subtraction costs < 12 bits); else the
 * continued fraction erfc(w) = e^(-w^2)/sqrt(pi) / (w + (1/2)/(w + 1/(w + (3/2)/(w + ...)))) evaluated
 * bottom-up from depth 30 + 600/w^2 (measured at 400 bits: relative truncation < 2^-100 for w >= 2.5). */
static inline om_dd om_dd_erfc(om_dd w, double w2) {
  if (w.hi < 2.5) return om_dd_add_d(om_dd_neg(om_dd_erf_series(w, w2)), 1.0);
  int depth = 30 + (int)(600.0 / w2);
  om_dd f = w;
  for (int n = depth; n >= 1; n--) f = om_dd_add(w, om_dd_div(om_dd_make(0.5 * n, 0.0), f));
  om_dd e = om_dd_exp(om_dd_make(-w2, 0.0));
  return om_dd_div(om_dd_mul(e, om_dd_make(OM_1_SQRTPI_hi, OM_1_SQRTPI_lo)), f);
}
static inline om_dd om_dd_erf(double x) { /* 0 < |x| <= 4 */
  double a = x < 0 ? -x : x;
  om_dd r = om_dd_erf_series(om_dd_make(a, 0.0), a * a);
  if (x < 0) r = om_dd_neg(r);
  return r;
}
float om_fb_erf(double x);
/* Gelu(x) = x Phi(x), Phi(x) = (1 + erf(w))/2 for x >= 0 and erfc(w)/2 for x < 0, w = |x|/sqrt2 in
 * double-double, w^2 = x^2/2 exactly. */
static inline om_dd om_dd_gelu_erf(double x) { /* x != 0, -14.5 <= x <= 8 */
  double a = x < 0 ? -x : x;
  om_dd w = om_dd_mul_d(om_dd_make(OM_SQRT1_2_hi, OM_SQRT1_2_lo), a);
  double w2 = x * x * 0.5;
  om_dd phi = x >= 0 ? om_dd_add_d(om_dd_erf_series(w, w2), 1.0) : om_dd_erfc(w, w2);
  return om_dd_mul_d(phi, 0.5 * x);
}
float om_fb_gelu_erf(double x);
/* Gelu tanh: x/2 (1 + tanh(u)) = x sigma(2u), 2u = K1 x + K3 x^3 in double-double (x^2 exact, x^3 exact as
 * a pair), K1 = 2 sqrt(2/pi), K3 = 0.08943 sqrt(2/pi) to 106 bits. */
static inline om_dd om_dd_gelu_tanh(double x) { /* |x| <= 20 */
  double x2 = x * x;
  om_dd x3 = om_two_prod(x2, x);
  om_dd v = om_dd_add(om_dd_mul_d(om_dd_make(OM_K1_hi, OM_K1_lo), x), om_dd_mul(om_dd_make(OM_K3_hi, OM_K3_lo), x3));
  return om_dd_mul_d(om_dd_sigmoid(v), x);
}
float om_fb_gelu_tanh(double x);

#endif

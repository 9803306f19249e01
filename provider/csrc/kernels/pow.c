/* pow.c - Pow, reproducible in exact mode.
 *
 * Semantics (spec): a float base uses single-precision pow with the exponent converted to float, a double base
 * double pow, an integer base computes in double and converts back with saturation (truncation, NaN -> 0);
 * an exponent of 2 is x * x; Pow(x, 0) is 1 for every x, NaN included; the special values of C99 Annex F.
 *
 * f32 base (docs/exact-transcendentals.md, "Pow"). om_pow_run converts the exponent to f32 in blocks and runs
 * the kernel path's pow_f32 (kernels/pow.inc, math/pow_f32.inc): a vector first pass in double (table log2,
 * exp2, a per-lane proven error bound) with a rounding test; lanes it cannot settle and the special inputs
 * (x = +-0, +-inf, y = +-inf) come back here, to om_pow_exact_f32:
 *   - specials (om_pow_special), then the exact cases, decided exactly: |x| = 2^e with e y an integer (the
 *     result is 2^(e y), the tie 2^-150 rounds to 0), and x^y = p 2^e2 with p = M^n < 2^53 for y = n / 2^j
 *     (om_pow_int_exact; n <= 64, j <= 4), rounded once (subnormal midpoints included). Every f32 result that
 *     is exactly a float or a midpoint is of one of these forms (a midpoint has at most 25 significant bits:
 *     M^n < 2^25 needs n <= 15 for M >= 3, and x = M^(2^j) 2^(...) < 2^24 needs j <= 3);
 *   - otherwise x^y = exp(y log x) in double-double (om_pow_log_acc / om_pow_exp_acc): relative error below
 *     2^-96 by an operation count (largest measured 2^-97.3 over 10^6 pairs against MPFR), rounded once.
 *     This decides every pair whose x^y is farther than 2^-96 relative from a rounding boundary. That no
 *     non-exact pair comes closer is NOT proven (the worst cases of binary32 pow are not known to us); under
 *     the usual model (the distance to the nearest boundary uniform in ulps) the expected number of such pairs
 *     among all 2^64 is about 2^64 * 2^25 * 2^-96 = 2^-7. tools/c_tool.py pow_verify counts fallback results within
 *     2^-90 of a boundary (none so far) and checks samples of 10^9 pairs against MPFR (see the doc).
 * Fast mode, f32: the same first pass without the rounding test (< 1 ulp; specials through om_pow_exact_f32).
 *
 * f64 base (unchanged): exp(y log x) in double-double (om_log_dd / om_exp_dd; a few times 2^-70 relative, so
 * within 0.5 ulp + 2^-17 ulp; exact integer and n/2^j powers first, om_pow_int_exact). Fast mode: the
 * platform's pow. Every operation is an IEEE operation in a fixed order (no FMA, -ffp-contract=off), so exact
 * results are the same bits on every machine and kernel path.
 */
#include "pow.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cast.h"
#include "kernels.h"
#include "math/om_dd_core.h"
#include "core/om_types.h"

static const om_dd OM_LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};

static double om_bits_to_d(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}
static uint64_t om_d_to_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* log x for finite x > 0, as a double-double. */
static om_dd om_log_dd(double x) {
  int k = 0;
  if (x < 0x1p-1022) { /* subnormal: scale into the normal range */
    x *= 0x1p54;
    k = -54;
  }
  uint64_t u = om_d_to_bits(x);
  k += (int)(u >> 52) - 1023;
  double m = om_bits_to_d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 0x1.6a09e667f3bcdp+0) { /* sqrt 2 */
    m *= 0.5;
    k++;
  }
  om_dd s = om_dd_div((om_dd){m - 1.0, 0.0}, om_two_sum(m, 1.0)); /* m - 1 is exact (Sterbenz) */
  om_dd s2 = om_dd_mul(s, s);
  /* sum_{j=0}^{12} s2^j / (2j+1); 1/3 and 1/5 as double-doubles, the rest (terms < 2^-15) as doubles. */
  om_dd p = {1.0 / 25.0, 0.0};
  static const double inv_odd[12] = {1.0, 0, 0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0, 1.0 / 13.0, 1.0 / 15.0,
                                     1.0 / 17.0, 1.0 / 19.0, 1.0 / 21.0, 1.0 / 23.0};
  for (int j = 11; j >= 0; j--) {
    om_dd c = {inv_odd[j], 0.0};
    if (j == 1) c = (om_dd){0x1.5555555555555p-2, 0x1.5555555555555p-56};
    if (j == 2) c = (om_dd){0x1.999999999999ap-3, -0x1.999999999999ap-57};
    p = om_dd_add(om_dd_mul(p, s2), c);
  }
  om_dd lm = om_dd_mul(s, p);
  lm.hi *= 2.0;
  lm.lo *= 2.0;
  return om_dd_add(om_dd_mul_d(OM_LN2, (double)k), lm);
}

/* e^t for a double-double t with |t.hi| <= 746, as a double-double times 2^*k. */
static om_dd om_exp_dd(om_dd t, int* k) {
  double kd = (t.hi * 0x1.71547652b82fep+0 + 0x1.8p52) - 0x1.8p52; /* nearest integer to t / ln2 */
  om_dd r = om_dd_add(t, om_dd_mul_d(OM_LN2, -kd));
  r.hi *= 0x1p-8;
  r.lo *= 0x1p-8;
  /* e^r - 1 = r (1 + r (1/2 + r (1/6 + r (1/24 + r (1/120 + r (1/720 + r/5040)))))) */
  om_dd q = {1.0 / 5040.0, 0.0};
  static const double c[6] = {1.0, 0.5, 0x1.5555555555555p-3, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0};
  for (int j = 5; j >= 0; j--) {
    om_dd cj = {c[j], 0.0};
    if (j == 2) cj.lo = 0x1.5555555555555p-57;
    q = om_dd_add(om_dd_mul(q, r), cj);
  }
  om_dd em1 = om_dd_mul(q, r);
  for (int i = 0; i < 8; i++) em1 = om_dd_mul(em1, om_dd_add(em1, (om_dd){2.0, 0.0}));
  *k = (int)kd;
  return om_dd_add((om_dd){1.0, 0.0}, em1);
}


/* y is an integer: 0 no, 1 even, 2 odd. */
static int om_int_kind(double y) {
  double ay = fabs(y);
  if (ay >= 0x1p53) return 1;
  /* From 2^52 on every double is an integer, and ay + 2^52 would round (its ulp is 2) */
  if (ay >= 0x1p52) return ((uint64_t)ay & 1u) ? 2 : 1;
  double t = (ay + 0x1p52) - 0x1p52;
  if (t > ay) t -= 1.0; /* floor */
  if (t != ay) return 0;
  return ((uint64_t)ay & 1u) ? 2 : 1;
}

/* Special cases of C99 Annex F and the spec; returns 1 with *r set when (x, y) is one of them. On 0 *neg is set
 * when the result takes a minus sign (negative base, odd integer exponent). */
static int om_pow_special(double x, double y, double* r, int* neg) {
  *neg = 0;
  if (y == 0.0 || x == 1.0) return *r = 1.0, 1;
  if (y == 2.0) return *r = x * x, 1;
  if (x != x || y != y) return *r = x + y, 1;
  int kind = om_int_kind(y);
  double ax = fabs(x);
  if (isinf(y)) {
    if (ax == 1.0) return *r = 1.0, 1;
    return *r = ((ax < 1.0) == (y < 0)) ? INFINITY : 0.0, 1;
  }
  if (x == 0.0 || isinf(x)) {
    int big = (x == 0.0) == (y < 0); /* infinity when 0^negative or inf^positive */
    double mag = big ? INFINITY : 0.0;
    return *r = (kind == 2 && signbit(x)) ? -mag : mag, 1;
  }
  if (x < 0) {
    if (kind == 0) return *r = NAN, 1;
    *neg = kind == 2;
    /* (-1)^y: om_pow_core excludes |x| == 1 (log 1 = 0 would read as overflow for |y| > 2^64) */
    if (ax == 1.0) return *r = *neg ? -1.0 : 1.0, 1;
  }
  return 0;
}

/* |x|^y for finite nonzero x, finite y, |x| != 1, as a double-double scaled by 2^*k; *ovf = +1 overflow,
 * -1 underflow (then the double-double is unused). */
static om_dd om_pow_core(double ax, double y, int* k, int* ovf) {
  *ovf = 0;
  om_dd l = om_log_dd(ax);
  if (fabs(y) > 0x1p64) { /* |t| > 2^11 since |log| >= 2^-53 here */
    *ovf = ((l.hi > 0) == (y > 0)) ? 1 : -1;
    return (om_dd){0, 0};
  }
  om_dd t = om_dd_mul_d(l, y);
  if (t.hi > 710.0) {
    *ovf = 1;
    return (om_dd){0, 0};
  }
  if (t.hi < -746.0) {
    *ovf = -1;
    return (om_dd){0, 0};
  }
  return om_exp_dd(t, k);
}

/* Powers with an exactly known value. For |x| = M 2^E (M odd) and an integer 1 <= y <= 64, x^y is
 * M^y 2^(E y); when M^y fits in 64 bits it is computed exactly and rounded once. Exponents n / 2^j (j <= 4)
 * go through j exact square roots first, when x is a perfect square that many times. This settles every case where
 * x^y is exactly a midpoint between two floats or doubles (a midpoint has at most 25 or 54 significant bits,
 * so its odd part fits), such as 257^3 in f32 or 3^34 in f64, where the double-double, an approximation,
 * cannot tell the exact tie from a value next to it. Returns 0 when it does not apply. */
static int om_pow_int_exact(double ax, double y, uint64_t* p, int* e2) {
  if (!(y > 0.0 && y <= 64.0)) return 0;
  /* y = n / 2^j with j <= 4: x^y = (x^(1/2^j))^n, taken only when every square root on the way is exact. */
  int j = 0;
  while (j < 4 && om_int_kind(y) == 0) {
    y *= 2.0;
    j++;
  }
  if (om_int_kind(y) == 0 || y > 64.0) return 0;
  for (int i = 0; i < j; i++) {
    double r = sqrt(ax); /* correctly rounded; exact iff r * r == ax exactly */
    om_dd sq = om_two_prod(r, r);
    if (sq.hi != ax || sq.lo != 0.0) return 0;
    ax = r;
  }
  uint64_t u = om_d_to_bits(ax);
  int ex = (int)(u >> 52);
  uint64_t m = u & 0x000fffffffffffffull;
  if (ex == 0) ex = 1; /* subnormal */
  else m |= 1ull << 52;
  int e = ex - 1075;
  int tz = __builtin_ctzll(m);
  m >>= tz;
  e += tz;
  uint64_t acc = 1;
  for (int i = 0; i < (int)y; i++)
    if (__builtin_mul_overflow(acc, m, &acc)) return 0;
  *p = acc;
  *e2 = e * (int)y;
  return 1;
}

double om_pow_exact_f64(double x, double y) {
  double r;
  int neg, k, ovf;
  if (om_pow_special(x, y, &r, &neg)) return r;
  uint64_t p;
  int e2;
  if (om_pow_int_exact(fabs(x), y, &p, &e2)) {
    /* (double)p rounds once; scaling by 2^e2 is exact while the result stays normal. */
    int pe = 63 - __builtin_clzll(p);
    if (e2 + pe > -1020 && e2 + pe < 1020) {
      double m = (double)p;
      r = e2 >= 0 ? m * om_pow2(e2 / 2) * om_pow2(e2 - e2 / 2) : m * om_pow2(e2 / 2) * om_pow2(e2 - e2 / 2);
      return neg ? -r : r;
    }
  }
  om_dd e = om_pow_core(fabs(x), y, &k, &ovf);
  if (ovf > 0) r = INFINITY;
  else if (ovf < 0) r = 0.0;
  else if (k > 1000) r = e.hi * om_pow2(1000) * om_pow2(k - 1000);
  else if (k < -1000) r = (e.hi * om_pow2(k + 600)) * om_pow2(-600);
  else r = e.hi * om_pow2(k);
  return neg ? -r : r;
}

/* ---- f32: the accurate evaluation (the fallback of the vector first pass, math/pow_f32.inc) -------------------
 * log x = k ln2 + 2 atanh(s), s = (m - 1)/(m + 1), m in [sqrt(1/2), sqrt 2], |s| <= 0.1716, the series
 * 2 s sum_{j<=20} s^2j / (2j+1) (truncation < s^42 / 41 < 2^-112 relative) with double-double coefficients;
 * k ln2 with ln2 = A1 + A2 + A3 (A1, A2 of 44 bits: k A1, k A2 exact for |k| < 2^9); t = y log x (y exact);
 * e^t = 2^k e^r, r = t - k ln2 (|r| <= 0.35), e^(r/256) - 1 by Taylor to degree 10 (remainder < 2^-107 relative)
 * with double-double 1/j!, squared back eight times. Rough operation count: every double-double operation
 * errs by < 2^-104 relative, log x by < 2^-103 relative, t by < |t| 2^-102.8 absolute (|t| <= 104 in the range
 * that matters), e^t by < 2^-101 relative more: |V - x^y| < 2^-96 x^y. We do not claim this as a proof; the
 * decision below uses B = 2^-90 and every lane whose V lies within B of a rounding boundary, exact cases
 * excluded (they are settled before), is reported by the OM_POW_STATS hook (tools/verify/pow_verify.c counts them). */
static const om_dd OM_POW_INV_ODD[21] = {
    {0x1.0000000000000p+0, 0x0.0p+0},          {0x1.5555555555555p-2, 0x1.5555555555555p-56},
    {0x1.999999999999ap-3, -0x1.999999999999ap-57}, {0x1.2492492492492p-3, 0x1.2492492492492p-57},
    {0x1.c71c71c71c71cp-4, 0x1.c71c71c71c71cp-58},  {0x1.745d1745d1746p-4, -0x1.745d1745d1746p-59},
    {0x1.3b13b13b13b14p-4, -0x1.3b13b13b13b14p-58}, {0x1.1111111111111p-4, 0x1.1111111111111p-60},
    {0x1.e1e1e1e1e1e1ep-5, 0x1.e1e1e1e1e1e1ep-61},  {0x1.af286bca1af28p-5, 0x1.af286bca1af28p-59},
    {0x1.8618618618618p-5, 0x1.8618618618618p-59},  {0x1.642c8590b2164p-5, 0x1.642c8590b2164p-60},
    {0x1.47ae147ae147bp-5, -0x1.eb851eb851eb8p-61}, {0x1.2f684bda12f68p-5, 0x1.2f684bda12f68p-59},
    {0x1.1a7b9611a7b96p-5, 0x1.1a7b9611a7b96p-61},  {0x1.0842108421084p-5, 0x1.0842108421084p-60},
    {0x1.f07c1f07c1f08p-6, -0x1.f07c1f07c1f08p-61}, {0x1.d41d41d41d41dp-6, 0x1.0750750750750p-60},
    {0x1.bacf914c1bad0p-6, -0x1.bacf914c1bad0p-60}, {0x1.a41a41a41a41ap-6, 0x1.0690690690690p-60},
    {0x1.8f9c18f9c18fap-6, -0x1.f3831f3831f38p-61}};
static const om_dd OM_POW_INV_FACT[11] = {
    {0x1.0000000000000p+0, 0x0.0p+0},         {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.0000000000000p-1, 0x0.0p+0},         {0x1.5555555555555p-3, 0x1.5555555555555p-57},
    {0x1.5555555555555p-5, 0x1.5555555555555p-59}, {0x1.1111111111111p-7, 0x1.1111111111111p-63},
    {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65}, {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73},
    {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76}, {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
    {0x1.27e4fb7789f5cp-22, 0x1.cbbc05b4fa99ap-76}};
static const double OM_POW_LN2_A1 = 0x1.62e42fefa3a00p-1, OM_POW_LN2_A2 = -0x1.0ca86c3898c00p-49,
                    OM_POW_LN2_A3 = -0x1.ff0342542fc33p-94; /* sum: ln2 to 2^-149 relative */

static om_dd om_pow_k_ln2(double k) { /* |k| < 2^9, an integer */
  return om_dd_add_d(om_two_sum(k * OM_POW_LN2_A1, k * OM_POW_LN2_A2), k * OM_POW_LN2_A3);
}

static om_dd om_pow_log_acc(double x) { /* x > 0 a normal double */
  uint64_t u = om_d_to_bits(x);
  int k = (int)(u >> 52) - 1023;
  double m = om_bits_to_d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 0x1.6a09e667f3bcdp+0) {
    m *= 0.5;
    k++;
  }
  om_dd s = om_dd_div(om_dd_make(m - 1.0, 0.0), om_two_sum(m, 1.0)); /* m - 1 exact (Sterbenz) */
  om_dd s2 = om_dd_mul(s, s), p = OM_POW_INV_ODD[20];
  for (int j = 19; j >= 0; j--) p = om_dd_add(om_dd_mul(p, s2), OM_POW_INV_ODD[j]);
  om_dd lm = om_dd_mul(s, p);
  lm.hi *= 2.0;
  lm.lo *= 2.0;
  return om_dd_add(om_pow_k_ln2((double)k), lm);
}

static om_dd om_pow_exp_acc(om_dd t, int* k) { /* |t.hi| <= 120 */
  double kd = (t.hi * 0x1.71547652b82fep+0 + 0x1.8p52) - 0x1.8p52;
  om_dd r = om_dd_add(t, om_dd_neg(om_pow_k_ln2(kd)));
  r.hi *= 0x1p-8;
  r.lo *= 0x1p-8;
  om_dd q = OM_POW_INV_FACT[10];
  for (int j = 9; j >= 1; j--) q = om_dd_add(om_dd_mul(q, r), OM_POW_INV_FACT[j]);
  om_dd em1 = om_dd_mul(q, r);
  for (int i = 0; i < 8; i++) em1 = om_dd_mul(em1, om_dd_add(em1, om_dd_make(2.0, 0.0)));
  *k = (int)kd;
  return om_dd_add(om_dd_make(1.0, 0.0), em1);
}

#ifdef OM_POW_STATS /* tools/verify/pow_verify.c: the accuracy of the general path, and the lanes it cannot vouch for */
void om_pow_on_undecided(float x, float y);
void om_pow_on_general(float x, float y, double hi, double lo);
#endif

/* 2^e exactly as a float, RN for e < -149 (2^-150 is the tie between 0 and 2^-149: even, 0), inf from 128 on */
static float om_pow2_f32(double e) {
  if (e >= 128.0) return INFINITY;
  if (e < -149.0) return 0.0f;
  int ei = (int)e;
  return (float)om_pow2(ei); /* exact: a power of two in f32's range, subnormal included */
}

float om_pow_exact_f32(float xf, float yf) {
  double x = xf, y = yf, r;
  int neg, k, ovf;
  if (xf != xf || yf != yf) {
    if (yf == 0.0f || xf == 1.0f) return 1.0f;
    return NAN;
  }
  if (om_pow_special(x, y, &r, &neg)) return (yf == 2.0f) ? xf * xf : (float)r;
  double ax = fabs(x);
  /* |x| = 2^e: x^y = 2^(e y), exact when e y is an integer (e y is exact in double: 8 x 24 bits). */
  uint64_t ub = om_d_to_bits(ax);
  if ((ub & 0x000fffffffffffffull) == 0) {
    double ey = (double)((int)(ub >> 52) - 1023) * y;
    if (om_int_kind(ey) != 0 || fabs(ey) >= 0x1p30) {
      float f = fabs(ey) >= 0x1p30 ? (ey > 0 ? INFINITY : 0.0f) : om_pow2_f32(ey);
      return neg ? -f : f;
    }
  }
  uint64_t p;
  int e2;
  if (om_pow_int_exact(ax, y, &p, &e2)) {
    /* x^y = p 2^e2 exactly. When p < 2^53, (double)p is exact and so is the scaling while the double stays
     * normal; the conversion to float then rounds once (subnormal results included). p >= 2^53: x^y has more
     * than 53 significant bits, so it is neither a float nor a midpoint: the general path below decides it. */
    int pe = 63 - __builtin_clzll(p);
    if (p < (1ull << 53)) {
      float f;
      if (e2 + pe >= 128) f = INFINITY;
      else if (e2 + pe < -151) f = 0.0f;
      else f = (float)((double)p * om_pow2(e2));
      return neg ? -f : f;
    }
  }
  /* the general case */
  om_dd l = om_pow_log_acc(ax);
  om_dd t = om_dd_mul_d(l, y);
  if (fabs(y) > 0x1p40 || t.hi > 100.0 || t.hi < -110.0) { /* |log x| >= 2^-24: beyond 2^128 or below 2^-158 */
    float f = ((l.hi > 0) == (y > 0)) ? INFINITY : 0.0f;
    return neg ? -f : f;
  }
  (void)ovf;
  om_dd e = om_pow_exp_acc(t, &k);
  /* Scale exactly (2^-160 < the result < 2^145 in double), then round the double-double once. */
  double sc = om_pow2(k), hi = e.hi * sc, lo = e.lo * sc;
  float f = (float)hi;
  double fd = f;
  uint32_t fb;
  memcpy(&fb, &f, sizeof fb);
  /* the float neighbour of f on the side of hi + lo, and the midpoint between them (a double) */
  int up = (hi > fd) || (hi == fd && lo > 0);
  uint32_t nb = up ? fb + 1 : fb - 1;
  float nf;
  memcpy(&nf, &nb, sizeof nf);
  double mid = ((isinf(nf) ? 0x1p128 : (double)nf) + fd) * 0.5; /* past FLT_MAX: the overflow threshold */
  if (fd != hi && lo != 0.0 && !isinf(f)) {
    /* (float)hi rounded hi; only when hi is exactly the midpoint can lo change the rounding: its sign decides. */
    if (hi == mid && ((lo > 0) == (hi > fd))) f = nf;
  }
#ifdef OM_POW_STATS
  om_pow_on_general(xf, yf, hi, lo);
  {
    double dist = fabs((hi - mid) + lo); /* hi - mid exact (Sterbenz) */
    if (dist <= 0x1p-90 * hi) om_pow_on_undecided(xf, yf);
  }
#endif
  return neg ? -f : f;
}

/* ---- the element loop ------------------------------------------------------------------------------------ */
static double om_load_as_double(const void* p, int type, size_t i) {
  switch (type) {
    case OM_T_FLOAT: return ((const float*)p)[i];
    case OM_T_DOUBLE: return ((const double*)p)[i];
    case OM_T_INT32: return ((const int32_t*)p)[i];
    case OM_T_INT64: return (double)((const int64_t*)p)[i];
    case OM_T_UINT32: return ((const uint32_t*)p)[i];
    default: return (double)((const uint64_t*)p)[i];
  }
}
static float om_load_as_float(const void* p, int type, size_t i) {
  switch (type) {
    case OM_T_FLOAT: return ((const float*)p)[i];
    case OM_T_DOUBLE: return (float)((const double*)p)[i];
    case OM_T_INT32: return (float)((const int32_t*)p)[i];
    case OM_T_INT64: return (float)((const int64_t*)p)[i];
    case OM_T_UINT32: return (float)((const uint32_t*)p)[i];
    default: return (float)((const uint64_t*)p)[i];
  }
}

static double om_pow_fast_f64(double x, double y) {
  /* Pow(x, 0) = 1 and Pow(1, y) = 1 for every x, y (spec, Annex F); glibc's pow gives NaN for a signaling NaN */
  if (y == 0.0 || x == 1.0) return 1.0;
  if (y == 2.0) return x * x;
  return pow(x, y);
}

void om_pow_run(int base_type, int exp_type, int exact, const void* base, const void* exponent, void* out, size_t n,
                unsigned bcast, const om_kernel_table* wide, const om_kernel_table* one) {
  /* The exponent is converted to the base's float type in blocks, so the inner loops carry no type switch. */
  enum { BLOCK = 256 };
  /* An f32 base to the broadcast power 2 (RMSNorm's x^2): pow(x, 2) is x*x rounded once, which the Mul
   * kernel computes (its exact mode gives the canonical NaN as pow would; +-inf, +-0 and subnormals agree:
   * (+-inf)^2 = +inf, (-0)^2 = +0). Ten times faster than the general first pass (llama_tiny's RMSNorm). */
  if (base_type == OM_T_FLOAT && (bcast & 2u) && !(bcast & 1u) && n > 0 &&
      om_load_as_float(exponent, exp_type, 0) == 2.0f) {
    unsigned fl = exact ? OM_FL_EXACT : 0u;
    size_t done = wide->bin[OM_K_MUL][OM_T_FLOAT](base, base, out, n, 0u, fl);
    if (done < n)
      one->bin[OM_K_MUL][OM_T_FLOAT]((const float*)base + done, (const float*)base + done, (float*)out + done,
                                     n - done, 0u, fl);
    return;
  }
  for (size_t s = 0; s < n; s += BLOCK) {
    size_t m = n - s < BLOCK ? n - s : BLOCK;
    size_t ib0 = (bcast & 2u) ? 0 : s, ia0 = (bcast & 1u) ? 0 : s;
    size_t bstep = (bcast & 2u) ? 0 : 1, astep = (bcast & 1u) ? 0 : 1;
    if (base_type == OM_T_FLOAT) {
      float yb[BLOCK], xb[BLOCK];
      const float* y = (const float*)exponent + ib0;
      if (exp_type != OM_T_FLOAT || (bcast & 2u)) {
        for (size_t i = 0; i < m; i++) yb[i] = om_load_as_float(exponent, exp_type, ib0 + i * bstep);
        y = yb;
      }
      const float* x = (const float*)base + ia0;
      if (bcast & 1u) {
        for (size_t i = 0; i < m; i++) xb[i] = x[0];
        x = xb;
      }
      float* o = (float*)out + s;
      unsigned fl = exact ? OM_FL_EXACT : 0u;
      size_t done = wide->pow_f32(x, y, o, m, fl);
      if (done < m) one->pow_f32(x + done, y + done, o + done, m - done, fl);
    } else {
      double y[BLOCK], x[BLOCK], r[BLOCK];
      for (size_t i = 0; i < m; i++) y[i] = om_load_as_double(exponent, exp_type, ib0 + i * bstep);
      for (size_t i = 0; i < m; i++) x[i] = om_load_as_double(base, base_type, ia0 + i * astep);
      if (exact)
        for (size_t i = 0; i < m; i++) r[i] = om_pow_exact_f64(x[i], y[i]);
      else
        for (size_t i = 0; i < m; i++) r[i] = om_pow_fast_f64(x[i], y[i]);
      if (base_type == OM_T_DOUBLE) {
        double* o = (double*)out + s;
        for (size_t i = 0; i < m; i++) o[i] = (exact && r[i] != r[i]) ? om_bits_to_d(0x7ff8000000000000ull) : r[i];
      } else {
        /* Integer base: back from double with truncation and saturation; NaN gives 0 (as Cast does). */
        om_cast(r, OM_T_DOUBLE, (char*)out + s * om_type_size(base_type), base_type, m);
      }
    }
  }
}

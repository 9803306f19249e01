/* tr16.c - f16 and bf16 Exp, Log, Tanh, Sigmoid, Erf, Gelu (none/tanh), Sin, Cos, correctly rounded (see tr16.h and
 * docs/exact-transcendentals.md).
 *
 * om_tr16_eval: decode the 16-bit input to a double (exact), settle the specials and the ranges where the
 * result is known (each bound below is far outside the range where the 16-bit result could differ), else
 * evaluate the function in double-double (math/om_dd.h: relative error below about 2^-85) and round the pair
 * once to the 16-bit format (om_tr16_round). A 16-bit rounding boundary is a midpoint of precision p + 1 <= 12
 * bits; the exhaustive test (tests/kernels/test_transcendentals_16.py, all 65,536 inputs of both types against MPFR)
 * shows that no true value lies closer to one than the double-double error, except the exact cases the
 * evaluation reproduces exactly (e^0 = 1, log 1 = 0, sigma(0) = 1/2).
 *
 * The tables: one per (function, type), 65,536 uint16 results indexed by the input bits, built on first use
 * and published with one compare-and-swap (C11 atomics): a thread that loses the race frees its copy and uses
 * the winner's (both are identical). If the allocation fails the kernel evaluates each element directly: the
 * same bits, only slower. Tables live until the process exits.
 */
#include "tr16.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "math/om_dd.h"
#include "math/om_dd_trig.h"
#include "math/om_dd_act.h"
#include "math/om_half.h"

/* precision p (bits, the implicit one included), least normal exponent emin, largest exponent emax */
static const int om_tr16_p[2] = {11, 8}, om_tr16_emin[2] = {-14, -126}, om_tr16_emax[2] = {15, 127};
static const uint16_t om_tr16_nan[2] = {0x7E00u, 0x7FC0u}, om_tr16_inf[2] = {0x7C00u, 0x7F80u};

static double om_tr16_decode(int fmt, uint16_t b) {
  return fmt == OM_TR16_BF16 ? (double)om_bf16_to_f32(b) : om_f16_to_f64(b);
}

/* Round hi + lo to the nearest value of the 16-bit format, ties to even, subnormals and overflow included.
 * With e the exponent of |hi| (clamped below at emin) and q = 2^(e - p + 1) the format's spacing there,
 * y = |hi|/q is exact (a power-of-two scaling), n = floor(y) and f = y - n are exact; lo is below half an
 * ulp of hi, so below any nonzero distance of y from a half-integer: only when f is exactly 1/2 does the
 * sign of lo decide (and when lo = 0, the even neighbour). The result is n or n + 1 units of q, encoded as
 * ((e - emin) << (p - 1)) + n: this gives the subnormal encodings, the carry into the next binade, and
 * infinity on overflow. hi = 2^e with lo < 0 (true value just below the binade) rounds to 2^e either way. */
static uint16_t om_tr16_round(om_dd v, int fmt) {
  if (v.lo != 0) v = om_two_sum(v.hi, v.lo); /* normalize: |lo| <= ulp(hi)/2 */
  uint64_t u;
  memcpy(&u, &v.hi, 8);
  uint16_t sign = (u >> 63) ? 0x8000u : 0u;
  double a = sign ? -v.hi : v.hi, lo = sign ? -v.lo : v.lo;
  int p = om_tr16_p[fmt], emin = om_tr16_emin[fmt], emax = om_tr16_emax[fmt];
  if (a < 0x1p-200) return sign; /* below a quarter of the least subnormal of both formats */
  if (a >= om_pow2(emax + 1)) return sign | om_tr16_inf[fmt];
  memcpy(&u, &a, 8);
  int e = (int)(u >> 52) - 1023;
  if (e < emin) e = emin;
  double q = om_pow2(e - p + 1);
  double y = a / q;
  double n = (double)(int64_t)y; /* 0 <= y < 2^p */
  double f = y - n;
  uint32_t k = (uint32_t)n;
  if (f > 0.5 || (f == 0.5 && (lo > 0 || (lo == 0 && (k & 1))))) k++;
  return (uint16_t)(sign | (((uint32_t)(e - emin) << (p - 1)) + k)); /* at most inf: e <= emax, k <= 2^p */
}

static uint16_t om_tr16_of_double(double x, int fmt) { return om_tr16_round(om_dd_make(x, 0.0), fmt); }

/* Elu, Selu (om_act_prm, om_dd_act.h): x > 0 gives RN(p x) (p x exact in double), +-0 the input or +0, x < 0
 * the double-double a expm1(x), rounded once; NaN inputs and NaN results (a NaN parameter) the canonical NaN. */
static const om_act_prm om_tr16_elu_default = {1.0, 1.0, 1.0, 1};
#define OM_SELU_ALPHA 1.67326319217681884765625f
#define OM_SELU_GAMMA 1.05070102214813232421875f
static const om_act_prm om_tr16_selu_default = {(double)OM_SELU_GAMMA, (double)OM_SELU_GAMMA * (double)OM_SELU_ALPHA,
                                                1.0, 0};
static uint16_t om_tr16_act(const om_act_prm* pr, int fmt, uint16_t bits) {
  double x = om_tr16_decode(fmt, bits);
  if (x != x) return om_tr16_nan[fmt];
  om_dd r = x > 0 ? om_dd_make(pr->p * x, 0.0) : x == 0 ? om_dd_make(0.0, 0.0) : om_dd_expm1_act(x, pr->a, pr->d);
  if (x == 0 && pr->zkeep) return bits;
  if (r.hi != r.hi) return om_tr16_nan[fmt];
  return om_tr16_round(r, fmt);
}

uint16_t om_tr16_eval(int fn, int fmt, uint16_t bits) {
  double x = om_tr16_decode(fmt, bits);
  if (x != x) return om_tr16_nan[fmt];
  double a = x < 0 ? -x : x;
  om_dd r;
  switch (fn) {
    case OM_TR16_EXP: /* e^89 > 2^128, e^-105 < 2^-151 */
      if (x > 89.0) return om_tr16_inf[fmt];
      if (x < -105.0) return 0;
      r = om_dd_exp(om_dd_make(x, 0.0));
      break;
    case OM_TR16_LOG:
      if (x < 0) return om_tr16_nan[fmt];
      if (x == 0) return 0x8000u | om_tr16_inf[fmt];
      if (x > 0x1p200) return om_tr16_inf[fmt]; /* +inf (every finite 16-bit value is below 2^128) */
      r = om_dd_log(x);
      break;
    case OM_TR16_TANH: /* 1 - tanh 10 < 2^-27 */
      if (x == 0) return bits;
      if (a > 10.0) return om_tr16_of_double(x < 0 ? -1.0 : 1.0, fmt);
      r = om_dd_tanh(x);
      break;
    case OM_TR16_SIGMOID: /* sigma(-120) < 2^-173 */
      if (x > 120.0) return om_tr16_of_double(1.0, fmt);
      if (x < -120.0) return 0;
      r = om_dd_sigmoid(om_dd_make(x, 0.0));
      break;
    case OM_TR16_ERF: /* erfc 4 < 2^-25 */
      if (x == 0) return bits;
      if (a > 4.0) return om_tr16_of_double(x < 0 ? -1.0 : 1.0, fmt);
      r = om_dd_erf(x);
      break;
    case OM_TR16_GELU_ERF: /* |Gelu(-14.5)| < 2^-150; 1 - Phi(8) < 2^-50 */
      if (x == 0) return bits;
      if (x < -14.5) return 0x8000u;
      if (x > 8.0) return bits;
      r = om_dd_gelu_erf(x);
      break;
    case OM_TR16_GELU_TANH: /* |Gelu(-20)| < 2^-800; 1 - sigma(2u(20)) < 2^-800 */
      if (x == 0) return bits;
      if (x < -20.0) return 0x8000u;
      if (x > 20.0) return bits;
      r = om_dd_gelu_tanh(x);
      break;
    case OM_TR16_SIN: /* NaN for +-inf; sin(+-0) = +-0 */
    case OM_TR16_COS:
      if (a == __builtin_inf()) return om_tr16_nan[fmt];
      r = om_dd_sincos(x, fn == OM_TR16_COS);
      break;
    case OM_TR16_SOFTPLUS: /* x > 20: x + e^-x rounds to x; x < -120: below 2^-173 */
      if (x > 20.0) return bits;
      if (x < -120.0) return 0;
      r = om_dd_softplus(x);
      break;
    case OM_TR16_MISH: /* x > 20: within 2e^-40 relative of x; x < -120: |x| e^x < 2^-160 */
      if (x == 0 || x > 20.0) return bits; /* mish(+-0) = +-0 */
      if (x < -120.0) return 0x8000u;
      r = om_dd_mish(x);
      break;
    case OM_TR16_ELU: return om_tr16_act(&om_tr16_elu_default, fmt, bits);
    case OM_TR16_SELU: return om_tr16_act(&om_tr16_selu_default, fmt, bits);
    default: return om_tr16_nan[fmt];
  }
  return om_tr16_round(r, fmt);
}

static _Atomic(uint16_t*) om_tr16_tabs[OM_TR16_COUNT][2];

static const uint16_t* om_tr16_table(int fn, int fmt) {
  uint16_t* t = atomic_load_explicit(&om_tr16_tabs[fn][fmt], memory_order_acquire);
  if (t) return t;
  uint16_t* mine = malloc(65536 * sizeof *mine);
  if (!mine) return NULL;
  for (uint32_t b = 0; b < 65536; b++) mine[b] = om_tr16_eval(fn, fmt, (uint16_t)b);
  uint16_t* expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&om_tr16_tabs[fn][fmt], &expected, mine, memory_order_acq_rel,
                                              memory_order_acquire))
    return mine;
  free(mine); /* another thread published first: its table is the same */
  return expected;
}

static size_t om_tr16_run(int fn, int fmt, const void* a, void* out, size_t n) {
  const uint16_t* x = (const uint16_t*)a;
  uint16_t* y = (uint16_t*)out;
  const uint16_t* t = om_tr16_table(fn, fmt);
  if (t)
    for (size_t i = 0; i < n; i++) y[i] = t[x[i]];
  else
    for (size_t i = 0; i < n; i++) y[i] = om_tr16_eval(fn, fmt, x[i]);
  return n;
}

#define OM_TR16_DEF(name, FN)                                                         \
  size_t om_tr16_##name##_f16(const void* a, void* out, size_t n, unsigned flags) {  \
    (void)flags;                                                                      \
    return om_tr16_run(FN, OM_TR16_F16, a, out, n);                                   \
  }                                                                                   \
  size_t om_tr16_##name##_bf16(const void* a, void* out, size_t n, unsigned flags) { \
    (void)flags;                                                                      \
    return om_tr16_run(FN, OM_TR16_BF16, a, out, n);                                  \
  }
OM_TR16_DEF(exp, OM_TR16_EXP)
OM_TR16_DEF(log, OM_TR16_LOG)
OM_TR16_DEF(tanh, OM_TR16_TANH)
OM_TR16_DEF(sigmoid, OM_TR16_SIGMOID)
OM_TR16_DEF(erf, OM_TR16_ERF)
OM_TR16_DEF(gelu_erf, OM_TR16_GELU_ERF)
OM_TR16_DEF(gelu_tanh, OM_TR16_GELU_TANH)
OM_TR16_DEF(sin, OM_TR16_SIN)
OM_TR16_DEF(cos, OM_TR16_COS)
OM_TR16_DEF(softplus, OM_TR16_SOFTPLUS)
OM_TR16_DEF(mish, OM_TR16_MISH)

/* Tables for other parameters than the defaults: up to OM_TR16_PSLOTS (function, type, alpha, gamma) in a process,
 * each built by the first call of at least OM_TR16_PMIN elements (a build costs about 65,536 direct evaluations)
 * and published into a free slot with one compare-and-swap; the key is part of the published block, so a reader
 * that finds a block knows its parameters. Smaller calls, and calls once every slot holds other parameters,
 * evaluate each element directly: the same bits. */
#define OM_TR16_PSLOTS 16
#define OM_TR16_PMIN 8192
typedef struct {
  int fn, fmt;
  uint32_t alpha, gamma;
  uint16_t tab[65536];
} om_tr16_ptab;
static _Atomic(om_tr16_ptab*) om_tr16_pslots[OM_TR16_PSLOTS];

static const uint16_t* om_tr16_param_table(int fn, int fmt, const om_act_prm* pr, uint32_t ab, uint32_t gb) {
  om_tr16_ptab* mine = NULL;
  for (int k = 0; k < OM_TR16_PSLOTS; k++) {
    om_tr16_ptab* t = atomic_load_explicit(&om_tr16_pslots[k], memory_order_acquire);
    if (!t) {
      if (!mine) {
        mine = malloc(sizeof *mine);
        if (!mine) return NULL;
        mine->fn = fn, mine->fmt = fmt, mine->alpha = ab, mine->gamma = gb;
        for (uint32_t b = 0; b < 65536; b++) mine->tab[b] = om_tr16_act(pr, fmt, (uint16_t)b);
      }
      om_tr16_ptab* expected = NULL;
      if (atomic_compare_exchange_strong_explicit(&om_tr16_pslots[k], &expected, mine, memory_order_acq_rel,
                                                  memory_order_acquire))
        return mine->tab;
      t = expected; /* another thread filled this slot first */
    }
    if (t->fn == fn && t->fmt == fmt && t->alpha == ab && t->gamma == gb) {
      free(mine);
      return t->tab;
    }
  }
  free(mine);
  return NULL;
}

/* Elu and Selu: the table of the default parameters when b holds them, else a table of b's parameters (above),
 * else each element evaluated directly (double-double, the same bits). */
static size_t om_tr16_run_act(int fn, int fmt, const void* a, const void* pb, void* out, size_t n) {
  float alpha, gamma = 0.0f;
  memcpy(&alpha, pb, sizeof alpha);
  if (fn == OM_TR16_SELU) memcpy(&gamma, (const char*)pb + sizeof alpha, sizeof gamma);
  int dflt = fn == OM_TR16_ELU ? om_f32_bits(alpha) == om_f32_bits(1.0f)
                               : om_f32_bits(alpha) == om_f32_bits(OM_SELU_ALPHA) &&
                                     om_f32_bits(gamma) == om_f32_bits(OM_SELU_GAMMA);
  if (dflt) return om_tr16_run(fn, fmt, a, out, n);
  om_act_prm pr = fn == OM_TR16_ELU ? (om_act_prm){1.0, (double)alpha, 1.0, 1}
                                    : (om_act_prm){(double)gamma, (double)gamma * (double)alpha, 1.0, 0};
  const uint16_t* x = (const uint16_t*)a;
  uint16_t* y = (uint16_t*)out;
  const uint16_t* t =
      n >= OM_TR16_PMIN ? om_tr16_param_table(fn, fmt, &pr, om_f32_bits(alpha), om_f32_bits(gamma)) : NULL;
  if (t)
    for (size_t i = 0; i < n; i++) y[i] = t[x[i]];
  else
    for (size_t i = 0; i < n; i++) y[i] = om_tr16_act(&pr, fmt, x[i]);
  return n;
}
#define OM_TR16_DEF_P(name, FN)                                                                           \
  size_t om_tr16_##name##_f16(const void* a, const void* b, void* out, size_t n, unsigned bc, unsigned flags) { \
    (void)bc, (void)flags;                                                                                \
    return om_tr16_run_act(FN, OM_TR16_F16, a, b, out, n);                                                \
  }                                                                                                       \
  size_t om_tr16_##name##_bf16(const void* a, const void* b, void* out, size_t n, unsigned bc, unsigned flags) { \
    (void)bc, (void)flags;                                                                                \
    return om_tr16_run_act(FN, OM_TR16_BF16, a, b, out, n);                                               \
  }
OM_TR16_DEF_P(elu, OM_TR16_ELU)
OM_TR16_DEF_P(selu, OM_TR16_SELU)

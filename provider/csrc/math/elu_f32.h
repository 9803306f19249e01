/* elu_f32.h - Elu, Selu and Celu, f32, correctly rounded (included per kernel path by transcendental.inc; fast
 * mode runs the same kernel).
 *
 * The real functions, rounded once (om_act_prm in om_dd_act.h holds a node's parameters as p, a, d):
 *   Elu  (alpha):        x for x >= 0,                      alpha (e^x - 1) for x < 0   (p = 1, a = alpha, d = 1)
 *   Selu (alpha, gamma): gamma x for x > 0, +0 for x = +-0, gamma alpha (e^x - 1) below (p = gamma,
 *                        a = gamma alpha: 24 x 24 bits, exact in double, d = 1)
 *   Celu (alpha):        max(0, x) + min(0, alpha (e^(x/alpha) - 1)): x for x > 0, +0 for +-0, alpha (e^(x/alpha)
 *                        - 1) for x < 0, whatever the sign of alpha (p = 1, a = d = alpha; alpha != 0)
 * x > 0 and x = +-0 are settled directly (p x is exact in double, so RN_f32(p x) is one rounding); so are NaN
 * (canonical NaN) and results that are infinite or NaN in double (a parameter of a huge magnitude or NaN).
 * x < 0: t = RN(x/d) (exact when d = 1), clamped to [-120, 700] (below, e^t < 2^-173: within the slack of eps
 * below; above, every result overflows f32); e^t = hi + lo from om_vexp_parts, e^t - 1 = (hi - 1) + lo within
 * 2^-49.8 relative (om_vcore.h; 2^-52.9 when |t| < 0.0054). y = RN(a (e^t - 1)): in units of 2^-53, relative,
 * 2^3.2 = 9.19 from e^t - 1, 1 from the product, and for Celu 1 from t (its error enters scaled by
 * t e^t / (e^t - 1), which is below 1 for t < 0 and below t + 1 for 0 < t, so by at most |t| + 1 for alpha < 0;
 * see the eps below): y within 11.2 2^-53 < 2^-49.5.
 * Rounding test eps = 2^-49 (+2^-52 padding in om_tr_round); Celu with alpha < 0 adds |t| 2^-53 per lane.
 * Fallback om_fb_act (om_dd_act.h): a * expm1(x/d) in double-double.
 */
#include "om_dd_act.h"

static inline __attribute__((always_inline)) om_vfh om_act_v(om_vfh xf, const om_act_prm* pr, om_trmask* bad) {
  om_vd x = __builtin_convertvector(xf, om_vd);
  om_vd t = x / OM_VD(pr->d);
  t = om_vmin(om_vmax(t, OM_VD(-120.0)), OM_VD(700.0)); /* NaN becomes -120 (its lane is settled below) */
  om_vd hi, lo;
  om_vexp_parts(&t, &hi, &lo);
  om_vd y = OM_VD(pr->a) * ((hi - 1.0) + lo);
  om_vd eps = OM_VD(0x1p-49) + om_vmax(t, OM_VD(0.0)) * 0x1p-53; /* t > 0: Celu with alpha < 0 */
  om_vfh pos = __builtin_convertvector(OM_VD(pr->p) * x, om_vfh);
  om_vfh zero = pr->zkeep ? xf : (om_vfh){0};
  om_vih yx = __builtin_convertvector((om_vl)(om_vabs(y) > 0x1.fffffffffffffp1023) | (om_vl)(y != y), om_vih);
  om_vih nan = (om_vih)(xf != xf);
  om_vih sp = nan | (om_vih)(xf >= 0) | yx;
  om_vfh sv = OM_VSELF((om_vih)(xf > 0), pos, zero);
  sv = OM_VSELF(yx & ~(om_vih)(xf >= 0), __builtin_convertvector(y, om_vfh), sv);
  sv = OM_VSELF(nan | (om_vih)(sv != sv), OM_QNAN_F, sv);
  return om_tr_round(&y, &eps, sp, sv, 1, bad);
}

/* The kernel of a parametrized unary f32 function: the binary kernel signature, operand b the node's
 * parameters (always broadcast: node/elementwise.c's param_operand; f32 alpha, then gamma), read once by PRM. The loop is
 * OM_TR_KERNEL's (om_vcore.h): whole vectors as two half vectors, the offsets of vectors with a flagged lane
 * noted per chunk (with a copy of their inputs when the output overlaps the input), then the fix. */
#define OM_TR_KERNEL_PRM(NAME, PRM)                                                                   \
  static __attribute__((noinline, cold)) void OM_FN(NAME##_fix)(const float* a, float* o,            \
                                                                 const om_act_prm* pr) {              \
    for (size_t h = 0; h < OM_LANES(float) / OM_TR_L; h++) {                                          \
      const float* ah = a + h * OM_TR_L;                                                              \
      float* oh = o + h * OM_TR_L;                                                                    \
      om_vfh x;                                                                                       \
      om_trmask bad = OM_TR_NONE;                                                                     \
      OM_LOAD(x, ah);                                                                                 \
      (void)om_act_v(x, pr, &bad);                                                                    \
      for (size_t l = 0; l < OM_TR_L; l++)                                                            \
        if (OM_TR_LANE(bad, l)) OM_TR_ON_FALLBACK(ah[l]), oh[l] = om_fb_act((double)ah[l], pr);       \
    }                                                                                                 \
  }                                                                                                   \
  static size_t OM_FN(NAME)(const void* pa, const void* pb, void* po, size_t n, unsigned bc, unsigned fl) { \
    const om_act_prm prm_ = PRM((const float*)pb);                                                    \
    const float* a = (const float*)pa;                                                                \
    float* o = (float*)po;                                                                            \
    size_t i = 0;                                                                                     \
    uint32_t fix[OM_TR_CHUNK / OM_LANES(float) + 1];                                                  \
    float xin[OM_TR_CHUNK / OM_LANES(float) + 1][OM_LANES(float)];                                    \
    const int alias_ = (uintptr_t)a < (uintptr_t)(o + n) && (uintptr_t)o < (uintptr_t)(a + n);       \
    (void)bc;                                                                                         \
    (void)fl; /* the same kernel in both modes */                                                     \
    while (i + OM_LANES(float) <= n) {                                                                \
      size_t end = n - i > OM_TR_CHUNK ? i + OM_TR_CHUNK : n;                                         \
      unsigned nfix = 0;                                                                              \
      for (; i + OM_LANES(float) <= end; i += OM_LANES(float)) {                                      \
        om_trmask bad0 = OM_TR_NONE, bad1 = OM_TR_NONE;                                               \
        om_vfh x_, r_;                                                                                \
        OM_PREFETCH_STREAM_SLOW(a + i, o + i);                                                        \
        OM_TR_NOTE(i);                                                                                \
        OM_LOAD(x_, a + i);                                                                           \
        r_ = om_act_v(x_, &prm_, &bad0);                                                              \
        OM_STORE(o + i, r_);                                                                          \
        if (OM_LANES(float) > 1) {                                                                    \
          OM_LOAD(x_, a + i + OM_TR_L);                                                               \
          r_ = om_act_v(x_, &prm_, &bad1);                                                            \
          OM_STORE(o + i + OM_TR_L, r_);                                                              \
        }                                                                                             \
        nfix += (unsigned)om_trmask_any2(bad0, bad1);                                                 \
      }                                                                                               \
      for (unsigned k = 0; k < nfix; k++) OM_FN(NAME##_fix)(alias_ ? xin[k] : a + fix[k], o + fix[k], &prm_); \
    }                                                                                                 \
    return i;                                                                                         \
  }

/* pb: the f32 alpha, then (Selu) the f32 gamma. */
static inline om_act_prm om_elu_prm(const float* pb) { return (om_act_prm){1.0, (double)pb[0], 1.0, 1}; }
static inline om_act_prm om_selu_prm(const float* pb) {
  return (om_act_prm){(double)pb[1], (double)pb[1] * (double)pb[0], 1.0, 0};
}
static inline om_act_prm om_celu_prm(const float* pb) { return (om_act_prm){1.0, (double)pb[0], (double)pb[0], 0}; }
OM_TR_KERNEL_PRM(elu_f32, om_elu_prm)
OM_TR_KERNEL_PRM(selu_f32, om_selu_prm)
OM_TR_KERNEL_PRM(celu_f32, om_celu_prm)

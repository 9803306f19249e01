/* reduce_rexp.h - the row exponential rexp of Softmax and LogSoftmax (f32), 16 lanes at a time.
 *
 * rexp is a fixed sequence of f32 operations (docs/exact-linalg.md, "Softmax and LogSoftmax", gives it step by
 * step), not a correctly rounded Exp: it is the fast-mode Exp of the FMA paths (math/om_fast_f32.inc,
 * om_fx_exp's non-512 form, constants from om_fast_consts.h) with only the lower clamp, since Softmax's
 * arguments x - max are <= 0. Every fma below is one correctly rounded a*b + c on every path: VFMADD on 512
 * and 256, FMLA on AArch64, the exact emulation of math/om_fma_sse.h on x86's 128 path and libm's fmaf (IEEE
 * exact) on the one-lane path; the scaling by 2^k rounds once (VSCALEFPS on 512, two power-of-two products
 * elsewhere, the first exact). So rexp gives the same bits on every path, CPU and mode. Its error over every
 * f32 in [-104, 0] is measured by tools/verify/rexp_check.c against the correctly rounded Exp kernel.
 *
 * Included by reduce_body.inc once per path, with OM_RED_VB (64, 32, 16 or 0) and that path's target pragma.
 */
#ifndef OM_REDUCE_REXP_H
#define OM_REDUCE_REXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math/om_fast_consts.h"
#if OM_RED_VB == 16 && (defined(__x86_64__) || defined(__i386__))
#include "math/om_fma_sse.h"
#endif

typedef float om_rx_v __attribute__((vector_size(64), aligned(64)));
typedef int32_t om_rx_vi __attribute__((vector_size(64), aligned(64)));
typedef uint32_t om_rx_vu __attribute__((vector_size(64), aligned(64)));

/* The operations are macros (statement expressions), not functions: a 64-byte vector passed by value draws
 * GCC's note on the ABI of 64-byte-aligned parameters on every path without 512-bit registers. */
#define OM_RXV(c) ((om_rx_v){0} + (float)(c))

/* fl32(a*b + c), one rounding, 16 lanes */
#if OM_RED_VB == 64
#define OM_RX_FMA(A, B, C) ((om_rx_v)_mm512_fmadd_ps((__m512)(A), (__m512)(B), (__m512)(C)))
#else
#if OM_RED_VB == 32
/* the 256 path has its own rexp (om_rx_exp8 below) */
#elif OM_RED_VB == 16 && (defined(__x86_64__) || defined(__i386__))
#define OM_RX_Q __m128 /* a 128-bit quarter of the 16 lanes, and its fused multiply-add */
#define OM_RX_FMA_Q(a, b, c) om_fma_ps_sse(a, b, c)
#elif OM_RED_VB == 16 && defined(__aarch64__)
#define OM_RX_Q float32x4_t
#define OM_RX_FMA_Q(a, b, c) vfmaq_f32(c, a, b)
#endif
#if defined(OM_RX_Q)
#define OM_RX_FMA_PARTS(a, b, c, r)                                               \
  do {                                                                          \
    OM_RX_Q aq_[4], bq_[4], cq_[4], rq_[4];                                     \
    memcpy(aq_, &(a), 64);                                                      \
    memcpy(bq_, &(b), 64);                                                      \
    memcpy(cq_, &(c), 64);                                                      \
    for (int h_ = 0; h_ < 4; h_++) rq_[h_] = OM_RX_FMA_Q(aq_[h_], bq_[h_], cq_[h_]); \
    memcpy(&(r), rq_, 64);                                                      \
  } while (0)
#elif OM_RED_VB != 32
#define OM_RX_FMA_PARTS(a, b, c, r)                                   \
  do {                                                              \
    for (int l_ = 0; l_ < 16; l_++) (r)[l_] = fmaf((a)[l_], (b)[l_], (c)[l_]); \
  } while (0)
#endif
#define OM_RX_FMA(A, B, C)                  \
  ({                                        \
    om_rx_v fa_ = (A), fb_ = (B), fc_ = (C), fr_; \
    OM_RX_FMA_PARTS(fa_, fb_, fc_, fr_);    \
    fr_;                                    \
  })
#endif

/* fl32(p 2^kf) for integral kf in [-150, 1] (any value in NaN lanes), p in [0.7, 1.42] or NaN: one rounding
 * (om_fx_ldexp of math/om_fast_f32.inc on 16-lane vectors: the same two-product form and VSCALEFPS). */
#if OM_RED_VB == 64
#define OM_RX_LDEXP(P, KF) ((om_rx_v)_mm512_scalef_ps((__m512)(P), (__m512)(KF)))
#else
/* k = k1 + k2, k1 = k >> 1 and k2 both >= -75: p 2^k1 is normal (exact), the product by 2^k2 rounds once */
#define OM_RX_LDEXP(P, KF)                                                                   \
  ({                                                                                         \
    const om_rx_v lm_ = OM_RXV(0x1.8p23f);                                                   \
    om_rx_vi lk_ = (om_rx_vi)((KF) + lm_) - (om_rx_vi)lm_;                                   \
    om_rx_vi lk1_ = lk_ >> 1, lk2_ = lk_ - lk1_;                                             \
    om_rx_v ls1_ = (om_rx_v)((om_rx_vu)(lk1_ + 127) << 23), ls2_ = (om_rx_v)((om_rx_vu)(lk2_ + 127) << 23); \
    ((P) * ls1_) * ls2_;                                                                     \
  })
#endif

#if OM_RED_VB == 64
#define OM_RX_CLAMP(T) ((om_rx_v)_mm512_max_ps((__m512)OM_RXV(-104.0f), (__m512)(T)))
#else
#define OM_RX_CLAMP(T)                                                                  \
  ({                                                                                    \
    om_rx_v ct_ = (T);                                                                  \
    om_rx_vi clo_ = (om_rx_vi)(ct_ < OM_RXV(-104.0f)); /* false for NaN: a NaN passes */ \
    (om_rx_v)((clo_ & (om_rx_vi)OM_RXV(-104.0f)) | (~clo_ & (om_rx_vi)ct_));             \
  })
#endif
/* rexp(T), 16 lanes (docs/exact-linalg.md): T <= 0, -inf or NaN. The 256 path runs it on each 8-lane half in
 * its own instructions (om_rx_exp8: the same operations in the same order), since GCC's lowering of the
 * 16-lane form to 256-bit registers spilled to the stack (2.2 ns/element against 0.18 on the 512 path). */
#if OM_RED_VB == 32
static inline __attribute__((always_inline)) __m256 om_rx_exp8(__m256 t) {
  const __m256 em = _mm256_set1_ps(0x1.8p23f), e1 = _mm256_set1_ps(1.0f);
  __m256 u = _mm256_max_ps(_mm256_set1_ps(-104.0f), t); /* t < -104 ? -104 : t (a NaN t passes) */
  __m256 kf = _mm256_sub_ps(_mm256_fmadd_ps(u, _mm256_set1_ps(OM_FX_INVLN2), em), em);
  __m256 r = _mm256_fmadd_ps(kf, _mm256_set1_ps(-OM_FX_LN2_HI), u);
  r = _mm256_fmadd_ps(kf, _mm256_set1_ps(-OM_FX_LN2_LO), r);
  __m256 q = _mm256_set1_ps(om_fx_expq[4]);
  for (int i = 3; i >= 0; i--) q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(om_fx_expq[i]));
  __m256 p = _mm256_fmadd_ps(r, _mm256_fmadd_ps(r, q, e1), e1);
  __m256i k = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(kf, em)), _mm256_castps_si256(em));
  __m256i k1 = _mm256_srai_epi32(k, 1), k2 = _mm256_sub_epi32(k, k1);
  __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, _mm256_set1_epi32(127)), 23));
  __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}
#define OM_RX_EXP(T)                  \
  ({                                  \
    om_rx_v et_ = (T);                \
    __m256 eh_[2];                    \
    memcpy(eh_, &et_, 64);            \
    eh_[0] = om_rx_exp8(eh_[0]);      \
    eh_[1] = om_rx_exp8(eh_[1]);      \
    memcpy(&et_, eh_, 64);            \
    et_;                              \
  })
#else
#define OM_RX_EXP(T)                                                                                 \
  ({                                                                                                 \
    const om_rx_v em_ = OM_RXV(0x1.8p23f), e1_ = OM_RXV(1.0f);                                       \
    om_rx_v et_ = (T);                                                                               \
    om_rx_v eu_ = OM_RX_CLAMP(et_);                                                                  \
    om_rx_v ekf_ = OM_RX_FMA(eu_, OM_RXV(OM_FX_INVLN2), em_) - em_;                                  \
    om_rx_v er_ = OM_RX_FMA(ekf_, OM_RXV(-OM_FX_LN2_HI), eu_);                                       \
    er_ = OM_RX_FMA(ekf_, OM_RXV(-OM_FX_LN2_LO), er_);                                               \
    om_rx_v eq_ = OM_RXV(om_fx_expq[4]);                                                             \
    for (int ei_ = 3; ei_ >= 0; ei_--) eq_ = OM_RX_FMA(eq_, er_, OM_RXV(om_fx_expq[ei_]));           \
    om_rx_v ep_ = OM_RX_FMA(er_, OM_RX_FMA(er_, eq_, e1_), e1_);                                     \
    OM_RX_LDEXP(ep_, ekf_);                                                                          \
  })
#endif

#endif

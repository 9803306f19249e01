/* reduce_rexp.h - the row exponential rexp of Softmax and LogSoftmax (f32), 16 lanes at a time.
 *
 * rexp is a fixed sequence of f32 operations (docs/exact-linalg.md, "Softmax and LogSoftmax", gives it step by
 * step), not a correctly rounded Exp: it is the fast-mode Exp of the FMA paths (math/om_fast_f32.h,
 * om_fx_exp's non-512 form, constants from om_fast_consts.h) with only the lower clamp, since Softmax's
 * arguments x - max are <= 0. Every fma below is one correctly rounded a*b + c on every path: VFMADD on 512
 * and 256, FMLA on AArch64, the exact emulation of math/om_fma_sse.h on x86's 128 path and libm's fmaf (IEEE
 * exact) on the one-lane path; the scaling by 2^k rounds once (VSCALEFPS on 512, two power-of-two products
 * elsewhere, the first exact). So rexp gives the same bits on every path, CPU and mode. Its error over every
 * f32 in [-104, 0] is measured by tools/rexp_check.c against the correctly rounded Exp kernel.
 *
 * Included by reduce_body.inc once per path, with OM_RED_VB (64, 32, 16 or 0) and that path's target pragma.
 */
#ifndef OM_REDUCE_REXP_H
#define OM_REDUCE_REXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../math/om_fast_consts.h"
#if OM_RED_VB == 16 && (defined(__x86_64__) || defined(__i386__))
#include "../math/om_fma_sse.h"
#endif

typedef float om_rx_v __attribute__((vector_size(64), aligned(64)));
typedef int32_t om_rx_vi __attribute__((vector_size(64), aligned(64)));
typedef uint32_t om_rx_vu __attribute__((vector_size(64), aligned(64)));

#define OM_RX_AI static inline __attribute__((always_inline))
#define OM_RXV(c) ((om_rx_v){0} + (float)(c))

/* fl32(a*b + c), one rounding, 16 lanes */
OM_RX_AI om_rx_v om_rx_fma(om_rx_v a, om_rx_v b, om_rx_v c) {
#if OM_RED_VB == 64
  return (om_rx_v)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif OM_RED_VB == 32
  __m256 ah[2], bh[2], ch[2], rh[2];
  memcpy(ah, &a, 64);
  memcpy(bh, &b, 64);
  memcpy(ch, &c, 64);
  for (int h = 0; h < 2; h++) rh[h] = _mm256_fmadd_ps(ah[h], bh[h], ch[h]);
  om_rx_v r;
  memcpy(&r, rh, 64);
  return r;
#elif OM_RED_VB == 16 && (defined(__x86_64__) || defined(__i386__))
  __m128 aq[4], bq[4], cq[4], rq[4];
  memcpy(aq, &a, 64);
  memcpy(bq, &b, 64);
  memcpy(cq, &c, 64);
  for (int h = 0; h < 4; h++) rq[h] = om_fma_ps_sse(aq[h], bq[h], cq[h]);
  om_rx_v r;
  memcpy(&r, rq, 64);
  return r;
#elif OM_RED_VB == 16 && defined(__aarch64__)
  float32x4_t aq[4], bq[4], cq[4], rq[4];
  memcpy(aq, &a, 64);
  memcpy(bq, &b, 64);
  memcpy(cq, &c, 64);
  for (int h = 0; h < 4; h++) rq[h] = vfmaq_f32(cq[h], aq[h], bq[h]);
  om_rx_v r;
  memcpy(&r, rq, 64);
  return r;
#else
  om_rx_v r;
  for (int l = 0; l < 16; l++) r[l] = fmaf(a[l], b[l], c[l]);
  return r;
#endif
}

/* fl32(p 2^kf) for integral kf in [-150, 1] (any value in NaN lanes), p in [0.7, 1.42] or NaN: one rounding
 * (om_fx_ldexp of math/om_fast_f32.h on 16-lane vectors: the same two-product form and VSCALEFPS). */
OM_RX_AI om_rx_v om_rx_ldexp(om_rx_v p, om_rx_v kf) {
#if OM_RED_VB == 64
  return (om_rx_v)_mm512_scalef_ps((__m512)p, (__m512)kf);
#else
  /* k = k1 + k2, k1 = k >> 1 and k2 both >= -75: p 2^k1 is normal (exact), the product by 2^k2 rounds once */
  const om_rx_v magic = OM_RXV(0x1.8p23f);
  om_rx_vi k = (om_rx_vi)(kf + magic) - (om_rx_vi)magic;
  om_rx_vi k1 = k >> 1, k2 = k - k1;
  om_rx_v s1 = (om_rx_v)((om_rx_vu)(k1 + 127) << 23), s2 = (om_rx_v)((om_rx_vu)(k2 + 127) << 23);
  return (p * s1) * s2;
#endif
}

/* rexp(t), 16 lanes (docs/exact-linalg.md): t <= 0, -inf or NaN. */
OM_RX_AI om_rx_v om_rx_exp(om_rx_v t) {
  const om_rx_v magic = OM_RXV(0x1.8p23f), one = OM_RXV(1.0f);
  om_rx_vi lo = (om_rx_vi)(t < OM_RXV(-104.0f)); /* false for NaN: a NaN passes */
  om_rx_v u = (om_rx_v)((lo & (om_rx_vi)OM_RXV(-104.0f)) | (~lo & (om_rx_vi)t));
  om_rx_v kf = om_rx_fma(u, OM_RXV(OM_FX_INVLN2), magic) - magic;
  om_rx_v nk = -kf;
  om_rx_v r = om_rx_fma(nk, OM_RXV(OM_FX_LN2_HI), u);
  r = om_rx_fma(nk, OM_RXV(OM_FX_LN2_LO), r);
  om_rx_v q = OM_RXV(om_fx_expq[4]);
  for (int i = 3; i >= 0; i--) q = om_rx_fma(q, r, OM_RXV(om_fx_expq[i]));
  om_rx_v p = om_rx_fma(r, om_rx_fma(r, q, one), one);
  return om_rx_ldexp(p, kf);
}

#endif

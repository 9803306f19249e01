/* om_fma_sse.h - fma(a, b, c) for four f32 lanes on SSE4.2 (no FMA hardware), exactly rounded.
 *
 * The product p = a*b of two f32 is exact in f64 (48 significant bits <= 53, exponents far inside f64's
 * range); the sum p + c is computed in f64 rounded to odd, and that value rounded (to nearest even) to f32 is
 * the correctly rounded a*b + c, because rounding to odd at 53 >= 24 + 2 bits followed by rounding to nearest
 * at 24 bits equals one rounding to nearest (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums:
 * proved algorithms using rounding to odd", 2008). Round to odd from round to nearest: s = RN(p + c) and its
 * exact error e (Knuth's TwoSum, exact: p + c = s + e, no underflow since every value is a multiple of
 * 2^-298); when e != 0 and s is even, the odd neighbour of s toward e (the bits of s plus one when e has the
 * sign of s, minus one otherwise) is the odd rounding; s == 0 implies e == 0. Non-finite s makes e NaN, which
 * the e != 0 test (e < 0 or e > 0) rejects, so inf and NaN pass unchanged.
 *
 * Included by the x86 translation units compiled for SSE4.2 (the 128 path: gemm_128.c, reduce_128.c).
 */
#ifndef OM_FMA_SSE_H
#define OM_FMA_SSE_H
#include <immintrin.h>

/* RN(p + c) rounded to odd instead: two lanes of f64. */
static inline __m128d om_add_odd_pd(__m128d p, __m128d c) {
  const __m128i one = _mm_set1_epi64x(1);
  const __m128d zero = _mm_setzero_pd();
  __m128d s = _mm_add_pd(p, c);
  __m128d bb = _mm_sub_pd(s, p);
  __m128d e = _mm_add_pd(_mm_sub_pd(p, _mm_sub_pd(s, bb)), _mm_sub_pd(c, bb));
  __m128i sb = _mm_castpd_si128(s);
  __m128i even = _mm_cmpeq_epi64(_mm_and_si128(sb, one), _mm_setzero_si128());
  __m128i inexact = _mm_castpd_si128(_mm_or_pd(_mm_cmplt_pd(e, zero), _mm_cmpgt_pd(e, zero)));
  __m128i toward0 = _mm_cmpgt_epi64(_mm_setzero_si128(), _mm_xor_si128(sb, _mm_castpd_si128(e))); /* -1: toward 0 */
  __m128i delta = _mm_or_si128(toward0, one);                                                    /* +1 or -1 */
  return _mm_castsi128_pd(_mm_add_epi64(sb, _mm_and_si128(_mm_and_si128(even, inexact), delta)));
}

/* fma(a, b, c) for four f32 lanes, exactly rounded. */
static inline __m128 om_fma_ps_sse(__m128 a, __m128 b, __m128 c) {
  __m128d plo = _mm_mul_pd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
  __m128d phi = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), _mm_cvtps_pd(_mm_movehl_ps(b, b)));
  __m128d rlo = om_add_odd_pd(plo, _mm_cvtps_pd(c));
  __m128d rhi = om_add_odd_pd(phi, _mm_cvtps_pd(_mm_movehl_ps(c, c)));
  return _mm_movelh_ps(_mm_cvtpd_ps(rlo), _mm_cvtpd_ps(rhi));
}

#endif

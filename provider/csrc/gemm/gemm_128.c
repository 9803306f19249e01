/* gemm_128.c - the matrix-product kernels for the 128 path (SSE4.2, no FMA hardware; body: gemm_body.inc).
 *
 * f32: fma(a, b, c) is emulated exactly, four lanes at a time. The product p = a*b of two f32 is exact in f64
 * (48 significant bits <= 53, exponents far inside f64's range); the sum p + c is computed in f64 rounded to
 * odd, and that value rounded (to nearest even) to f32 is the correctly rounded a*b + c, because rounding to odd
 * at 53 >= 24 + 2 bits followed by rounding to nearest at 24 bits equals one rounding to nearest (Boldo and
 * Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008).
 * Round to odd from round to nearest: s = RN(p + c) and its exact error e (Knuth's TwoSum, exact: p + c = s + e,
 * no underflow since every value is a multiple of 2^-298); when e != 0 and s is even, the odd neighbour of s
 * toward e (the bits of s plus one when e has the sign of s, minus one otherwise) is the odd rounding; s == 0
 * implies e == 0. Non-finite s makes e NaN, which the e != 0 test (e < 0 or e > 0) rejects, so inf and NaN pass
 * unchanged. f64: libm's fma (IEEE-exact in software where the CPU has no FMA), one lane at a time.
 */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("sse4.2")
#include <immintrin.h>
#include <math.h>

#include "gemm_internal.h"

/* RN(p + c) rounded to odd instead: two lanes of f64. */
static inline __m128d om_gemm_add_odd_pd(__m128d p, __m128d c) {
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
static inline __m128 om_gemm_fma_ps_128(__m128 a, __m128 b, __m128 c) {
  __m128d plo = _mm_mul_pd(_mm_cvtps_pd(a), _mm_cvtps_pd(b));
  __m128d phi = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), _mm_cvtps_pd(_mm_movehl_ps(b, b)));
  __m128d rlo = om_gemm_add_odd_pd(plo, _mm_cvtps_pd(c));
  __m128d rhi = om_gemm_add_odd_pd(phi, _mm_cvtps_pd(_mm_movehl_ps(c, c)));
  return _mm_movelh_ps(_mm_cvtpd_ps(rlo), _mm_cvtpd_ps(rhi));
}

#define OM_VB 16
#define OM_GPATH 128
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"
#elif defined(__aarch64__) /* NEON: hardware FMLA for f32 and f64 (gemm_simd.h) */
#include <arm_neon.h>

#include "gemm_internal.h"
#define OM_VB 16
#define OM_GPATH 128
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"
#endif

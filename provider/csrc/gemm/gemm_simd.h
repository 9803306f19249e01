/* gemm_simd.h - the vector operations and tile shape of one (path, accumulation type), for gemm_body.inc.
 *
 * Included (no include guard) with OM_VB (vector bytes: 64, 32, 16, 0 for one lane) and OM_G64 (0: f32,
 * 1: f64) set. Defines GV (vector type), GVL (lanes), GMR x GNV (tile: rows x vectors), GKC (K block) and
 * GZERO, GLD, GST, GBC (broadcast), GFMA (fused a*b+c, one rounding), GMUL, GADD, GCANON (NaN -> the canonical
 * quiet NaN). GFMA is the hardware FMA on the 512 and 256 paths and on AArch64's 128 path (FMLA, f32 and f64),
 * an exact emulation on x86's 128 path's f32 (gemm_128.c) and libm's fmaf/fma (IEEE-exact) for x86's 128 path's
 * f64 and the one-lane path: the same correctly rounded fma everywhere, so the same bits.
 */
#if OM_VB == 64 && !OM_G64
#define GV __m512
#define GVL 16
#ifndef OM_GEMM_MR512
#define OM_GEMM_MR512 6
#define OM_GEMM_NV512 4
#endif
#define GMR OM_GEMM_MR512
#define GNV OM_GEMM_NV512
#define GKC 256
#define GZERO() _mm512_setzero_ps()
#define GLD(p) _mm512_loadu_ps(p)
#define GST(p, v) _mm512_storeu_ps(p, v)
#define GBC(s) _mm512_set1_ps(s)
#define GFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define GMUL(a, b) _mm512_mul_ps(a, b)
#define GADD(a, b) _mm512_add_ps(a, b)
#define GCANON(v) _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v, _mm512_set1_ps(__builtin_nanf("")))
#elif OM_VB == 64 && OM_G64
#define GV __m512d
#define GVL 8
#define GMR 8
#define GNV 2
#define GKC 256
#define GZERO() _mm512_setzero_pd()
#define GLD(p) _mm512_loadu_pd(p)
#define GST(p, v) _mm512_storeu_pd(p, v)
#define GBC(s) _mm512_set1_pd(s)
#define GFMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define GMUL(a, b) _mm512_mul_pd(a, b)
#define GADD(a, b) _mm512_add_pd(a, b)
#define GCANON(v) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), v, _mm512_set1_pd(__builtin_nan("")))
#elif OM_VB == 32 && !OM_G64
#define GV __m256
#define GVL 8
#define GMR 6
#define GNV 2
#define GKC 256
#define GZERO() _mm256_setzero_ps()
#define GLD(p) _mm256_loadu_ps(p)
#define GST(p, v) _mm256_storeu_ps(p, v)
#define GBC(s) _mm256_set1_ps(s)
#define GFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define GMUL(a, b) _mm256_mul_ps(a, b)
#define GADD(a, b) _mm256_add_ps(a, b)
#define GCANON(v) _mm256_blendv_ps(v, _mm256_set1_ps(__builtin_nanf("")), _mm256_cmp_ps(v, v, _CMP_UNORD_Q))
#elif OM_VB == 32 && OM_G64
#define GV __m256d
#define GVL 4
#define GMR 6
#define GNV 2
#define GKC 256
#define GZERO() _mm256_setzero_pd()
#define GLD(p) _mm256_loadu_pd(p)
#define GST(p, v) _mm256_storeu_pd(p, v)
#define GBC(s) _mm256_set1_pd(s)
#define GFMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define GMUL(a, b) _mm256_mul_pd(a, b)
#define GADD(a, b) _mm256_add_pd(a, b)
#define GCANON(v) _mm256_blendv_pd(v, _mm256_set1_pd(__builtin_nan("")), _mm256_cmp_pd(v, v, _CMP_UNORD_Q))
#elif OM_VB == 16 && defined(__aarch64__) && !OM_G64 /* NEON: FMLA is the IEEE fused a*b+c */
#define GV float32x4_t
#define GVL 4
#define GMR 4
#define GNV 2
#define GKC 256
#define GZERO() vdupq_n_f32(0.0f)
#define GLD(p) vld1q_f32(p)
#define GST(p, v) vst1q_f32(p, v)
#define GBC(s) vdupq_n_f32(s)
#define GFMA(a, b, c) vfmaq_f32(c, a, b)
#define GMUL(a, b) vmulq_f32(a, b)
#define GADD(a, b) vaddq_f32(a, b)
#define GCANON(v) vbslq_f32(vceqq_f32(v, v), v, vdupq_n_f32(__builtin_nanf("")))
#elif OM_VB == 16 && defined(__aarch64__) && OM_G64
#define GV float64x2_t
#define GVL 2
#define GMR 4
#define GNV 2
#define GKC 256
#define GZERO() vdupq_n_f64(0.0)
#define GLD(p) vld1q_f64(p)
#define GST(p, v) vst1q_f64(p, v)
#define GBC(s) vdupq_n_f64(s)
#define GFMA(a, b, c) vfmaq_f64(c, a, b)
#define GMUL(a, b) vmulq_f64(a, b)
#define GADD(a, b) vaddq_f64(a, b)
#define GCANON(v) vbslq_f64(vceqq_f64(v, v), v, vdupq_n_f64(__builtin_nan("")))
#elif OM_VB == 16 && !OM_G64
#define GV __m128
#define GVL 4
#define GMR 4
#define GNV 2
#define GKC 256
#define GZERO() _mm_setzero_ps()
#define GLD(p) _mm_loadu_ps(p)
#define GST(p, v) _mm_storeu_ps(p, v)
#define GBC(s) _mm_set1_ps(s)
#define GFMA(a, b, c) om_fma_ps_sse(a, b, c)
#define GMUL(a, b) _mm_mul_ps(a, b)
#define GADD(a, b) _mm_add_ps(a, b)
#define GCANON(v) _mm_blendv_ps(v, _mm_set1_ps(__builtin_nanf("")), _mm_cmpunord_ps(v, v))
#else /* one lane: the scalar path, and the 128 path's f64 */
#if OM_G64
#define GV double
#define GFMA(a, b, c) fma(a, b, c)
#define GCANON(v) ((v) != (v) ? __builtin_nan("") : (v))
#else
#define GV float
#define GFMA(a, b, c) fmaf(a, b, c)
#define GCANON(v) ((v) != (v) ? __builtin_nanf("") : (v))
#endif
#define GVL 1
#define GMR 4
#define GNV 4
#define GKC 256
#define GZERO() ((GV)0)
#define GLD(p) (*(p))
#define GST(p, v) (*(p) = (v))
#define GBC(s) (s)
#define GMUL(a, b) ((a) * (b))
#define GADD(a, b) ((a) + (b))
#endif

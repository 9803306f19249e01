/* gemm_128.c - the matrix-product kernels for the 128 path (SSE4.2, no FMA hardware; body: gemm_body.inc).
 *
 * f32: fma(a, b, c) is emulated exactly, four lanes at a time (math/om_fma_sse.h: the f64 sum rounded to odd,
 * then rounded to f32). f64: libm's fma (IEEE-exact in software where the CPU has no FMA), one lane at a time.
 */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#include <immintrin.h>
#include <math.h>

#include "math/om_fma_sse.h"
#include "gemm_internal.h"

#define OM_VB 16
#define OM_GPATH 128
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"
#elif OM_ISA_NEON /* NEON: hardware FMLA for f32 and f64 (gemm_simd.inc) */
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

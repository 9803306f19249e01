/* dwconv_128.c - the depthwise convolution row kernels for the 128 path (body: dwconv_body.inc). x86 SSE4.2:
 * f32 lanes by the exact fma emulation (math/om_fma_sse.h), f64 and the last lanes by libm's fma/fmaf
 * (IEEE-exact); AArch64: hardware FMLA. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#include <immintrin.h>

#include "math/om_fma_sse.h"
#elif OM_ISA_NEON
#include <arm_neon.h>
#endif
#if OM_ISA_X86 || OM_ISA_NEON
#include <math.h>

#include "dwconv.h"
#define OM_VB 16
#define OM_DWPATH 128
#define OM_G64 0
#include "dwconv_body.inc"
#undef OM_G64
#define OM_G64 1
#include "dwconv_body.inc"
OM_DWCONV_KERN(128)
#endif

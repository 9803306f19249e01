/* convdirect_128.c - the direct convolution's tile kernel for the 128 path (body: convdirect_body.inc). x86
 * SSE4.2: f32 lanes by the exact fma emulation (math/om_fma_sse.h); AArch64: hardware FMLA. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#include <immintrin.h>

#include "math/om_fma_sse.h"
#elif OM_ISA_NEON
#include <arm_neon.h>
#endif
#if OM_ISA_X86 || OM_ISA_NEON
#include "convdirect.h"
#define OM_VB 16
#define OM_CDPATH 128
#include "convdirect_body.inc"
#endif

/* nbits_panels_128.c - MatMulNBits' panel fill and few-row product of the 128 path (body:
 * nbits_panels_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#if OM_ISA_X86
#include <immintrin.h>
#include "math/om_fma_sse.h"
#else
#include <arm_neon.h>
#endif
#define OM_VB 16
#define OM_NBF_NAME om_nbits_panels_fill_128
#define OM_NBG_NAME om_nbits_panels_gemv_128
#include "nbits_panels_body.inc"
#endif

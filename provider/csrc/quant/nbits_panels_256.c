/* nbits_panels_256.c - MatMulNBits' panel fill and few-row product of the 256 path (body:
 * nbits_panels_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include <immintrin.h>
#define OM_VB 32
#define OM_NBF_NAME om_nbits_panels_fill_256
#define OM_NBG_NAME om_nbits_panels_gemv_256
#include "nbits_panels_body.inc"
#endif

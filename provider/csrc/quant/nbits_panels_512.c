/* nbits_panels_512.c - MatMulNBits' panel fill and few-row product of the 512 path (body:
 * nbits_panels_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#pragma GCC target("prefer-vector-width=512")
#include <immintrin.h>
#define OM_VB 64
#define OM_NBF_NAME om_nbits_panels_fill_512
#define OM_NBG_NAME om_nbits_panels_gemv_512
#include "nbits_panels_body.inc"
#endif

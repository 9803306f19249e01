/* nbits_int8_512.c - MatMulNBits' accuracy_level 4 product on the 512 path without AVX-512 VNNI (body:
 * nbits_int8_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include <immintrin.h>
#define OM_VB 64
#define OM_NBI8_VNNI 0
#define OM_NBI8_NAME om_nbits_int8_512
#include "nbits_int8_body.inc"
#endif

/* nbits_int8_256.c - MatMulNBits' accuracy_level 4 product on the 256 path (body: nbits_int8_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include <immintrin.h>
#define OM_VB 32
#define OM_NBI8_NAME om_nbits_int8_256
#include "nbits_int8_body.inc"
#endif

/* nbits_int8_512vnni.c - MatMulNBits' accuracy_level 4 product on the 512 path with AVX-512 VNNI (vpdpbusd; body:
 * nbits_int8_body.inc): the same exact int32 sums, hence the same bits, as nbits_int8_512.c. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512VNNI
#include <immintrin.h>
#define OM_VB 64
#define OM_NBI8_VNNI 1
#define OM_NBI8_NAME om_nbits_int8_512vnni
#include "nbits_int8_body.inc"
#endif

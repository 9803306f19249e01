/* nbits_int8_128.c - MatMulNBits' accuracy_level 4 product on the 128 path (body: nbits_int8_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#include <immintrin.h>
#include "math/om_fma_sse.h"
#define OM_VB 16
#else
#define OM_VB 0 /* NEON: the plain C body */
#endif
#define OM_NBI8_NAME om_nbits_int8_128
#include "nbits_int8_body.inc"
#endif

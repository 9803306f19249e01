/* convdirect_256.c - the direct convolution's tile kernel for the 256 path (AVX2 + FMA; body: convdirect_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include <immintrin.h>

#include "convdirect.h"
#define OM_VB 32
#define OM_CDPATH 256
#include "convdirect_body.inc"
#endif

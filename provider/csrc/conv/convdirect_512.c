/* convdirect_512.c - the direct convolution's tile kernel for the 512 path (AVX-512; body: convdirect_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include <immintrin.h>

#include "convdirect.h"
#define OM_VB 64
#define OM_CDPATH 512
#include "convdirect_body.inc"
#endif

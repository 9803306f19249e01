/* dwconv_256.c - the depthwise convolution row kernels for the 256 path (AVX2 + FMA; body: dwconv_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include <immintrin.h>
#include <math.h>

#include "dwconv.h"
#define OM_VB 32
#define OM_DWPATH 256
#define OM_G64 0
#include "dwconv_body.inc"
#undef OM_G64
#define OM_G64 1
#include "dwconv_body.inc"
OM_DWCONV_KERN(256)
#endif

/* dwconv_512.c - the depthwise convolution row kernels for the 512 path (AVX-512; body: dwconv_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include <immintrin.h>
#include <math.h>

#include "dwconv.h"
#define OM_VB 64
#define OM_DWPATH 512
#define OM_G64 0
#include "dwconv_body.inc"
#undef OM_G64
#define OM_G64 1
#include "dwconv_body.inc"
OM_DWCONV_KERN(512)
#endif

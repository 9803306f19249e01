/* qdwconv_256.c - the depthwise quantized convolution kernels of the 256 path (AVX2; body: qdwconv_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_QDW_SYM 256
#define OM_QDW_LANES 8
#include "qdwconv_body.inc"
#endif

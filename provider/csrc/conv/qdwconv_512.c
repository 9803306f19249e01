/* qdwconv_512.c - the depthwise quantized convolution kernels of the 512 path (AVX-512; body: qdwconv_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_QDW_SYM 512
#define OM_QDW_LANES 16
#include "qdwconv_body.inc"
#endif

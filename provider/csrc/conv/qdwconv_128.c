/* qdwconv_128.c - the depthwise quantized convolution kernels of the 128 path (SSE4.2 or AArch64 Advanced SIMD;
 * body: qdwconv_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#define OM_QDW_SYM 128
#define OM_QDW_LANES 4
#include "qdwconv_body.inc"
#endif

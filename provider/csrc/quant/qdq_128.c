/* qdq_128.c - the QuantizeLinear / DequantizeLinear kernels of the 128 path (SSE4.2 or AArch64 Advanced SIMD;
 * body: qdq_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#define OM_QD_LANES 4
#define OM_QD_SYM 128
#include "qdq_body.inc"
#endif

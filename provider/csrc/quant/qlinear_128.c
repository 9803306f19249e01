/* qlinear_128.c - the QLinearAdd / QLinearMul kernels of the 128 path (SSE4.2 or AArch64 Advanced SIMD; body:
 * qlinear_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#define OM_QL_SYM 128
#include "qlinear_body.inc"
#endif

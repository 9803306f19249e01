/* qoutput_128.c - the requantisation of qoutput.h for the 128 path (SSE4.2 or AArch64 Advanced SIMD; body:
 * qoutput_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#define OM_QOUT_SYM 128
#include "qoutput_body.inc"
#endif

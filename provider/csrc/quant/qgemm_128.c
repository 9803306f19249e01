/* qgemm_128.c - the integer matrix-product kernel of the 128 path (SSE4.2 or AArch64 Advanced SIMD; body:
 * qgemm_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#include "qgemm_internal.h"
#define OM_QVB 16
#define OM_QMR 4
#define OM_QNV 2
#define OM_QNAME "128"
#define OM_QSYM 128
#define OM_QVNNI 0
#include "qgemm_body.inc"
#endif

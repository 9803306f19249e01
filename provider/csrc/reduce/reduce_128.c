/* reduce_128.c - the reduction kernels instantiated for the 128 path (see reduce_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif /* AArch64: Advanced SIMD is the base ISA, no pragma */
#define OM_RED_VB 16 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_128
#define OM_RED_TABLE om_red_path_128
#include "reduce_body.inc"
#endif

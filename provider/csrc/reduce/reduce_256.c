/* reduce_256.c - the reduction kernels instantiated for the 256 path (see reduce_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_RED_VB 32 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_256
#define OM_RED_TABLE om_red_path_256
#include "reduce_body.inc"
#endif

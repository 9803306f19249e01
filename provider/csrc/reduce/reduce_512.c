/* reduce_512.c - the reduction kernels instantiated for the 512 path (see reduce_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_RED_VB 64 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_512
#define OM_RED_TABLE om_red_path_512
#include "reduce_body.inc"
#endif

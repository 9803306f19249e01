/* kernels_512.c - the element-wise kernels instantiated for the 512 path (generated shape: see elementwise.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_VB 64
#define OM_FN(name) om_##name##_512
#include "elementwise.inc"
#endif

/* kernels_256.c - the element-wise kernels instantiated for the 256 path (generated shape: see elementwise.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_VB 32
#define OM_FN(name) om_##name##_256
#include "elementwise.inc"
#endif

/* kernels_256.c - the element-wise kernels instantiated for the 256 path (generated shape: see elementwise.inc). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma,bmi2,f16c")
#define OM_VB 32
#define OM_FN(name) om_##name##_256
#include "elementwise.inc"
#endif

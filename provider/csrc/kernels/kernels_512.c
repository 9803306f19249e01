/* kernels_512.c - the element-wise kernels instantiated for the 512 path (generated shape: see elementwise.inc). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2,f16c,prfchw")
#define OM_VB 64
#define OM_FN(name) om_##name##_512
#include "elementwise.inc"
#endif

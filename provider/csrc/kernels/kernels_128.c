/* kernels_128.c - the element-wise kernels instantiated for the 128 path (generated shape: see elementwise.inc). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("sse4.2")
#define OM_VB 16
#define OM_FN(name) om_##name##_128
#include "elementwise.inc"
#endif

/* reduce_128.c - the reduction kernels instantiated for the 128 path (see reduce_body.inc). */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("sse4.2")
#endif /* AArch64: Advanced SIMD is the base ISA, no pragma */
#define OM_RED_VB 16 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_128
#define OM_RED_TABLE om_red_path_128
#include "reduce_body.inc"
#endif

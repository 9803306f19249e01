/* kernels_128.c - the element-wise kernels instantiated for the 128 path (generated shape: see elementwise.inc):
 * SSE4.2 on x86, Advanced SIMD (NEON) on AArch64, where it is part of the base ISA (no target pragma). The
 * bodies are the same GCC vector extensions on both; the few intrinsics below them (lanes.h) have one branch
 * per ISA, and the exact-mode first passes are the IEEE + - * / ones on both (no FMA: the same operations as
 * x86's 128 path, so the same bits; see docs/exact-mode.md, "ARM64"). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("sse4.2")
#define OM_VB 16
#elif defined(__aarch64__)
#define OM_VB 16
#endif
#ifdef OM_VB
#define OM_FN(name) om_##name##_128
#include "elementwise.inc"
#endif

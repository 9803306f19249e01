/* kernels_128.c - the element-wise kernels instantiated for the 128 path (generated shape: see elementwise.inc):
 * SSE4.2 on x86, Advanced SIMD (NEON) on AArch64, where it is part of the base ISA (no target pragma). The
 * bodies are the same GCC vector extensions on both; the few intrinsics below them (lanes.inc) have one branch
 * per ISA, and the exact-mode first passes are the IEEE + - * / ones on both (no FMA: the same operations as
 * x86's 128 path, so the same bits; see docs/exact-mode.md, "ARM64"). */
#include "isa/target.h"
#if OM_ISA_X86 || OM_ISA_NEON
#if OM_ISA_X86
OM_TARGET_X86_SSE42
#endif
#define OM_VB 16
#define OM_FN(name) om_##name##_128
#include "elementwise.inc"
#endif

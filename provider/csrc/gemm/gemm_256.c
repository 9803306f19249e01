/* gemm_256.c - the matrix-product kernels for the 256 path (AVX2 + FMA; body: gemm_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#include <immintrin.h>

#include "gemm_internal.h"
#define OM_VB 32
#define OM_GPATH 256
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"
#endif

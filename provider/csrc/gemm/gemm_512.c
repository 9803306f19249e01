/* gemm_512.c - the matrix-product kernels for the 512 path (AVX-512F; body: gemm_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#include <immintrin.h>

#include "gemm_internal.h"
#define OM_VB 64
#define OM_GPATH 512
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"
#endif

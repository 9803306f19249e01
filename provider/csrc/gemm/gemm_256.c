/* gemm_256.c - the matrix-product kernels for the 256 path (AVX2 + FMA; body: gemm_body.inc). */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma,bmi2,f16c")
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

/* gemm_scalar.c - the matrix-product kernels for the one-lane path (libm fmaf/fma, IEEE-exact; body:
 * gemm_body.inc). */
#include <math.h>

#include "gemm_internal.h"
#define OM_VB 0
#define OM_GPATH scalar
#define OM_G64 0
#include "gemm_body.inc"
#undef OM_G64
#define OM_G64 1
#include "gemm_body.inc"

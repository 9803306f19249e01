/* dwconv_scalar.c - the depthwise convolution row kernels for the one-lane path (libm fmaf/fma, IEEE-exact;
 * body: dwconv_body.inc). */
#include <math.h>

#include "dwconv.h"
#define OM_VB 0
#define OM_DWPATH scalar
#define OM_G64 0
#include "dwconv_body.inc"
#undef OM_G64
#define OM_G64 1
#include "dwconv_body.inc"
OM_DWCONV_KERN(scalar)

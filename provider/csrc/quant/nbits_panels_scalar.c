/* nbits_panels_scalar.c - MatMulNBits' panel fill and few-row product of the scalar path (body:
 * nbits_panels_body.inc). */
#include <math.h>
#define OM_VB 0
#define OM_NBF_NAME om_nbits_panels_fill_scalar
#define OM_NBG_NAME om_nbits_panels_gemv_scalar
#include "nbits_panels_body.inc"

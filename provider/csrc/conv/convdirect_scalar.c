/* convdirect_scalar.c - the direct convolution's tile kernel for the one-lane path (libm fmaf, IEEE-exact;
 * body: convdirect_body.inc). */
#include <math.h>

#include "convdirect.h"
#define OM_VB 0
#define OM_CDPATH scalar
#include "convdirect_body.inc"

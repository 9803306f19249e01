/* reduce_scalar.c - the reduction kernels instantiated for the one-lane path (see reduce_body.inc). */
#define OM_RED_VB 0 /* bytes of the native vector (om_red_vmaxmin) */
#define OM_RED_PATH OM_PATH_SCALAR
#define OM_RED_TABLE om_red_path_scalar
#include "reduce_body.inc"

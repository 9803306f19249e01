/* qdwconv_scalar.c - the depthwise quantized convolution kernels of the one-lane path (body: qdwconv_body.inc). */
#define OM_QDW_SYM scalar
#define OM_QDW_LANES 4
#include "qdwconv_body.inc"

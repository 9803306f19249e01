/* qdq_scalar.c - the QuantizeLinear / DequantizeLinear kernels of the one-lane path (body: qdq_body.inc). */
#define OM_QD_LANES 1
#define OM_QD_SYM scalar
#include "qdq_body.inc"

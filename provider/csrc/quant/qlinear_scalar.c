/* qlinear_scalar.c - the QLinearAdd / QLinearMul kernels of the one-lane path (body: qlinear_body.inc). */
#define OM_QL_SYM scalar
#include "qlinear_body.inc"

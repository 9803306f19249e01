/* nbits_int8_scalar.c - MatMulNBits' accuracy_level 4 product on the scalar path (body: nbits_int8_body.inc). */
#include "isa/target.h"
#define OM_VB 0
#define OM_NBI8_NAME om_nbits_int8_scalar
#include "nbits_int8_body.inc"

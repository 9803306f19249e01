/* qlinear_256.c - the QLinearAdd / QLinearMul kernels of the 256 path (AVX2; body: qlinear_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_QL_SYM 256
#include "qlinear_body.inc"
#endif

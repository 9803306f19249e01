/* qlinear_512.c - the QLinearAdd / QLinearMul kernels of the 512 path (AVX-512; body: qlinear_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_QL_SYM 512
#include "qlinear_body.inc"
#endif

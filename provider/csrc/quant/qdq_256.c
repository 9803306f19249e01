/* qdq_256.c - the QuantizeLinear / DequantizeLinear kernels of the 256 path (AVX2; body: qdq_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_QD_LANES 8
#define OM_QD_SYM 256
#include "qdq_body.inc"
#endif
